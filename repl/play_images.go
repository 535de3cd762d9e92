package repl

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/workload"
)

func init() {
	register(&Command{
		Name:    "images",
		Aliases: []string{"image"},
		Usage:   "images [push NAME:TAG [--size SIZE] [--startup DURATION] [--port N]... [--exit-after DURATION] [--exit-code N] [--healthy-for DURATION] [--unhealthy-status CODE] [--memory SIZE] [--memory-growth SIZE] [--ignore-sigterm] [--log LINE]... [--description TEXT]]",
		Short:   "list the images of the simulated container registry, or push one",
		Long: `images lists what the simulated registry holds: each image's repository and
tags, its compressed size (what a kubelet pulls, so what a pull costs in
time), how long its process takes to start serving, the ports it listens on,
and what it is. A pod whose image is not listed here fails to pull, as it
would against a real registry (ErrImagePull, then ImagePullBackOff).

images push adds your own image, as docker push would, with what its process
does: how big it is and how long it takes to start; whether it exits by
itself (--exit-after, --exit-code: a crash when not 0); whether its health
endpoint turns bad (--healthy-for, then --unhealthy-status, as agnhost's
liveness server does); how much memory it uses and how fast that grows (past
the container's limit the kernel kills it: OOMKilled); whether it ignores
SIGTERM (then the kubelet kills it when the grace period ends). Pushing a tag
that exists moves it to the new image. Pushed images stay across reset: the
registry is outside the cluster.`,
		Example: `images
images push shop/api:v2.1 --size 48Mi --startup 2s --port 8080
images push shop/api:v2.2 --size 48Mi --port 8080 --healthy-for 30s
images push shop/leaky:1.0 --memory 64Mi --memory-growth 1Mi`,
		Flags: []Flag{
			{Name: "size", Value: "SIZE", Default: "20Mi", Usage: "compressed size (48Mi, 120MB): what a pull downloads"},
			{Name: "startup", Value: "DURATION", Default: "1s", Usage: "how long the process takes to start serving"},
			{Name: "port", Value: "N", Usage: "a port the process listens on; repeat for more"},
			{Name: "exit-after", Value: "DURATION", Usage: "the process exits by itself this long after it starts"},
			{Name: "exit-code", Value: "N", Default: "0", Usage: "its exit code when it exits by itself"},
			{Name: "healthy-for", Value: "DURATION", Usage: "its HTTP endpoints answer 200 this long, then --unhealthy-status"},
			{Name: "unhealthy-status", Value: "CODE", Default: "500", Usage: "the HTTP status after --healthy-for"},
			{Name: "memory", Value: "SIZE", Usage: "memory the process uses once started"},
			{Name: "memory-growth", Value: "SIZE", Usage: "how much more memory it uses every second (a leak)"},
			{Name: "ignore-sigterm", Usage: "the process does not exit on SIGTERM; the kubelet kills it at the end of the grace period"},
			{Name: "log", Value: "LINE", Usage: "a line the process prints as it starts; repeat for more"},
			{Name: "description", Value: "TEXT", Usage: "one line for the images list"},
		},
		Group: GroupPlayground,
		Run:   runImages,
	})
}

func runImages(s *Session, args []string, _ string) error {
	f, err := s.Parse(args)
	if err != nil {
		return err
	}
	if len(f.Args) > 0 {
		if f.Args[0] != "push" {
			return usagef("images takes no arguments but push NAME:TAG")
		}
		if len(f.Args) != 2 {
			return usagef("images push needs one NAME:TAG")
		}
		img, err := imageFromFlags(f.Args[1], f)
		if err != nil {
			return err
		}
		pushed, err := s.Eng.Images.Add(img)
		if err != nil {
			return err
		}
		s.pushed = append(s.pushed, img)
		fmt.Fprintf(s.Out, "pushed %s (%s, %s)\n", pushed.Ref(), humanBytes(pushed.SizeBytes), pushed.Digest)
		return nil
	}
	for _, fl := range commands["images"].Flags {
		if f.Changed(fl.Name) {
			return usagef("--%s goes with images push", fl.Name)
		}
	}
	tw := tabwriter.NewWriter(s.Out, 6, 4, 3, ' ', 0)
	fmt.Fprintln(tw, "IMAGE\tTAGS\tSIZE\tSTARTUP\tPORTS\tDESCRIPTION")
	type row struct {
		repo string
		img  *workload.Image
	}
	var rows []row
	for _, img := range s.Eng.Images.Images() {
		repo := strings.TrimPrefix(img.Repository, workload.DefaultDomain+"/")
		rows = append(rows, row{strings.TrimPrefix(repo, "library/"), img})
	}
	// By the name a learner types, as the registry keeps each name's tags.
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].repo < rows[j].repo })
	for _, r := range rows {
		repo, img := r.repo, r.img
		tags := strings.Join(img.Tags, ",")
		if tags == "" {
			tags = "<none>"
		}
		var ports []string
		for _, p := range img.Ports {
			ports = append(ports, strconv.Itoa(int(p)))
		}
		portList := strings.Join(ports, ",")
		if portList == "" {
			portList = "<none>"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", repo, tags, humanBytes(img.SizeBytes),
			FormatTick(img.StartupTime), portList, img.Description)
	}
	return tw.Flush()
}

// humanBytes prints a size as crictl does: decimal units, three
// significant digits ("68.9MB", "742kB").
func humanBytes(n int64) string {
	units := []string{"B", "kB", "MB", "GB", "TB"}
	f := float64(n)
	i := 0
	for f >= 1000 && i < len(units)-1 {
		f /= 1000
		i++
	}
	return strconv.FormatFloat(f, 'g', 3, 64) + units[i]
}

// imageFromFlags builds the image `images push` adds.
func imageFromFlags(name string, f *Flags) (workload.Image, error) {
	img := workload.Image{Repository: name, Description: f.String("description")}
	if img.Description == "" {
		img.Description = "pushed by you"
	}
	size, err := resource.ParseQuantity(f.String("size"))
	if err != nil || size.Sign() <= 0 {
		return img, usagef("--size: %q is not a size such as 48Mi or 120MB", f.String("size"))
	}
	img.SizeBytes = size.Value()
	if img.StartupTime, err = tickFlag(f, "startup"); err != nil {
		return img, err
	}
	for _, p := range f.Strings("port") {
		n, err := strconv.ParseInt(p, 10, 32)
		if err != nil || n < 1 || n > 65535 {
			return img, usagef("--port: %q is not a port from 1 to 65535", p)
		}
		img.Ports = append(img.Ports, int32(n))
	}
	for _, l := range f.Strings("log") {
		img.Logs = append(img.Logs, workload.LogLine{Text: l})
	}
	b := &img.Behavior
	if f.Changed("exit-after") || f.Changed("exit-code") {
		b.Exits = true
		if b.ExitAfter, err = tickFlag(f, "exit-after"); err != nil {
			return img, err
		}
		code, err := f.Int("exit-code")
		if err != nil || code < 0 || code > 255 {
			return img, usagef("--exit-code: an exit code is from 0 to 255")
		}
		b.ExitCode = int32(code)
	}
	if f.Changed("healthy-for") {
		if b.HealthyFor, err = tickFlag(f, "healthy-for"); err != nil {
			return img, err
		}
		if b.HealthyFor <= 0 {
			return img, usagef("--healthy-for must be longer than 0s")
		}
		code, err := f.Int("unhealthy-status")
		if err != nil || code < 100 || code > 599 {
			return img, usagef("--unhealthy-status: an HTTP status is from 100 to 599")
		}
		b.UnhealthyStatus = code
	}
	for _, m := range []struct {
		flag string
		dst  *int64
	}{{"memory", &b.MemoryBytes}, {"memory-growth", &b.MemoryGrowthBytesPerSecond}} {
		flag, dst := m.flag, m.dst
		if !f.Changed(flag) {
			continue
		}
		q, err := resource.ParseQuantity(f.String(flag))
		if err != nil || q.Sign() < 0 {
			return img, usagef("--%s: %q is not a size such as 64Mi", flag, f.String(flag))
		}
		*dst = q.Value()
	}
	b.IgnoresSIGTERM = f.Bool("ignore-sigterm")
	return img, nil
}

// tickFlag reads a duration flag (its default when absent) as virtual time.
func tickFlag(f *Flags, name string) (sim.Tick, error) {
	v := f.String(name)
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, usagef("--%s: %q is not a duration such as 2s or 1m30s", name, v)
	}
	return sim.FromDuration(d), nil
}
