package repl

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/kubeloop/kubeloop/engine/workload"
)

func init() {
	register(&Command{
		Name:    "images",
		Aliases: []string{"image"},
		Usage:   "images",
		Short:   "list the images of the simulated container registry",
		Long: `images lists what the simulated registry holds: each image's repository and
tags, its compressed size (what a kubelet pulls, so what a pull costs in
time), how long its process takes to start serving, the ports it listens on,
and what it is. A pod whose image is not listed here fails to pull, as it
would against a real registry (ErrImagePull, then ImagePullBackOff).`,
		Example: "images",
		Group:   GroupPlayground,
		Run:     runImages,
	})
}

func runImages(s *Session, args []string, _ string) error {
	if len(args) > 0 {
		return usagef("images takes no arguments")
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
