package repl

// autoscale creates a HorizontalPodAutoscaler as kubectl autoscale does
// (pkg/cmd/autoscale): autoscaling/v2, named after its target, with a cpu
// Utilization metric for --cpu-percent (or --cpu 70%), an AverageValue one
// for --cpu 500m / --memory 200Mi, and none at all otherwise (the API
// server then defaults to cpu at 80%). why hpa/NAME ends with the HPA
// controller's account of its latest sync (hpaWhy).

import (
	"fmt"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

func init() {
	register(&Command{
		Name:  "autoscale",
		Usage: "autoscale (KIND NAME | KIND/NAME) [--min=MINPODS] --max=MAXPODS [--cpu-percent=CPU | --cpu=CPU] [--memory=MEMORY] [--name=NAME]",
		Short: "create a HorizontalPodAutoscaler for a deployment",
		Long: `autoscale creates an autoscaling/v2 HorizontalPodAutoscaler that keeps the
target's average CPU (or memory) use near a target, as kubectl autoscale does.
Every 15 s the HPA controller reads the pods' usage from the metrics-server
and sets replicas to ceil(replicas × current / target), between --min and
--max. --cpu-percent=50 (or --cpu=50%) targets 50% of each pod's CPU
request; --cpu=500m targets an average of 500 millicores; --memory works
the same way. Without a target the API server uses 80% CPU.

Give the pods CPU requests, then load (see help load) to watch it scale;
why hpa/NAME explains its latest decision.`,
		Example: "autoscale deployment php-apache --cpu-percent=50 --min=1 --max=10",
		Flags: []Flag{
			{Name: "min", Value: "MINPODS", Default: "-1", Usage: "the fewest replicas the autoscaler may set (default: the server's, 1)"},
			{Name: "max", Value: "MAXPODS", Default: "-1", Usage: "the most replicas the autoscaler may set (required)"},
			{Name: "cpu-percent", Value: "PERCENT", Default: "-1", Usage: "target average CPU use, as a percentage of the pods' requests"},
			{Name: "cpu", Value: "CPU", Usage: "target CPU: 70% of request, or an average quantity such as 500m"},
			{Name: "memory", Value: "MEMORY", Usage: "target memory: 60% of request, or an average quantity such as 200Mi"},
			{Name: "name", Value: "NAME", Usage: "the autoscaler's name (default: the target's)"},
			FlagNamespace, flagDryRun,
		},
		Run: runAutoscale,
	})
}

func runAutoscale(s *Session, args []string, _ string) error {
	f, err := s.Parse(args)
	if err != nil {
		return err
	}
	dry, err := parseDryRun(f)
	if err != nil {
		return err
	}
	if !f.Changed("max") {
		return kerrorf("required flag(s) \"max\" not set")
	}
	minR, err := f.Int("min")
	if err != nil {
		return err
	}
	maxR, err := f.Int("max")
	if err != nil {
		return err
	}
	cpuPercent, err := f.Int("cpu-percent")
	if err != nil {
		return err
	}
	if maxR < 1 {
		return kerrorf("--max=MAXPODS is required and must be at least 1, max: %d", maxR)
	}
	if maxR < minR {
		return kerrorf("--max=MAXPODS must be larger or equal to --min=MINPODS, max: %d, min: %d", maxR, minR)
	}
	cpu, mem := f.String("cpu"), f.String("memory")
	if cpuPercent > 0 && cpu != "" {
		return kerrorf("--cpu-percent and --cpu are mutually exclusive")
	}
	var metrics []autoscalingv2.MetricSpec
	if cpuPercent > 0 {
		v := int32(cpuPercent)
		metrics = append(metrics, resourceMetric(corev1.ResourceCPU, autoscalingv2.MetricTarget{
			Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &v}))
	}
	for _, m := range []struct {
		res corev1.ResourceName
		in  string
	}{{corev1.ResourceCPU, cpu}, {corev1.ResourceMemory, mem}} {
		if m.in == "" {
			continue
		}
		t, err := parseAutoscaleTarget(m.in, m.res)
		if err != nil {
			return kerrorf("%v", err)
		}
		metrics = append(metrics, resourceMetric(m.res, t))
	}

	refs, err := parseResources(f.Args, false)
	if err != nil {
		return err
	}
	if len(refs) == 0 {
		return usagef("autoscale needs a resource, as TYPE NAME or TYPE/NAME (for example deployment/php-apache)")
	}
	ns := namespaceFlag(s, f)
	targets, errs := findObjects(s, refs, findOpts{namespace: ns})
	count := 0
	for _, t := range targets {
		switch t.kind.Kind {
		case "Deployment", "ReplicaSet", "StatefulSet", "ReplicationController":
		default:
			errs = append(errs, kerrorf("cannot autoscale a %s: no scale subresource for %s", t.kind.Kind, t.kind.Resource))
			continue
		}
		name := f.String("name")
		if name == "" {
			name = t.obj.GetName()
		}
		hpa := &autoscalingv2.HorizontalPodAutoscaler{
			TypeMeta:   metav1.TypeMeta{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: t.obj.GetNamespace()},
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
				ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{
					APIVersion: t.kind.APIVersion(), Kind: t.kind.Kind, Name: t.obj.GetName()},
				MaxReplicas: int32(maxR),
				Metrics:     metrics,
			},
		}
		if minR > 0 {
			v := int32(minR)
			hpa.Spec.MinReplicas = &v
		}
		if _, err := createObject(s, hpa, dry); err != nil {
			errs = append(errs, kubectlError(err))
			continue
		}
		count++
		fmt.Fprintf(s.Out, "horizontalpodautoscaler.autoscaling/%s autoscaled%s\n", name, dry.suffix())
	}
	if count == 0 && len(errs) == 0 {
		return kerrorf("no objects passed to autoscale")
	}
	return joinErrors(errs)
}

func resourceMetric(res corev1.ResourceName, t autoscalingv2.MetricTarget) autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{Name: res, Target: t}}
}

// parseAutoscaleTarget is kubectl's parseResourceInput: "70%" is a
// utilization target; "500m" or "2Gi" an average value; a bare number is
// millicores for CPU and mebibytes for memory.
func parseAutoscaleTarget(in string, res corev1.ResourceName) (autoscalingv2.MetricTarget, error) {
	in = strings.TrimSpace(in)
	if p, ok := strings.CutSuffix(in, "%"); ok {
		v, err := strconv.ParseInt(p, 10, 32)
		if err != nil || v < 0 {
			return autoscalingv2.MetricTarget{}, fmt.Errorf("invalid percentage value: %s", p)
		}
		u := int32(v)
		return autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &u}, nil
	}
	if v, err := strconv.ParseFloat(in, 64); err == nil {
		unit := "m"
		if res == corev1.ResourceMemory {
			unit = "Mi"
		}
		in = fmt.Sprintf("%g%s", v, unit)
	}
	q, err := resource.ParseQuantity(in)
	if err != nil {
		return autoscalingv2.MetricTarget{}, fmt.Errorf("invalid resource %s value: %s", res, in)
	}
	return autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &q}, nil
}

// autoscalingWhy is what why adds for an HPA (its latest decision) or a
// Deployment an HPA scales (the same, introduced); "" for anything else.
func autoscalingWhy(s *Session, obj kinds.Object) string {
	switch o := obj.(type) {
	case *autoscalingv2.HorizontalPodAutoscaler:
		return hpaWhy(s, o)
	case *appsv1.Deployment:
		var b strings.Builder
		for _, ho := range s.Eng.Store.List(kinds.HPA, o.Namespace) {
			h := ho.(*autoscalingv2.HorizontalPodAutoscaler)
			ref := h.Spec.ScaleTargetRef
			if ref.Kind != "Deployment" || ref.Name != o.Name {
				continue
			}
			fmt.Fprintf(&b, "\nIts replicas are set by horizontalpodautoscaler/%s (min %d, max %d).\n", h.Name, minReplicasOf(h), h.Spec.MaxReplicas)
			b.WriteString(strings.TrimPrefix(hpaWhy(s, h), "\n"))
		}
		return b.String()
	}
	return ""
}

func minReplicasOf(h *autoscalingv2.HorizontalPodAutoscaler) int32 {
	if h.Spec.MinReplicas != nil {
		return *h.Spec.MinReplicas
	}
	return 1
}

// hpaWhy is the HPA controller's account of its latest sync of h, for why.
func hpaWhy(s *Session, h *autoscalingv2.HorizontalPodAutoscaler) string {
	var b strings.Builder
	b.WriteString("\n")
	c := s.Eng.HPA()
	if c == nil {
		return ""
	}
	d, ok := c.Explain(h.Namespace, h.Name)
	if !ok {
		next := ""
		if s.Eng.Metrics != nil {
			next = " It syncs every 15 s, the first time 15 s after the autoscaler is created."
		}
		b.WriteString("The HPA controller has not synced it yet." + next + "\n")
		return b.String()
	}
	fmt.Fprintf(&b, "The HPA controller's latest sync (at %s, %s ago):\n", FormatTick(d.At), FormatTick(s.Now()-d.At))
	for _, st := range d.Steps {
		lines := trWrap(st, traceWidth-4)
		for i, ln := range lines {
			if i == 0 {
				b.WriteString("  - " + ln + "\n")
			} else {
				b.WriteString("    " + ln + "\n")
			}
		}
	}
	b.WriteString("\n")
	for _, ln := range trWrap(hpaVerdict(h, d.Current, d.Desired, d.Error), traceWidth) {
		b.WriteString(ln + "\n")
	}
	return b.String()
}

// hpaVerdict answers "why did it (not) scale?" from the HPA's conditions.
func hpaVerdict(h *autoscalingv2.HorizontalPodAutoscaler, current, desired int32, errText string) string {
	cond := func(t autoscalingv2.HorizontalPodAutoscalerConditionType) *autoscalingv2.HorizontalPodAutoscalerCondition {
		for i := range h.Status.Conditions {
			if h.Status.Conditions[i].Type == t {
				return &h.Status.Conditions[i]
			}
		}
		return nil
	}
	if errText != "" {
		return "Why it did not scale: it could not compute a replica count (" + errText + "), so it leaves the replicas as they are and tries again every 15 s."
	}
	if desired != current {
		return fmt.Sprintf("Why it scaled: the recommendation left the 0.1 tolerance, so it set %d replicas (from %d).", desired, current)
	}
	var why []string
	if c := cond(autoscalingv2.AbleToScale); c != nil {
		switch c.Reason {
		case "ScaleDownStabilized":
			why = append(why, "a higher recommendation is still within the scale-down stabilization window (5 minutes by default), so it waits before removing pods")
		case "ScaleUpStabilized":
			why = append(why, "a lower recommendation is still within the scale-up stabilization window")
		}
	}
	if c := cond(autoscalingv2.ScalingLimited); c != nil && c.Status == corev1.ConditionTrue {
		switch c.Reason {
		case "TooFewReplicas":
			why = append(why, "it is already at minReplicas")
		case "TooManyReplicas":
			why = append(why, "it is already at maxReplicas")
		default:
			why = append(why, c.Message)
		}
	}
	if c := cond(autoscalingv2.ScalingActive); c != nil && c.Status == corev1.ConditionFalse {
		why = append(why, c.Message)
	}
	if len(why) == 0 {
		why = append(why, "the usage is within 10% of the target (the 0.1 tolerance), so a change would not be worth it")
	}
	return fmt.Sprintf("Why it did not scale: %s; it keeps %d.", strings.Join(why, "; "), current)
}
