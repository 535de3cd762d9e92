package repl

// top shows the metrics-server's latest samples as kubectl top does
// (pkg/cmd/top, pkg/metricsutil/metrics_printer.go): its columns, its
// tabwriter (cells padded by 3, each line ending in padding), CPU in
// millicores and memory in Mi, percentages of the node's allocatable.

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/metrics"
	"github.com/kubeloop/kubeloop/engine/sim"
)

// topMetricsCreationDelay is kubectl top's metricsCreationDelay: a pod
// younger than this without metrics is "not available yet"; an older one is
// reported by name.
const topMetricsCreationDelay = 2 * sim.Minute

func init() {
	register(&Command{
		Name:  "top",
		Usage: "top (pods [NAME] [-l SELECTOR] [-A] [--containers] | nodes [NODE]) [--sort-by=cpu|memory] [--no-headers]",
		Short: "show pods' or nodes' CPU and memory use, from the metrics-server",
		Long: `top shows the CPU (in millicores) and memory (working set, in Mi) that pods or
nodes use, as kubectl top does. The numbers come from the metrics-server,
which samples every kubelet every 15 s, so they lag by up to 15 s; right
after the cluster starts it has nothing yet and top says "metrics not
available yet". top nodes adds each node's use as a percentage of its
allocatable. Load a deployment (see help load) to see the numbers move.`,
		Example: "top pods\ntop pods -l app=php-apache --containers\ntop nodes",
		Flags: []Flag{FlagNamespace, FlagAllNamespaces, FlagSelector,
			{Name: "containers", Usage: "show each container of a pod"},
			{Name: "sort-by", Value: "cpu|memory", Usage: "sort by usage, highest first", Values: []string{"cpu", "memory"}},
			{Name: "no-headers", Usage: "leave out the header line"},
			{Name: "sum", Usage: "print the sum of the pods' usage"},
			{Name: "show-capacity", Usage: "percentages of the nodes' capacity, not allocatable"}},
		Complete: func(s *Session, args []string, word string) []string {
			if len(args) == 0 {
				return prefixed([]string{"nodes", "pods", "node", "pod"}, word)
			}
			return nil
		},
		Run: runTop,
	})
}

func runTop(s *Session, args []string, _ string) error {
	f, err := s.Parse(args)
	if err != nil {
		return err
	}
	if len(f.Args) == 0 {
		return usagef("top needs pods or nodes")
	}
	switch sb := f.String("sort-by"); sb {
	case "", "cpu", "memory":
	default:
		return kerrorf("--sort-by accepts only cpu or memory")
	}
	switch f.Args[0] {
	case "pod", "pods", "po":
		return topPods(s, f)
	case "node", "nodes", "no":
		return topNodes(s, f)
	}
	return usagef("top shows pods or nodes, not %q", f.Args[0])
}

func topWriter(out io.Writer) *tabwriter.Writer {
	// kubectl's printers.GetNewTabWriter.
	return tabwriter.NewWriter(out, 10, 4, 3, ' ', 0)
}

func cpuCell(m int64) string { return fmt.Sprintf("%dm", m) }
func memCell(b int64) string { return fmt.Sprintf("%dMi", b/(1024*1024)) }

func topPods(s *Session, f *Flags) error {
	m := s.Eng.Metrics
	allNS := f.Bool("all-namespaces")
	ns := namespaceFlag(s, f)
	if allNS {
		ns = ""
	}
	sel, err := parseSelector(f.String("selector"))
	if err != nil {
		return err
	}
	if len(f.Args) > 2 {
		return usagef("top pods takes at most one pod name")
	}
	if !m.Available() {
		return kerrorf("metrics not available yet")
	}
	var samples []metrics.PodMetrics
	if len(f.Args) == 2 {
		name := f.Args[1]
		pm, ok := m.Pod(ns, name)
		if !ok {
			if o, exists := s.Eng.Store.Lookup(kinds.Pod, ns, name); exists {
				if err := checkPodAge(s, o.(*corev1.Pod)); err != nil {
					return err
				}
				return kerrorf("metrics not available yet")
			}
			return &kubectlCLIError{fmt.Sprintf("Error from server (NotFound): podmetrics.metrics.k8s.io %q not found", ns+"/"+name)}
		}
		samples = append(samples, pm)
	} else {
		for _, pm := range m.Pods(ns) {
			if sel != nil {
				o, ok := s.Eng.Store.Lookup(kinds.Pod, pm.Namespace, pm.Name)
				if !ok || !sel.Matches(labels.Set(o.GetLabels())) {
					continue
				}
			}
			samples = append(samples, pm)
		}
	}
	if len(samples) == 0 {
		// kubectl's verifyEmptyMetrics: pods without samples yet.
		for _, o := range s.Eng.Store.List(kinds.Pod, ns) {
			if sel != nil && !sel.Matches(labels.Set(o.GetLabels())) {
				continue
			}
			if err := checkPodAge(s, o.(*corev1.Pod)); err != nil {
				return err
			}
			return kerrorf("metrics not available yet")
		}
		if allNS {
			fmt.Fprintln(s.Err, "No resources found")
		} else {
			fmt.Fprintf(s.Err, "No resources found in %s namespace.\n", ns)
		}
		return nil
	}
	sortBy := f.String("sort-by")
	sort.SliceStable(samples, func(i, j int) bool {
		a, b := &samples[i], &samples[j]
		switch sortBy {
		case "cpu":
			return a.CPUMilli() > b.CPUMilli()
		case "memory":
			return a.MemoryBytes() > b.MemoryBytes()
		}
		if allNS && a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
	w := topWriter(s.Out)
	containers := f.Bool("containers")
	cols := 3
	if !f.Bool("no-headers") {
		if allNS {
			fmt.Fprint(w, "NAMESPACE\t")
			cols++
		}
		if containers {
			fmt.Fprint(w, "POD\t")
			cols++
		}
		fmt.Fprint(w, "NAME\tCPU(cores)\tMEMORY(bytes)\t\n")
	}
	var sumCPU, sumMem int64
	for _, pm := range samples {
		sumCPU += pm.CPUMilli()
		sumMem += pm.MemoryBytes()
		if containers {
			cs := append([]metrics.ContainerMetrics(nil), pm.Containers...)
			sort.SliceStable(cs, func(i, j int) bool {
				switch sortBy {
				case "cpu":
					return cs[i].CPUMilli > cs[j].CPUMilli
				case "memory":
					return cs[i].MemoryBytes > cs[j].MemoryBytes
				}
				return cs[i].Name < cs[j].Name
			})
			for _, c := range cs {
				if allNS {
					fmt.Fprint(w, pm.Namespace+"\t")
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t\n", pm.Name, c.Name, cpuCell(c.CPUMilli), memCell(c.MemoryBytes))
			}
			continue
		}
		if allNS {
			fmt.Fprint(w, pm.Namespace+"\t")
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t\n", pm.Name, cpuCell(pm.CPUMilli()), memCell(pm.MemoryBytes()))
	}
	if f.Bool("sum") {
		fmt.Fprint(w, strings.Repeat("\t", cols-2)+"________\t________\t\n")
		fmt.Fprint(w, strings.Repeat("\t", cols-3)+"\t"+cpuCell(sumCPU)+"\t"+memCell(sumMem)+"\t\n")
	}
	return w.Flush()
}

// checkPodAge is kubectl top's checkPodAge: a pod older than two minutes
// should have metrics by now.
func checkPodAge(s *Session, p *corev1.Pod) error {
	age := s.Now() - sim.FromTime(p.CreationTimestamp.Time)
	if age > topMetricsCreationDelay {
		return kerrorf("Metrics not available for pod %s/%s, age: %s", p.Namespace, p.Name, age.Duration().String())
	}
	return nil
}

func topNodes(s *Session, f *Flags) error {
	m := s.Eng.Metrics
	sel, err := parseSelector(f.String("selector"))
	if err != nil {
		return err
	}
	if len(f.Args) > 2 {
		return usagef("top nodes takes at most one node name")
	}
	if !m.Available() {
		return kerrorf("metrics not available yet")
	}
	var nodes []*corev1.Node
	var samples []metrics.NodeMetrics
	if len(f.Args) == 2 {
		name := f.Args[1]
		nm, ok := m.Node(name)
		if !ok {
			return &kubectlCLIError{fmt.Sprintf("Error from server (NotFound): nodemetrics.metrics.k8s.io %q not found", name)}
		}
		o, ok := s.Eng.Store.Lookup(kinds.Node, "", name)
		if !ok {
			return kubectlError(notFound(kinds.Node, name))
		}
		nodes = append(nodes, o.(*corev1.Node))
		samples = append(samples, nm)
	} else {
		for _, o := range s.Eng.Store.List(kinds.Node, "") {
			if sel != nil && !sel.Matches(labels.Set(o.GetLabels())) {
				continue
			}
			nodes = append(nodes, o.(*corev1.Node))
			if nm, ok := m.Node(o.GetName()); ok {
				samples = append(samples, nm)
			}
		}
	}
	if len(samples) == 0 {
		return kerrorf("metrics not available yet")
	}
	avail := map[string]corev1.ResourceList{}
	for _, n := range nodes {
		if f.Bool("show-capacity") {
			avail[n.Name] = n.Status.Capacity
		} else {
			avail[n.Name] = n.Status.Allocatable
		}
	}
	sortBy := f.String("sort-by")
	sort.SliceStable(samples, func(i, j int) bool {
		switch sortBy {
		case "cpu":
			return samples[i].CPUMilli > samples[j].CPUMilli
		case "memory":
			return samples[i].MemoryBytes > samples[j].MemoryBytes
		}
		return samples[i].Name < samples[j].Name
	})
	w := topWriter(s.Out)
	if !f.Bool("no-headers") {
		fmt.Fprint(w, "NAME\tCPU(cores)\tCPU(%)\tMEMORY(bytes)\tMEMORY(%)\t\n")
	}
	pct := func(used int64, q corev1.ResourceList, res corev1.ResourceName, milli bool) string {
		a, ok := q[res]
		if !ok {
			return ""
		}
		frac := 0.0
		if !a.IsZero() {
			if milli {
				frac = float64(used) / float64(a.MilliValue()) * 100
			} else {
				frac = float64(used*1000) / float64(a.MilliValue()) * 100
			}
		}
		return fmt.Sprintf("%d%%\t", int64(frac))
	}
	for _, nm := range samples {
		a := avail[nm.Name]
		fmt.Fprintf(w, "%s\t%s\t%s%s\t%s\n", nm.Name, cpuCell(nm.CPUMilli), pct(nm.CPUMilli, a, corev1.ResourceCPU, true),
			memCell(nm.MemoryBytes), pct(nm.MemoryBytes, a, corev1.ResourceMemory, false))
		delete(avail, nm.Name)
	}
	// Nodes without metrics, as printMissingMetricsNodeLine (kubectl prints
	// them in map order; kubeloop sorts them).
	var missing []string
	for n := range avail {
		missing = append(missing, n)
	}
	sort.Strings(missing)
	for _, n := range missing {
		fmt.Fprintf(w, "%s\t<unknown>\t<unknown>\t<unknown>\t<unknown>\t\n", n)
	}
	return w.Flush()
}
