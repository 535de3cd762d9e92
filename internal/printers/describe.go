package printers

// Describe follows k8s.io/kubectl pkg/describe/describe.go: the same lines in
// the same order, written through the same tabwriter (tab width 8, padding
// 2), so columns line up exactly as kubectl's do.

import (
	"fmt"
	"io"
	"math"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// DescribeContext is what describe shows besides the object itself. Pass
// candidates freely: Describe keeps only what kubectl's own queries would
// return for the object (events about it, pods it controls or that run on
// it, and so on).
type DescribeContext struct {
	// Now is the virtual now, for ages ("71s (x6 over 3m21s)").
	Now time.Time
	// Events are candidate events; Describe keeps those whose
	// involvedObject is the object (name, namespace, uid; and kind, except
	// for pods, as kubectl's field selector does).
	Events []*corev1.Event
	// Pods are candidate pods: a ReplicaSet's "Pods Status" counts those it
	// controls; a node's "Non-terminated Pods" lists those bound to it.
	Pods []*corev1.Pod
	// ReplicaSets are candidates for a Deployment's OldReplicaSets and
	// NewReplicaSet lines: those it controls, the new one being the one
	// whose pod template matches the Deployment's.
	ReplicaSets []*appsv1.ReplicaSet
	// EndpointSlices are candidates for a Service's Endpoints lines: those
	// labelled kubernetes.io/service-name=<service>.
	EndpointSlices []*discoveryv1.EndpointSlice
	// Leases are candidates for a node's Lease section: the one named after
	// the node in kube-node-lease.
	Leases []*coordinationv1.Lease
}

// HasDescriber reports whether Describe has kubectl's dedicated layout for
// the kind; other kinds get kubectl's generic describer.
func HasDescriber(k *kinds.Kind) bool {
	switch k {
	case kinds.Pod, kinds.Deployment, kinds.ReplicaSet, kinds.Service, kinds.Node,
		kinds.EndpointSlice, kinds.HPA, kinds.Namespace, kinds.PDB, kinds.PriorityClass:
		return true
	}
	return false
}

// Describe writes `kubectl describe` for obj. kubectl separates several
// objects with a blank line ("\n\n" before each but the first); that is
// the caller's.
func Describe(w io.Writer, obj kinds.Object, ctx DescribeContext) error {
	tw := new(tabwriter.Writer)
	tw.Init(w, 0, 8, 2, ' ', 0)
	d := &describer{w: tw, now: ctx.Now}
	switch o := obj.(type) {
	case *corev1.Pod:
		d.pod(o, eventsFor(o, ctx.Events, ""))
	case *appsv1.Deployment:
		d.deployment(o, ctx.ReplicaSets, eventsFor(o, ctx.Events, "Deployment"))
	case *appsv1.ReplicaSet:
		d.replicaSet(o, ctx.Pods, eventsFor(o, ctx.Events, "ReplicaSet"))
	case *corev1.Service:
		d.service(o, ctx.EndpointSlices, eventsFor(o, ctx.Events, "Service"))
	case *corev1.Node:
		d.node(o, ctx.Pods, ctx.Leases, nodeEvents(o, ctx.Events))
	case *discoveryv1.EndpointSlice:
		d.endpointSlice(o, eventsFor(o, ctx.Events, "EndpointSlice"))
	case *autoscalingv2.HorizontalPodAutoscaler:
		d.hpa(o, eventsFor(o, ctx.Events, "HorizontalPodAutoscaler"))
	case *corev1.Namespace:
		d.namespace(o)
	case *policyv1.PodDisruptionBudget:
		d.pdb(o, eventsFor(o, ctx.Events, "PodDisruptionBudget"))
	case *schedulingv1.PriorityClass:
		d.priorityClass(o, eventsFor(o, ctx.Events, "PriorityClass"))
	default:
		d.generic(obj, eventsFor(obj, ctx.Events, kinds.Of(obj).Kind))
	}
	return tw.Flush()
}

// describer is kubectl's PrefixWriter: each level indents two spaces.
type describer struct {
	w   io.Writer
	now time.Time
}

// terminalEscaper is cli-runtime's: describe output is escaped so that an
// object cannot drive the learner's terminal.
var terminalEscaper = strings.NewReplacer("\x1b", "^[", "\r", "\\r")

func (d *describer) write(level int, format string, a ...any) {
	prefix := strings.Repeat("  ", level)
	_, _ = terminalEscaper.WriteString(d.w, fmt.Sprintf(prefix+format, a...))
}

func (d *describer) writeLine(a ...any) {
	_, _ = terminalEscaper.WriteString(d.w, fmt.Sprintln(a...))
}

func (d *describer) since(t metav1.Time) string { return since(t.Time, d.now) }

// rfc1123Z formats times as describe does. kubectl uses the local zone of
// the learner's machine; kubeloop's virtual clock is in UTC.
func rfc1123Z(t metav1.Time) string { return t.Time.UTC().Format(time.RFC1123Z) }

func (d *describer) pod(pod *corev1.Pod, events []*corev1.Event) {
	d.write(0, "Name:\t%s\n", pod.Name)
	d.write(0, "Namespace:\t%s\n", pod.Namespace)
	if pod.Spec.Priority != nil {
		d.write(0, "Priority:\t%d\n", *pod.Spec.Priority)
	}
	if pod.Spec.PriorityClassName != "" {
		d.write(0, "Priority Class Name:\t%s\n", pod.Spec.PriorityClassName)
	}
	if pod.Spec.RuntimeClassName != nil && *pod.Spec.RuntimeClassName != "" {
		d.write(0, "Runtime Class Name:\t%s\n", *pod.Spec.RuntimeClassName)
	}
	if pod.Spec.ServiceAccountName != "" {
		d.write(0, "Service Account:\t%s\n", pod.Spec.ServiceAccountName)
	}
	if pod.Spec.NodeName == "" {
		d.write(0, "Node:\t<none>\n")
	} else {
		d.write(0, "Node:\t%s\n", pod.Spec.NodeName+"/"+pod.Status.HostIP)
	}
	if pod.Status.StartTime != nil {
		d.write(0, "Start Time:\t%s\n", rfc1123Z(*pod.Status.StartTime))
	}
	d.labels("", "Labels", pod.Labels)
	d.annotations("Annotations", pod.Annotations)
	if pod.DeletionTimestamp != nil && pod.Status.Phase != corev1.PodFailed && pod.Status.Phase != corev1.PodSucceeded {
		d.write(0, "Status:\tTerminating (lasts %s)\n", d.since(*pod.DeletionTimestamp))
		grace := int64(0)
		if pod.DeletionGracePeriodSeconds != nil {
			grace = *pod.DeletionGracePeriodSeconds
		}
		d.write(0, "Termination Grace Period:\t%ds\n", grace)
	} else {
		d.write(0, "Status:\t%s\n", string(pod.Status.Phase))
	}
	if pod.Status.Reason != "" {
		d.write(0, "Reason:\t%s\n", pod.Status.Reason)
	}
	if pod.Status.Message != "" {
		d.write(0, "Message:\t%s\n", pod.Status.Message)
	}
	if sc := pod.Spec.SecurityContext; sc != nil && sc.SeccompProfile != nil {
		d.write(0, "SeccompProfile:\t%s\n", sc.SeccompProfile.Type)
		if sc.SeccompProfile.Type == corev1.SeccompProfileTypeLocalhost && sc.SeccompProfile.LocalhostProfile != nil {
			d.write(0, "LocalhostProfile:\t%s\n", *sc.SeccompProfile.LocalhostProfile)
		}
	}
	d.write(0, "IP:\t%s\n", pod.Status.PodIP)
	if len(pod.Status.PodIPs) == 0 {
		d.write(0, "IPs:\t<none>\n")
	} else {
		d.write(0, "IPs:\n")
		for _, ip := range pod.Status.PodIPs {
			d.write(1, "IP:\t%s\n", ip.IP)
		}
	}
	if c := controllerOf(pod); c != "" {
		d.write(0, "Controlled By:\t%s\n", c)
	}
	if pod.Status.NominatedNodeName != "" {
		d.write(0, "NominatedNodeName:\t%s\n", pod.Status.NominatedNodeName)
	}
	if pod.Spec.Resources != nil {
		d.write(0, "Resources:\n")
		d.resources(pod.Spec.Resources, 1)
	}
	if len(pod.Spec.InitContainers) > 0 {
		d.containers("Init Containers", pod.Spec.InitContainers, pod.Status.InitContainerStatuses, "", pod)
	}
	d.containers("Containers", pod.Spec.Containers, pod.Status.ContainerStatuses, "", pod)
	if len(pod.Spec.EphemeralContainers) > 0 {
		ec := make([]corev1.Container, len(pod.Spec.EphemeralContainers))
		for i := range pod.Spec.EphemeralContainers {
			ec[i] = corev1.Container(pod.Spec.EphemeralContainers[i].EphemeralContainerCommon)
		}
		d.containers("Ephemeral Containers", ec, pod.Status.EphemeralContainerStatuses, "", pod)
	}
	if len(pod.Spec.ReadinessGates) > 0 {
		d.write(0, "Readiness Gates:\n  Type\tStatus\n")
		for _, g := range pod.Spec.ReadinessGates {
			status := "<none>"
			for _, c := range pod.Status.Conditions {
				if c.Type == g.ConditionType {
					status = string(c.Status)
					break
				}
			}
			d.write(1, "%v \t%v \n", g.ConditionType, status)
		}
	}
	if len(pod.Status.Conditions) > 0 {
		d.write(0, "Conditions:\n  Type\tStatus\n")
		for _, c := range pod.Status.Conditions {
			d.write(1, "%v \t%v \n", c.Type, c.Status)
		}
	}
	d.volumes(pod.Spec.Volumes, "")
	d.write(0, "QoS Class:\t%s\n", podQOS(pod))
	d.labels("", "Node-Selectors", pod.Spec.NodeSelector)
	d.tolerations("", "Tolerations", pod.Spec.Tolerations)
	d.topologySpread(pod.Spec.TopologySpreadConstraints, "")
	d.events(events)
}

func controllerOf(obj metav1.Object) string {
	if ref := metav1.GetControllerOf(obj); ref != nil {
		return ref.Kind + "/" + ref.Name
	}
	return ""
}

func (d *describer) topologySpread(tscs []corev1.TopologySpreadConstraint, space string) {
	if len(tscs) == 0 {
		return
	}
	tscs = append([]corev1.TopologySpreadConstraint(nil), tscs...)
	sort.Slice(tscs, func(i, j int) bool { return tscs[i].TopologyKey < tscs[j].TopologyKey })
	d.write(0, "%sTopology Spread Constraints:\t", space)
	for i, tsc := range tscs {
		if i != 0 {
			d.write(0, "%s", space)
			d.write(0, "%s", "\t")
		}
		d.write(0, "%s:", tsc.TopologyKey)
		d.write(0, "%v", tsc.WhenUnsatisfiable)
		d.write(0, " when max skew %d is exceeded", tsc.MaxSkew)
		if tsc.LabelSelector != nil {
			d.write(0, " for selector %s", metav1.FormatLabelSelector(tsc.LabelSelector))
		}
		d.write(0, "\n")
	}
}

// volumes describes the volume sources a kubeloop pod can have; others
// print kubectl's "<unknown>".
func (d *describer) volumes(volumes []corev1.Volume, space string) {
	if len(volumes) == 0 {
		d.write(0, "%sVolumes:\t<none>\n", space)
		return
	}
	d.write(0, "%sVolumes:\n", space)
	for _, v := range volumes {
		nameIndent := ""
		if space != "" {
			nameIndent = " "
		}
		d.write(1, "%s%v:\n", nameIndent, v.Name)
		switch {
		case v.HostPath != nil:
			hostPathType := "<none>"
			if v.HostPath.Type != nil {
				hostPathType = string(*v.HostPath.Type)
			}
			d.write(2, "Type:\tHostPath (bare host directory volume)\n"+
				"    Path:\t%v\n"+
				"    HostPathType:\t%v\n", v.HostPath.Path, hostPathType)
		case v.EmptyDir != nil:
			sizeLimit := "<unset>"
			if v.EmptyDir.SizeLimit != nil && v.EmptyDir.SizeLimit.Cmp(resource.Quantity{}) > 0 {
				sizeLimit = fmt.Sprintf("%v", v.EmptyDir.SizeLimit)
			}
			d.write(2, "Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n"+
				"    Medium:\t%v\n"+
				"    SizeLimit:\t%v\n", v.EmptyDir.Medium, sizeLimit)
		case v.Secret != nil:
			optional := v.Secret.Optional != nil && *v.Secret.Optional
			d.write(2, "Type:\tSecret (a volume populated by a Secret)\n"+
				"    SecretName:\t%v\n"+
				"    Optional:\t%v\n", v.Secret.SecretName, optional)
		case v.ConfigMap != nil:
			optional := v.ConfigMap.Optional != nil && *v.ConfigMap.Optional
			d.write(2, "Type:\tConfigMap (a volume populated by a ConfigMap)\n"+
				"    Name:\t%v\n"+
				"    Optional:\t%v\n", v.ConfigMap.Name, optional)
		case v.PersistentVolumeClaim != nil:
			d.write(2, "Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)\n"+
				"    ClaimName:\t%v\n"+
				"    ReadOnly:\t%v\n", v.PersistentVolumeClaim.ClaimName, v.PersistentVolumeClaim.ReadOnly)
		case v.DownwardAPI != nil:
			d.write(2, "Type:\tDownwardAPI (a volume populated by information about the pod)\n    Items:\n")
			for _, m := range v.DownwardAPI.Items {
				if m.FieldRef != nil {
					d.write(3, "%v -> %v\n", m.FieldRef.FieldPath, m.Path)
				}
				if m.ResourceFieldRef != nil {
					d.write(3, "%v -> %v\n", m.ResourceFieldRef.Resource, m.Path)
				}
			}
		case v.Projected != nil:
			d.write(2, "Type:\tProjected (a volume that contains injected data from multiple sources)\n")
			for _, s := range v.Projected.Sources {
				switch {
				case s.Secret != nil:
					optional := s.Secret.Optional != nil && *s.Secret.Optional
					d.write(2, "SecretName:\t%v\n"+"    Optional:\t%v\n", s.Secret.Name, optional)
				case s.DownwardAPI != nil:
					d.write(2, "DownwardAPI:\ttrue\n")
				case s.ConfigMap != nil:
					optional := s.ConfigMap.Optional != nil && *s.ConfigMap.Optional
					d.write(2, "ConfigMapName:\t%v\n"+"    Optional:\t%v\n", s.ConfigMap.Name, optional)
				case s.ServiceAccountToken != nil:
					exp := int64(0)
					if s.ServiceAccountToken.ExpirationSeconds != nil {
						exp = *s.ServiceAccountToken.ExpirationSeconds
					}
					d.write(2, "TokenExpirationSeconds:\t%d\n", exp)
				}
			}
		default:
			d.write(1, "<unknown>\n")
		}
	}
}

// containers describes a pod's (or, with pod nil, a template's) containers.
func (d *describer) containers(label string, containers []corev1.Container, statuses []corev1.ContainerStatus, space string, pod *corev1.Pod) {
	byName := map[string]corev1.ContainerStatus{}
	for _, s := range statuses {
		byName[s.Name] = s
	}
	none := ""
	if len(containers) == 0 {
		none = " <none>"
	}
	d.write(0, "%s%s:%s\n", space, label, none)
	for _, c := range containers {
		status, ok := byName[c.Name]
		nameIndent := ""
		if space != "" {
			nameIndent = " "
		}
		d.write(1, "%s%v:\n", nameIndent, c.Name)
		if ok {
			d.write(2, "Container ID:\t%s\n", status.ContainerID)
		}
		d.write(2, "Image:\t%s\n", c.Image)
		if ok {
			d.write(2, "Image ID:\t%s\n", status.ImageID)
		}
		ports := containerPorts(c.Ports, func(p corev1.ContainerPort) int32 { return p.ContainerPort })
		if strings.Contains(ports, ",") {
			d.write(2, "Ports:\t%s\n", ports)
		} else {
			d.write(2, "Port:\t%s\n", orNone(ports))
		}
		hostPorts := containerPorts(c.Ports, func(p corev1.ContainerPort) int32 { return p.HostPort })
		if strings.Contains(hostPorts, ",") {
			d.write(2, "Host Ports:\t%s\n", hostPorts)
		} else {
			d.write(2, "Host Port:\t%s\n", orNone(hostPorts))
		}
		if sc := c.SecurityContext; sc != nil && sc.SeccompProfile != nil {
			d.write(2, "SeccompProfile:\t%s\n", sc.SeccompProfile.Type)
			if sc.SeccompProfile.Type == corev1.SeccompProfileTypeLocalhost && sc.SeccompProfile.LocalhostProfile != nil {
				d.write(3, "LocalhostProfile:\t%s\n", *sc.SeccompProfile.LocalhostProfile)
			}
		}
		if len(c.Command) > 0 {
			d.write(2, "Command:\n")
			for _, s := range c.Command {
				for _, line := range strings.Split(s, "\n") {
					d.write(3, "%s\n", line)
				}
			}
		}
		if len(c.Args) > 0 {
			d.write(2, "Args:\n")
			for _, s := range c.Args {
				for _, line := range strings.Split(s, "\n") {
					d.write(3, "%s\n", line)
				}
			}
		}
		if ok {
			d.containerState("State", status.State)
			if status.LastTerminationState.Terminated != nil {
				d.containerState("Last State", status.LastTerminationState)
			}
			d.write(2, "Ready:\t%v\n", printBool(status.Ready))
			d.write(2, "Restart Count:\t%d\n", status.RestartCount)
		}
		d.resources(&c.Resources, 2)
		if c.LivenessProbe != nil {
			d.write(2, "Liveness:\t%s\n", DescribeProbe(c.LivenessProbe))
		}
		if c.ReadinessProbe != nil {
			d.write(2, "Readiness:\t%s\n", DescribeProbe(c.ReadinessProbe))
		}
		if c.StartupProbe != nil {
			d.write(2, "Startup:\t%s\n", DescribeProbe(c.StartupProbe))
		}
		if len(c.EnvFrom) > 0 {
			d.write(2, "Environment Variables from:\n")
			for _, e := range c.EnvFrom {
				from, name, optional := "", "", false
				if e.ConfigMapRef != nil {
					from, name = "ConfigMap", e.ConfigMapRef.Name
					optional = e.ConfigMapRef.Optional != nil && *e.ConfigMapRef.Optional
				} else if e.SecretRef != nil {
					from, name = "Secret", e.SecretRef.Name
					optional = e.SecretRef.Optional != nil && *e.SecretRef.Optional
				}
				if e.Prefix == "" {
					d.write(3, "%s\t%s\tOptional: %t\n", name, from, optional)
				} else {
					d.write(3, "%s\t%s with prefix '%s'\tOptional: %t\n", name, from, e.Prefix, optional)
				}
			}
		}
		d.env(c, pod)
		d.mounts(c)
	}
}

func containerPorts(ports []corev1.ContainerPort, num func(corev1.ContainerPort) int32) string {
	out := make([]string, 0, len(ports))
	for _, p := range ports {
		out = append(out, fmt.Sprintf("%d/%s", num(p), p.Protocol))
	}
	return strings.Join(out, ", ")
}

func (d *describer) env(c corev1.Container, pod *corev1.Pod) {
	none := ""
	if len(c.Env) == 0 {
		none = "\t<none>"
	}
	d.write(2, "Environment:%s\n", none)
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			for i, s := range strings.Split(e.Value, "\n") {
				if i == 0 {
					d.write(3, "%s:\t%s\n", e.Name, s)
				} else {
					d.write(3, "\t%s\n", s)
				}
			}
			continue
		}
		switch vf := e.ValueFrom; {
		case vf.FieldRef != nil:
			value := ""
			if pod != nil {
				value = podFieldValue(pod, vf.FieldRef.FieldPath)
			}
			d.write(3, "%s:\t%s (%s:%s)\n", e.Name, value, vf.FieldRef.APIVersion, vf.FieldRef.FieldPath)
		case vf.ResourceFieldRef != nil:
			value := containerResourceValue(vf.ResourceFieldRef, &c)
			res := vf.ResourceFieldRef.Resource
			if value == "0" && (res == "limits.cpu" || res == "limits.memory") {
				value = "node allocatable"
			}
			d.write(3, "%s:\t%s (%s)\n", e.Name, value, res)
		case vf.SecretKeyRef != nil:
			optional := vf.SecretKeyRef.Optional != nil && *vf.SecretKeyRef.Optional
			d.write(3, "%s:\t<set to the key '%s' in secret '%s'>\tOptional: %t\n", e.Name, vf.SecretKeyRef.Key, vf.SecretKeyRef.Name, optional)
		case vf.ConfigMapKeyRef != nil:
			optional := vf.ConfigMapKeyRef.Optional != nil && *vf.ConfigMapKeyRef.Optional
			d.write(3, "%s:\t<set to the key '%s' of config map '%s'>\tOptional: %t\n", e.Name, vf.ConfigMapKeyRef.Key, vf.ConfigMapKeyRef.Name, optional)
		}
	}
}

// podFieldValue is kubectl's fieldpath.ExtractFieldPathAsString for the
// fields the downward API offers.
func podFieldValue(pod *corev1.Pod, path string) string {
	if key, ok := subscript(path, "metadata.labels"); ok {
		return pod.Labels[key]
	}
	if key, ok := subscript(path, "metadata.annotations"); ok {
		return pod.Annotations[key]
	}
	switch path {
	case "metadata.name":
		return pod.Name
	case "metadata.namespace":
		return pod.Namespace
	case "metadata.uid":
		return string(pod.UID)
	case "metadata.labels":
		return formatMap(pod.Labels)
	case "metadata.annotations":
		return formatMap(pod.Annotations)
	case "spec.nodeName":
		return pod.Spec.NodeName
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName
	case "status.hostIP":
		return pod.Status.HostIP
	case "status.podIP":
		return pod.Status.PodIP
	case "status.hostIPs":
		ips := make([]string, len(pod.Status.HostIPs))
		for i, ip := range pod.Status.HostIPs {
			ips[i] = ip.IP
		}
		return strings.Join(ips, ",")
	case "status.podIPs":
		ips := make([]string, len(pod.Status.PodIPs))
		for i, ip := range pod.Status.PodIPs {
			ips[i] = ip.IP
		}
		return strings.Join(ips, ",")
	}
	return ""
}

// subscript splits "metadata.labels['app']" into "app".
func subscript(path, prefix string) (string, bool) {
	rest, ok := strings.CutPrefix(path, prefix+"['")
	if !ok || !strings.HasSuffix(rest, "']") {
		return "", false
	}
	return strings.TrimSuffix(rest, "']"), true
}

// formatMap is the downward API's key="value" lines, sorted.
func formatMap(m map[string]string) string {
	var b strings.Builder
	for _, k := range sortedKeys(m) {
		fmt.Fprintf(&b, "%s=%q\n", k, m[k])
	}
	return b.String()
}

// containerResourceValue is kubectl's ExtractContainerResourceValue: the
// request or limit divided by the divisor, rounded up.
func containerResourceValue(fs *corev1.ResourceFieldSelector, c *corev1.Container) string {
	divisor := resource.MustParse("1")
	if !fs.Divisor.IsZero() {
		divisor = fs.Divisor
	}
	ceil := func(v, d int64) string { return strconv.FormatInt(int64(math.Ceil(float64(v)/float64(d))), 10) }
	switch fs.Resource {
	case "limits.cpu":
		return ceil(c.Resources.Limits.Cpu().MilliValue(), divisor.MilliValue())
	case "limits.memory":
		return ceil(c.Resources.Limits.Memory().Value(), divisor.Value())
	case "limits.ephemeral-storage":
		return ceil(c.Resources.Limits.StorageEphemeral().Value(), divisor.Value())
	case "requests.cpu":
		return ceil(c.Resources.Requests.Cpu().MilliValue(), divisor.MilliValue())
	case "requests.memory":
		return ceil(c.Resources.Requests.Memory().Value(), divisor.Value())
	case "requests.ephemeral-storage":
		return ceil(c.Resources.Requests.StorageEphemeral().Value(), divisor.Value())
	}
	return ""
}

func (d *describer) mounts(c corev1.Container) {
	none := ""
	if len(c.VolumeMounts) == 0 {
		none = "\t<none>"
	}
	d.write(2, "Mounts:%s\n", none)
	mounts := append([]corev1.VolumeMount(nil), c.VolumeMounts...)
	sort.SliceStable(mounts, func(i, j int) bool { return mounts[i].MountPath < mounts[j].MountPath })
	for _, m := range mounts {
		flags := []string{"rw"}
		if m.ReadOnly {
			flags = []string{"ro"}
		}
		if m.SubPath != "" {
			flags = append(flags, fmt.Sprintf("path=%q", m.SubPath))
		}
		d.write(3, "%s from %s (%s)\n", m.MountPath, m.Name, strings.Join(flags, ","))
	}
}

func (d *describer) resources(r *corev1.ResourceRequirements, level int) {
	if r == nil {
		return
	}
	if len(r.Limits) > 0 {
		d.write(level, "Limits:\n")
	}
	for _, name := range sortedResourceNames(r.Limits) {
		q := r.Limits[name]
		d.write(level+1, "%s:\t%s\n", name, q.String())
	}
	if len(r.Requests) > 0 {
		d.write(level, "Requests:\n")
	}
	for _, name := range sortedResourceNames(r.Requests) {
		q := r.Requests[name]
		d.write(level+1, "%s:\t%s\n", name, q.String())
	}
}

func sortedResourceNames(list corev1.ResourceList) []corev1.ResourceName {
	out := make([]corev1.ResourceName, 0, len(list))
	for n := range list {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func (d *describer) containerState(name string, s corev1.ContainerState) {
	switch {
	case s.Running != nil:
		d.write(2, "%s:\tRunning\n", name)
		d.write(3, "Started:\t%v\n", rfc1123Z(s.Running.StartedAt))
	case s.Waiting != nil:
		d.write(2, "%s:\tWaiting\n", name)
		if s.Waiting.Reason != "" {
			d.write(3, "Reason:\t%s\n", s.Waiting.Reason)
		}
	case s.Terminated != nil:
		t := s.Terminated
		d.write(2, "%s:\tTerminated\n", name)
		if t.Reason != "" {
			d.write(3, "Reason:\t%s\n", t.Reason)
		}
		if t.Message != "" {
			d.write(3, "Message:\t%s\n", t.Message)
		}
		d.write(3, "Exit Code:\t%d\n", t.ExitCode)
		if t.Signal > 0 {
			d.write(3, "Signal:\t%d\n", t.Signal)
		}
		d.write(3, "Started:\t%s\n", rfc1123Z(t.StartedAt))
		d.write(3, "Finished:\t%s\n", rfc1123Z(t.FinishedAt))
	default:
		d.write(2, "%s:\tWaiting\n", name)
	}
}

// DescribeProbe is kubectl's one-line probe summary:
// "http-get http://:8080/healthz delay=0s timeout=1s period=10s #success=1 #failure=3".
func DescribeProbe(p *corev1.Probe) string {
	attrs := fmt.Sprintf("delay=%ds timeout=%ds period=%ds #success=%d #failure=%d",
		p.InitialDelaySeconds, p.TimeoutSeconds, p.PeriodSeconds, p.SuccessThreshold, p.FailureThreshold)
	switch {
	case p.Exec != nil:
		return fmt.Sprintf("exec %v %s", p.Exec.Command, attrs)
	case p.HTTPGet != nil:
		u := &url.URL{Scheme: strings.ToLower(string(p.HTTPGet.Scheme)), Path: p.HTTPGet.Path}
		if port := p.HTTPGet.Port.String(); port != "" {
			u.Host = net.JoinHostPort(p.HTTPGet.Host, port)
		} else {
			u.Host = p.HTTPGet.Host
		}
		return fmt.Sprintf("http-get %s %s", u.String(), attrs)
	case p.TCPSocket != nil:
		return fmt.Sprintf("tcp-socket %s:%s %s", p.TCPSocket.Host, p.TCPSocket.Port.String(), attrs)
	case p.GRPC != nil:
		service := ""
		if p.GRPC.Service != nil {
			service = *p.GRPC.Service
		}
		return fmt.Sprintf("grpc <pod>:%d %s %s", p.GRPC.Port, service, attrs)
	}
	return fmt.Sprintf("unknown %s", attrs)
}

func printBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// labels is printLabelsMultilineWithIndent.
func (d *describer) labels(initialIndent, title string, m map[string]string) {
	d.write(0, "%s%s:%s", initialIndent, title, "\t")
	if len(m) == 0 {
		d.writeLine("<none>")
		return
	}
	for i, k := range sortedKeys(m) {
		if i != 0 {
			d.write(0, "%s", initialIndent)
			d.write(0, "%s", "\t")
		}
		d.write(0, "%s=%s\n", k, m[k])
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// maxAnnotationLen is where describe folds and cuts annotations.
const maxAnnotationLen = 140

// annotations is printAnnotationsMultiline: sorted, the last-applied
// configuration skipped, long or multi-line values on their own lines.
func (d *describer) annotations(title string, m map[string]string) {
	d.write(0, "%s:\t", title)
	var keys []string
	for _, k := range sortedKeys(m) {
		if k != corev1.LastAppliedConfigAnnotation {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		d.writeLine("<none>")
		return
	}
	indent := "\t"
	for i, k := range keys {
		if i != 0 {
			d.write(0, indent)
		}
		value := strings.TrimSuffix(m[k], "\n")
		if len(value)+len(k)+2 > maxAnnotationLen || strings.Contains(value, "\n") {
			d.write(0, "%s:\n", k)
			for _, s := range strings.Split(value, "\n") {
				if len(s) > maxAnnotationLen-2 {
					s = s[:maxAnnotationLen-2] + "..."
				}
				d.write(0, "%s  %s\n", indent, s)
			}
		} else {
			d.write(0, "%s: %s\n", k, value)
		}
	}
}

// tolerations is printTolerationsMultilineWithIndent.
func (d *describer) tolerations(initialIndent, title string, tols []corev1.Toleration) {
	d.write(0, "%s%s:%s", initialIndent, title, "\t")
	if len(tols) == 0 {
		d.writeLine("<none>")
		return
	}
	tols = append([]corev1.Toleration(nil), tols...)
	sort.Slice(tols, func(i, j int) bool { return tols[i].Key < tols[j].Key })
	for i, t := range tols {
		if i != 0 {
			d.write(0, "%s", initialIndent)
			d.write(0, "%s", "\t")
		}
		d.write(0, "%s", t.Key)
		if t.Value != "" {
			d.write(0, "=%s", t.Value)
		}
		if t.Effect != "" {
			d.write(0, ":%s", t.Effect)
		}
		if t.Operator == corev1.TolerationOpExists && t.Value == "" {
			if t.Key != "" || t.Effect != "" {
				d.write(0, " op=Exists")
			} else {
				d.write(0, "op=Exists")
			}
		}
		if t.TolerationSeconds != nil {
			d.write(0, " for %ds", *t.TolerationSeconds)
		}
		d.write(0, "\n")
	}
}

// taints is printTaintsMultilineWithIndent: sorted by effect, then key.
func (d *describer) taints(title string, taints []corev1.Taint) {
	d.write(0, "%s:%s", title, "\t")
	if len(taints) == 0 {
		d.writeLine("<none>")
		return
	}
	taints = append([]corev1.Taint(nil), taints...)
	sort.Slice(taints, func(i, j int) bool {
		return string(taints[i].Effect)+","+taints[i].Key < string(taints[j].Effect)+","+taints[j].Key
	})
	for i, t := range taints {
		if i != 0 {
			d.write(0, "%s", "\t")
		}
		d.write(0, "%s\n", t.ToString())
	}
}

// events is DescribeEvents: sorted by time, repeated events aggregated as
// "71s (x6 over 3m21s)".
func (d *describer) events(events []*corev1.Event) {
	if len(events) == 0 {
		d.write(0, "Events:\t<none>\n")
		return
	}
	events = append([]*corev1.Event(nil), events...)
	// kubectl sorts with sort.Sort on the same key; a stable sort keeps
	// simultaneous events in the order the API server lists them.
	sort.SliceStable(events, func(i, j int) bool { return eventTime(events[i]).Before(eventTime(events[j])) })
	d.write(0, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n")
	d.write(1, "----\t------\t----\t----\t-------\n")
	for _, e := range events {
		first := since(e.EventTime.Time, d.now)
		if e.EventTime.IsZero() {
			first = d.since(e.FirstTimestamp)
		}
		var interval string
		switch {
		case e.Series != nil:
			interval = fmt.Sprintf("%s (x%d over %s)", since(e.Series.LastObservedTime.Time, d.now), e.Series.Count, first)
		case e.Count > 1:
			interval = fmt.Sprintf("%s (x%d over %s)", d.since(e.LastTimestamp), e.Count, first)
		default:
			interval = first
		}
		source := e.Source.Component
		if source == "" {
			source = e.ReportingController
		}
		d.write(1, "%v\t%v\t%s\t%v\t%v\n", e.Type, e.Reason, interval, source, strings.TrimSpace(e.Message))
	}
}

// eventTime is kubectl's sort key for events.
func eventTime(e *corev1.Event) time.Time {
	if e.Series != nil {
		return e.Series.LastObservedTime.Time
	}
	if !e.LastTimestamp.IsZero() {
		return e.LastTimestamp.Time
	}
	return e.EventTime.Time
}

// eventsFor keeps the events kubectl's field selector selects for obj:
// involvedObject name and namespace, the uid, and the kind unless kind is
// "" (kubectl leaves the kind out for pods).
func eventsFor(obj kinds.Object, events []*corev1.Event, kind string) []*corev1.Event {
	var out []*corev1.Event
	for _, e := range events {
		io := e.InvolvedObject
		if io.Name != obj.GetName() || io.Namespace != obj.GetNamespace() {
			continue
		}
		if kind != "" && io.Kind != kind {
			continue
		}
		if obj.GetUID() != "" && io.UID != obj.GetUID() {
			continue
		}
		out = append(out, e)
	}
	return out
}

// nodeEvents keeps a node's events: kubectl asks twice, with the node's uid
// and with its name as uid (the kubelet reports with the name).
func nodeEvents(node *corev1.Node, events []*corev1.Event) []*corev1.Event {
	var byUID, byName []*corev1.Event
	for _, e := range events {
		io := e.InvolvedObject
		if io.Kind != "Node" || io.Name != node.Name || io.Namespace != "" {
			continue
		}
		switch string(io.UID) {
		case string(node.UID):
			byUID = append(byUID, e)
		case node.Name:
			byName = append(byName, e)
		}
	}
	return append(byUID, byName...)
}

// podQOS is kubectl's qos.GetPodQOS: the status field, else computed.
func podQOS(pod *corev1.Pod) corev1.PodQOSClass {
	if pod.Status.QOSClass != "" {
		return pod.Status.QOSClass
	}
	requests, limits := corev1.ResourceList{}, corev1.ResourceList{}
	zero := resource.MustParse("0")
	guaranteed := true
	all := append(append([]corev1.Container(nil), pod.Spec.Containers...), pod.Spec.InitContainers...)
	for _, c := range all {
		for _, name := range sortedResourceNames(c.Resources.Requests) {
			if name != corev1.ResourceCPU && name != corev1.ResourceMemory {
				continue
			}
			if q := c.Resources.Requests[name]; q.Cmp(zero) == 1 {
				addQuantity(requests, name, q)
			}
		}
		found := map[corev1.ResourceName]bool{}
		for _, name := range sortedResourceNames(c.Resources.Limits) {
			if name != corev1.ResourceCPU && name != corev1.ResourceMemory {
				continue
			}
			if q := c.Resources.Limits[name]; q.Cmp(zero) == 1 {
				found[name] = true
				addQuantity(limits, name, q)
			}
		}
		if !found[corev1.ResourceCPU] || !found[corev1.ResourceMemory] {
			guaranteed = false
		}
	}
	if len(requests) == 0 && len(limits) == 0 {
		return corev1.PodQOSBestEffort
	}
	if guaranteed {
		for name, req := range requests {
			if lim, ok := limits[name]; !ok || lim.Cmp(req) != 0 {
				guaranteed = false
				break
			}
		}
	}
	if guaranteed && len(requests) == len(limits) {
		return corev1.PodQOSGuaranteed
	}
	return corev1.PodQOSBurstable
}

func addQuantity(list corev1.ResourceList, name corev1.ResourceName, q resource.Quantity) {
	if v, ok := list[name]; ok {
		v.Add(q)
		list[name] = v
	} else {
		list[name] = q.DeepCopy()
	}
}

// podRequestsAndLimits is kubectl's resourcehelper.PodRequestsAndLimits:
// containers summed, each init container a floor, overhead added.
func podRequestsAndLimits(pod *corev1.Pod) (reqs, limits corev1.ResourceList) {
	reqs, limits = corev1.ResourceList{}, corev1.ResourceList{}
	for _, c := range pod.Spec.Containers {
		for _, n := range sortedResourceNames(c.Resources.Requests) {
			addQuantity(reqs, n, c.Resources.Requests[n])
		}
		for _, n := range sortedResourceNames(c.Resources.Limits) {
			addQuantity(limits, n, c.Resources.Limits[n])
		}
	}
	maxInto := func(list, add corev1.ResourceList) {
		for _, n := range sortedResourceNames(add) {
			q := add[n]
			if v, ok := list[n]; !ok || q.Cmp(v) > 0 {
				list[n] = q.DeepCopy()
			}
		}
	}
	for _, c := range pod.Spec.InitContainers {
		maxInto(reqs, c.Resources.Requests)
		maxInto(limits, c.Resources.Limits)
	}
	for _, n := range sortedResourceNames(pod.Spec.Overhead) {
		q := pod.Spec.Overhead[n]
		addQuantity(reqs, n, q)
		if v, ok := limits[n]; ok && !v.IsZero() {
			v.Add(q)
			limits[n] = v
		}
	}
	return reqs, limits
}

func (d *describer) podTemplate(t *corev1.PodTemplateSpec) {
	d.write(0, "Pod Template:\n")
	if t == nil {
		d.write(1, "<unset>")
		return
	}
	d.labels("", "  Labels", t.Labels)
	if len(t.Annotations) > 0 {
		d.annotations("  Annotations", t.Annotations)
	}
	if t.Spec.ServiceAccountName != "" {
		d.write(1, "Service Account:\t%s\n", t.Spec.ServiceAccountName)
	}
	if len(t.Spec.InitContainers) > 0 {
		d.containers("Init Containers", t.Spec.InitContainers, nil, "  ", nil)
	}
	d.containers("Containers", t.Spec.Containers, nil, "  ", nil)
	d.volumes(t.Spec.Volumes, "  ")
	d.topologySpread(t.Spec.TopologySpreadConstraints, "  ")
	if t.Spec.PriorityClassName != "" {
		d.write(1, "Priority Class Name:\t%s\n", t.Spec.PriorityClassName)
	}
	d.labels("", "  Node-Selectors", t.Spec.NodeSelector)
	d.tolerations("", "  Tolerations", t.Spec.Tolerations)
}

func (d *describer) deployment(dep *appsv1.Deployment, candidates []*appsv1.ReplicaSet, events []*corev1.Event) {
	selector := "<none>"
	if s, err := metav1.LabelSelectorAsSelector(dep.Spec.Selector); err == nil {
		selector = s.String()
	}
	d.write(0, "Name:\t%s\n", dep.Name)
	d.write(0, "Namespace:\t%s\n", dep.Namespace)
	d.write(0, "CreationTimestamp:\t%s\n", rfc1123Z(dep.CreationTimestamp))
	d.labels("", "Labels", dep.Labels)
	d.annotations("Annotations", dep.Annotations)
	d.write(0, "Selector:\t%s\n", selector)
	d.write(0, "Replicas:\t%d desired | %d updated | %d total | %d available | %d unavailable\n",
		replicas(dep.Spec.Replicas), dep.Status.UpdatedReplicas, dep.Status.Replicas, dep.Status.AvailableReplicas, dep.Status.UnavailableReplicas)
	d.write(0, "StrategyType:\t%s\n", dep.Spec.Strategy.Type)
	d.write(0, "MinReadySeconds:\t%d\n", dep.Spec.MinReadySeconds)
	if ru := dep.Spec.Strategy.RollingUpdate; ru != nil {
		d.write(0, "RollingUpdateStrategy:\t%s max unavailable, %s max surge\n", intOrStringPtr(ru.MaxUnavailable), intOrStringPtr(ru.MaxSurge))
	}
	d.podTemplate(&dep.Spec.Template)
	if len(dep.Status.Conditions) > 0 {
		d.write(0, "Conditions:\n  Type\tStatus\tReason\n")
		d.write(1, "----\t------\t------\n")
		for _, c := range dep.Status.Conditions {
			d.write(1, "%v \t%v\t%v\n", c.Type, c.Status, c.Reason)
		}
	}
	oldRSs, newRS := deploymentReplicaSets(dep, candidates)
	var newRSs []*appsv1.ReplicaSet
	if newRS != nil {
		newRSs = []*appsv1.ReplicaSet{newRS}
	}
	if len(oldRSs) > 0 || len(newRSs) > 0 {
		d.write(0, "OldReplicaSets:\t%s\n", replicaSetsLine(oldRSs))
		d.write(0, "NewReplicaSet:\t%s\n", replicaSetsLine(newRSs))
	}
	d.events(events)
}

// intOrStringPtr is (*intstr.IntOrString).String, "<nil>" for nil.
func intOrStringPtr(p *intstr.IntOrString) string {
	if p == nil {
		return "<nil>"
	}
	return p.String()
}

// deploymentReplicaSets splits the ReplicaSets a Deployment controls into
// the old ones and the new one, as kubectl's deploymentutil does: sorted by
// creation time (then name), the new one is the first whose pod template
// equals the Deployment's, ignoring the pod-template-hash label; all the
// others are old, whatever their size.
func deploymentReplicaSets(dep *appsv1.Deployment, candidates []*appsv1.ReplicaSet) (old []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) {
	var owned []*appsv1.ReplicaSet
	for _, rs := range candidates {
		if ref := metav1.GetControllerOf(rs); ref != nil && ref.UID == dep.UID && rs.Namespace == dep.Namespace {
			owned = append(owned, rs)
		}
	}
	sort.SliceStable(owned, func(i, j int) bool {
		a, b := owned[i].CreationTimestamp, owned[j].CreationTimestamp
		if a.Equal(&b) {
			return owned[i].Name < owned[j].Name
		}
		return a.Before(&b)
	})
	for _, rs := range owned {
		if templatesEqualIgnoringHash(&rs.Spec.Template, &dep.Spec.Template) {
			newRS = rs
			break
		}
	}
	for _, rs := range owned {
		if rs != newRS {
			old = append(old, rs)
		}
	}
	return old, newRS
}

func templatesEqualIgnoringHash(a, b *corev1.PodTemplateSpec) bool {
	a, b = a.DeepCopy(), b.DeepCopy()
	delete(a.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	delete(b.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	return apiequality.Semantic.DeepEqual(a, b)
}

func replicaSetsLine(rss []*appsv1.ReplicaSet) string {
	parts := make([]string, 0, len(rss))
	for _, rs := range rss {
		parts = append(parts, fmt.Sprintf("%s (%d/%d replicas created)", rs.Name, rs.Status.Replicas, replicas(rs.Spec.Replicas)))
	}
	if len(parts) == 0 {
		return "<none>"
	}
	return strings.Join(parts, ", ")
}

func (d *describer) replicaSet(rs *appsv1.ReplicaSet, pods []*corev1.Pod, events []*corev1.Event) {
	d.write(0, "Name:\t%s\n", rs.Name)
	d.write(0, "Namespace:\t%s\n", rs.Namespace)
	d.write(0, "Selector:\t%s\n", metav1.FormatLabelSelector(rs.Spec.Selector))
	d.labels("", "Labels", rs.Labels)
	d.annotations("Annotations", rs.Annotations)
	if c := controllerOf(rs); c != "" {
		d.write(0, "Controlled By:\t%s\n", c)
	}
	d.write(0, "Replicas:\t%d current / %d desired\n", rs.Status.Replicas, replicas(rs.Spec.Replicas))
	d.write(0, "Pods Status:\t")
	running, waiting, succeeded, failed := podPhases(rs, pods)
	d.write(0, "%d Running / %d Waiting / %d Succeeded / %d Failed\n", running, waiting, succeeded, failed)
	d.podTemplate(&rs.Spec.Template)
	if len(rs.Status.Conditions) > 0 {
		d.write(0, "Conditions:\n  Type\tStatus\tReason\n")
		d.write(1, "----\t------\t------\n")
		for _, c := range rs.Status.Conditions {
			d.write(1, "%v \t%v\t%v\n", c.Type, c.Status, c.Reason)
		}
	}
	d.events(events)
}

// podPhases counts, by phase, the pods controlled by owner that match its
// selector (getPodStatusForController).
func podPhases(rs *appsv1.ReplicaSet, pods []*corev1.Pod) (running, waiting, succeeded, failed int) {
	sel, err := metav1.LabelSelectorAsSelector(rs.Spec.Selector)
	if err != nil {
		return
	}
	for _, p := range pods {
		if p.Namespace != rs.Namespace || !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		if ref := metav1.GetControllerOf(p); ref == nil || ref.UID != rs.UID {
			continue
		}
		switch p.Status.Phase {
		case corev1.PodRunning:
			running++
		case corev1.PodPending:
			waiting++
		case corev1.PodSucceeded:
			succeeded++
		case corev1.PodFailed:
			failed++
		}
	}
	return
}

func (d *describer) service(svc *corev1.Service, candidates []*discoveryv1.EndpointSlice, events []*corev1.Event) {
	var slices []*discoveryv1.EndpointSlice
	for _, s := range candidates {
		if s.Namespace == svc.Namespace && s.Labels[discoveryv1.LabelServiceName] == svc.Name {
			slices = append(slices, s)
		}
	}
	sort.SliceStable(slices, func(i, j int) bool { return slices[i].Name < slices[j].Name })

	d.write(0, "Name:\t%s\n", svc.Name)
	d.write(0, "Namespace:\t%s\n", svc.Namespace)
	d.labels("", "Labels", svc.Labels)
	d.annotations("Annotations", svc.Annotations)
	d.write(0, "Selector:\t%s\n", labels.FormatLabels(svc.Spec.Selector))
	d.write(0, "Type:\t%s\n", svc.Spec.Type)
	if svc.Spec.IPFamilyPolicy != nil {
		d.write(0, "IP Family Policy:\t%s\n", *svc.Spec.IPFamilyPolicy)
	}
	if len(svc.Spec.IPFamilies) > 0 {
		fams := make([]string, 0, len(svc.Spec.IPFamilies))
		for _, f := range svc.Spec.IPFamilies {
			fams = append(fams, string(f))
		}
		d.write(0, "IP Families:\t%s\n", strings.Join(fams, ","))
	} else {
		d.write(0, "IP Families:\t%s\n", "<none>")
	}
	d.write(0, "IP:\t%s\n", svc.Spec.ClusterIP)
	if len(svc.Spec.ClusterIPs) > 0 {
		d.write(0, "IPs:\t%s\n", strings.Join(svc.Spec.ClusterIPs, ","))
	} else {
		d.write(0, "IPs:\t%s\n", "<none>")
	}
	if len(svc.Spec.ExternalIPs) > 0 {
		d.write(0, "External IPs:\t%v\n", strings.Join(svc.Spec.ExternalIPs, ","))
	}
	if svc.Spec.LoadBalancerIP != "" {
		d.write(0, "Desired LoadBalancer IP:\t%s\n", svc.Spec.LoadBalancerIP)
	}
	if svc.Spec.ExternalName != "" {
		d.write(0, "External Name:\t%s\n", svc.Spec.ExternalName)
	}
	if len(svc.Status.LoadBalancer.Ingress) > 0 {
		var parts []string
		for _, in := range svc.Status.LoadBalancer.Ingress {
			if in.IP != "" {
				s := in.IP
				if in.IPMode != nil {
					s += fmt.Sprintf(" (%s)", *in.IPMode)
				}
				parts = append(parts, s)
			} else {
				parts = append(parts, in.Hostname)
			}
		}
		d.write(0, "LoadBalancer Ingress:\t%s\n", strings.Join(parts, ", "))
	}
	for _, sp := range svc.Spec.Ports {
		name := sp.Name
		if name == "" {
			name = "<unset>"
		}
		d.write(0, "Port:\t%s\t%d/%s\n", name, sp.Port, sp.Protocol)
		if sp.TargetPort.Type == intstr.Int {
			d.write(0, "TargetPort:\t%d/%s\n", sp.TargetPort.IntVal, sp.Protocol)
		} else {
			d.write(0, "TargetPort:\t%s/%s\n", sp.TargetPort.StrVal, sp.Protocol)
		}
		if sp.NodePort != 0 {
			d.write(0, "NodePort:\t%s\t%d/%s\n", name, sp.NodePort, sp.Protocol)
		}
		d.write(0, "Endpoints:\t%s\n", serviceEndpoints(slices, sp.Name))
	}
	d.write(0, "Session Affinity:\t%s\n", svc.Spec.SessionAffinity)
	if svc.Spec.ExternalTrafficPolicy != "" {
		d.write(0, "External Traffic Policy:\t%s\n", svc.Spec.ExternalTrafficPolicy)
	}
	if svc.Spec.InternalTrafficPolicy != nil {
		d.write(0, "Internal Traffic Policy:\t%s\n", *svc.Spec.InternalTrafficPolicy)
	}
	if svc.Spec.HealthCheckNodePort != 0 {
		d.write(0, "HealthCheck NodePort:\t%d\n", svc.Spec.HealthCheckNodePort)
	}
	if len(svc.Spec.LoadBalancerSourceRanges) > 0 {
		d.write(0, "LoadBalancer Source Ranges:\t%v\n", strings.Join(svc.Spec.LoadBalancerSourceRanges, ","))
	}
	d.events(events)
}

// serviceEndpoints is formatEndpointSlices for one service port name: up to
// three ready ip:port pairs, then "+ N more...".
func serviceEndpoints(slices []*discoveryv1.EndpointSlice, portName string) string {
	if len(slices) == 0 {
		return "<none>"
	}
	var list []string
	max, more, count := 3, false, 0
	for _, s := range slices {
		if len(s.Ports) == 0 {
			// A headless service may have no ports.
			for _, ep := range s.Endpoints {
				if len(list) == max {
					more = true
				}
				if ep.Conditions.Ready != nil && !*ep.Conditions.Ready {
					continue
				}
				if !more && len(ep.Addresses) > 0 {
					list = append(list, ep.Addresses[0])
				}
				count++
			}
			continue
		}
		for _, p := range s.Ports {
			name := ""
			if p.Name != nil {
				name = *p.Name
			}
			if name != portName {
				continue
			}
			for _, ep := range s.Endpoints {
				if len(list) == max {
					more = true
				}
				if ep.Conditions.Ready != nil && !*ep.Conditions.Ready {
					continue
				}
				if !more && len(ep.Addresses) > 0 && p.Port != nil {
					list = append(list, joinHostPort(ep.Addresses[0], *p.Port))
				}
				count++
			}
		}
	}
	ret := strings.Join(list, ",")
	if more {
		return fmt.Sprintf("%s + %d more...", ret, count-max)
	}
	return ret
}

func (d *describer) endpointSlice(s *discoveryv1.EndpointSlice, events []*corev1.Event) {
	d.write(0, "Name:\t%s\n", s.Name)
	d.write(0, "Namespace:\t%s\n", s.Namespace)
	d.labels("", "Labels", s.Labels)
	d.annotations("Annotations", s.Annotations)
	d.write(0, "AddressType:\t%s\n", string(s.AddressType))
	if len(s.Ports) == 0 {
		d.write(0, "Ports: <unset>\n")
	} else {
		d.write(0, "Ports:\n")
		d.write(1, "Name\tPort\tProtocol\n")
		d.write(1, "----\t----\t--------\n")
		for _, p := range s.Ports {
			name := "<unset>"
			if p.Name != nil && *p.Name != "" {
				name = *p.Name
			}
			num := "<unset>"
			if p.Port != nil {
				num = strconv.Itoa(int(*p.Port))
			}
			proto := ""
			if p.Protocol != nil {
				proto = string(*p.Protocol)
			}
			d.write(1, "%s\t%s\t%s\n", name, num, proto)
		}
	}
	if len(s.Endpoints) == 0 {
		d.write(0, "Endpoints: <none>\n")
	} else {
		d.write(0, "Endpoints:\n")
		for _, ep := range s.Endpoints {
			addrs := strings.Join(ep.Addresses, ", ")
			if addrs == "" {
				addrs = "<none>"
			}
			d.write(1, "- Addresses:\t%s\n", addrs)
			d.write(2, "Conditions:\n")
			ready := "<unset>"
			if ep.Conditions.Ready != nil {
				ready = strconv.FormatBool(*ep.Conditions.Ready)
			}
			d.write(3, "Ready:\t%s\n", ready)
			hostname := "<unset>"
			if ep.Hostname != nil {
				hostname = *ep.Hostname
			}
			d.write(2, "Hostname:\t%s\n", hostname)
			if ep.TargetRef != nil {
				d.write(2, "TargetRef:\t%s/%s\n", ep.TargetRef.Kind, ep.TargetRef.Name)
			}
			nodeName := "<unset>"
			if ep.NodeName != nil {
				nodeName = *ep.NodeName
			}
			d.write(2, "NodeName:\t%s\n", nodeName)
			zone := "<unset>"
			if ep.Zone != nil {
				zone = *ep.Zone
			}
			d.write(2, "Zone:\t%s\n", zone)
		}
	}
	d.events(events)
}

func (d *describer) node(node *corev1.Node, candidates []*corev1.Pod, leases []*coordinationv1.Lease, events []*corev1.Event) {
	d.write(0, "Name:\t%s\n", node.Name)
	if roles := nodeRoles(node); len(roles) > 0 {
		d.write(0, "Roles:\t%s\n", strings.Join(roles, ","))
	} else {
		d.write(0, "Roles:\t%s\n", "<none>")
	}
	d.labels("", "Labels", node.Labels)
	d.annotations("Annotations", node.Annotations)
	d.write(0, "CreationTimestamp:\t%s\n", rfc1123Z(node.CreationTimestamp))
	d.taints("Taints", node.Spec.Taints)
	d.write(0, "Unschedulable:\t%v\n", node.Spec.Unschedulable)

	var lease *coordinationv1.Lease
	for _, l := range leases {
		if l.Namespace == corev1.NamespaceNodeLease && l.Name == node.Name {
			lease = l
		}
	}
	if lease == nil {
		d.write(0, "Lease:\tFailed to get lease: %s\n", fmt.Sprintf("leases.coordination.k8s.io %q not found", node.Name))
	} else {
		d.write(0, "Lease:\n")
		holder := "<unset>"
		if lease.Spec.HolderIdentity != nil {
			holder = *lease.Spec.HolderIdentity
		}
		d.write(1, "HolderIdentity:\t%s\n", holder)
		acquire := "<unset>"
		if lease.Spec.AcquireTime != nil {
			acquire = lease.Spec.AcquireTime.Time.UTC().Format(time.RFC1123Z)
		}
		d.write(1, "AcquireTime:\t%s\n", acquire)
		renew := "<unset>"
		if lease.Spec.RenewTime != nil {
			renew = lease.Spec.RenewTime.Time.UTC().Format(time.RFC1123Z)
		}
		d.write(1, "RenewTime:\t%s\n", renew)
	}

	if len(node.Status.Conditions) > 0 {
		d.write(0, "Conditions:\n  Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\tReason\tMessage\n")
		d.write(1, "----\t------\t-----------------\t------------------\t------\t-------\n")
		for _, c := range node.Status.Conditions {
			d.write(1, "%v \t%v \t%s \t%s \t%v \t%v\n", c.Type, c.Status,
				rfc1123Z(c.LastHeartbeatTime), rfc1123Z(c.LastTransitionTime), c.Reason, c.Message)
		}
	}
	d.write(0, "Addresses:\n")
	for _, a := range node.Status.Addresses {
		d.write(1, "%s:\t%s\n", a.Type, a.Address)
	}
	resourceList := func(list corev1.ResourceList) {
		for _, n := range sortedResourceNames(list) {
			q := list[n]
			d.write(0, "  %s:\t%s\n", n, q.String())
		}
	}
	if len(node.Status.Capacity) > 0 {
		d.write(0, "Capacity:\n")
		resourceList(node.Status.Capacity)
	}
	if len(node.Status.Allocatable) > 0 {
		d.write(0, "Allocatable:\n")
		resourceList(node.Status.Allocatable)
	}
	info := node.Status.NodeInfo
	d.write(0, "System Info:\n")
	d.write(0, "  Machine ID:\t%s\n", info.MachineID)
	d.write(0, "  System UUID:\t%s\n", info.SystemUUID)
	d.write(0, "  Boot ID:\t%s\n", info.BootID)
	d.write(0, "  Kernel Version:\t%s\n", info.KernelVersion)
	d.write(0, "  OS Image:\t%s\n", info.OSImage)
	d.write(0, "  Operating System:\t%s\n", info.OperatingSystem)
	d.write(0, "  Architecture:\t%s\n", info.Architecture)
	d.write(0, "  Container Runtime Version:\t%s\n", info.ContainerRuntimeVersion)
	d.write(0, "  Kubelet Version:\t%s\n", info.KubeletVersion)
	d.write(0, "  Kube-Proxy Version:\t%s\n", info.KubeProxyVersion)
	if node.Spec.PodCIDR != "" {
		d.write(0, "PodCIDR:\t%s\n", node.Spec.PodCIDR)
	}
	if len(node.Spec.PodCIDRs) > 0 {
		d.write(0, "PodCIDRs:\t%s\n", strings.Join(node.Spec.PodCIDRs, ","))
	}
	if node.Spec.ProviderID != "" {
		d.write(0, "ProviderID:\t%s\n", node.Spec.ProviderID)
	}

	var pods []*corev1.Pod
	for _, p := range candidates {
		if p.Spec.NodeName == node.Name && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			pods = append(pods, p)
		}
	}
	// The API server lists them in key order: namespace, then name.
	sort.SliceStable(pods, func(i, j int) bool {
		if pods[i].Namespace != pods[j].Namespace {
			return pods[i].Namespace < pods[j].Namespace
		}
		return pods[i].Name < pods[j].Name
	})
	d.nodeResources(node, pods)
	d.events(events)
}

func (d *describer) nodeResources(node *corev1.Node, pods []*corev1.Pod) {
	d.write(0, "Non-terminated Pods:\t(%d in total)\n", len(pods))
	d.write(1, "Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\tMemory Limits\tAge\n")
	d.write(1, "---------\t----\t\t------------\t----------\t---------------\t-------------\t---\n")
	allocatable := node.Status.Capacity
	if len(node.Status.Allocatable) > 0 {
		allocatable = node.Status.Allocatable
	}
	cpuAlloc, memAlloc := allocatable.Cpu().MilliValue(), allocatable.Memory().Value()
	fraction := func(v, of int64) int64 { return int64(float64(v) / float64(of) * 100) }
	totalReqs, totalLimits := corev1.ResourceList{}, corev1.ResourceList{}
	for _, p := range pods {
		req, lim := podRequestsAndLimits(p)
		cpuReq, cpuLim, memReq, memLim := req[corev1.ResourceCPU], lim[corev1.ResourceCPU], req[corev1.ResourceMemory], lim[corev1.ResourceMemory]
		d.write(1, "%s\t%s\t\t%s (%d%%)\t%s (%d%%)\t%s (%d%%)\t%s (%d%%)\t%s\n", p.Namespace, p.Name,
			cpuReq.String(), fraction(cpuReq.MilliValue(), cpuAlloc), cpuLim.String(), fraction(cpuLim.MilliValue(), cpuAlloc),
			memReq.String(), fraction(memReq.Value(), memAlloc), memLim.String(), fraction(memLim.Value(), memAlloc),
			d.since(p.CreationTimestamp))
		for _, n := range sortedResourceNames(req) {
			addQuantity(totalReqs, n, req[n])
		}
		for _, n := range sortedResourceNames(lim) {
			addQuantity(totalLimits, n, lim[n])
		}
	}
	d.write(0, "Allocated resources:\n  (Total limits may be over 100 percent, i.e., overcommitted.)\n")
	d.write(1, "Resource\tRequests\tLimits\n")
	d.write(1, "--------\t--------\t------\n")
	safeFraction := func(v, of int64) int64 {
		if of == 0 {
			return 0
		}
		return fraction(v, of)
	}
	cpuReqs, cpuLimits := totalReqs[corev1.ResourceCPU], totalLimits[corev1.ResourceCPU]
	memReqs, memLimits := totalReqs[corev1.ResourceMemory], totalLimits[corev1.ResourceMemory]
	esReqs, esLimits := totalReqs[corev1.ResourceEphemeralStorage], totalLimits[corev1.ResourceEphemeralStorage]
	esAlloc := allocatable.StorageEphemeral().Value()
	d.write(1, "%s\t%s (%d%%)\t%s (%d%%)\n", corev1.ResourceCPU, cpuReqs.String(), safeFraction(cpuReqs.MilliValue(), cpuAlloc),
		cpuLimits.String(), safeFraction(cpuLimits.MilliValue(), cpuAlloc))
	d.write(1, "%s\t%s (%d%%)\t%s (%d%%)\n", corev1.ResourceMemory, memReqs.String(), safeFraction(memReqs.Value(), memAlloc),
		memLimits.String(), safeFraction(memLimits.Value(), memAlloc))
	d.write(1, "%s\t%s (%d%%)\t%s (%d%%)\n", corev1.ResourceEphemeralStorage, esReqs.String(), safeFraction(esReqs.Value(), esAlloc),
		esLimits.String(), safeFraction(esLimits.Value(), esAlloc))
	var hugePages, extended []string
	for _, n := range sortedResourceNames(allocatable) {
		switch {
		case strings.HasPrefix(string(n), corev1.ResourceHugePagesPrefix):
			hugePages = append(hugePages, string(n))
		case n != corev1.ResourceCPU && n != corev1.ResourceMemory && n != corev1.ResourceEphemeralStorage && n != corev1.ResourcePods:
			extended = append(extended, string(n))
		}
	}
	for _, n := range hugePages {
		rn := corev1.ResourceName(n)
		r, l, a := totalReqs[rn], totalLimits[rn], allocatable[rn]
		d.write(1, "%s\t%s (%d%%)\t%s (%d%%)\n", n, r.String(), safeFraction(r.Value(), a.Value()), l.String(), safeFraction(l.Value(), a.Value()))
	}
	for _, n := range extended {
		r, l := totalReqs[corev1.ResourceName(n)], totalLimits[corev1.ResourceName(n)]
		d.write(1, "%s\t%s\t%s\n", n, r.String(), l.String())
	}
}

func (d *describer) hpa(h *autoscalingv2.HorizontalPodAutoscaler, events []*corev1.Event) {
	d.write(0, "Name:\t%s\n", h.Name)
	d.write(0, "Namespace:\t%s\n", h.Namespace)
	d.labels("", "Labels", h.Labels)
	d.annotations("Annotations", h.Annotations)
	d.write(0, "CreationTimestamp:\t%s\n", rfc1123Z(h.CreationTimestamp))
	d.write(0, "Reference:\t%s/%s\n", h.Spec.ScaleTargetRef.Kind, h.Spec.ScaleTargetRef.Name)
	d.write(0, "Metrics:\t( current / target )\n")
	status := func(i int) *autoscalingv2.MetricStatus {
		if len(h.Status.CurrentMetrics) > i {
			return &h.Status.CurrentMetrics[i]
		}
		return nil
	}
	for i, m := range h.Spec.Metrics {
		st := status(i)
		switch m.Type {
		case autoscalingv2.ExternalMetricSourceType:
			if m.External.Target.AverageValue != nil {
				current := "<unknown>"
				if st != nil && st.External != nil && st.External.Current.AverageValue != nil {
					current = st.External.Current.AverageValue.String()
				}
				d.write(1, "%q (target average value):\t%s / %s\n", m.External.Metric.Name, current, m.External.Target.AverageValue.String())
			} else {
				current := "<unknown>"
				if st != nil && st.External != nil {
					current = quantityString(st.External.Current.Value)
				}
				d.write(1, "%q (target value):\t%s / %s\n", m.External.Metric.Name, current, quantityString(m.External.Target.Value))
			}
		case autoscalingv2.PodsMetricSourceType:
			current := "<unknown>"
			if st != nil && st.Pods != nil {
				current = quantityString(st.Pods.Current.AverageValue)
			}
			d.write(1, "%q on pods:\t%s / %s\n", m.Pods.Metric.Name, current, quantityString(m.Pods.Target.AverageValue))
		case autoscalingv2.ObjectMetricSourceType:
			d.write(1, "\"%s\" on %s/%s ", m.Object.Metric.Name, m.Object.DescribedObject.Kind, m.Object.DescribedObject.Name)
			if m.Object.Target.Type == autoscalingv2.AverageValueMetricType {
				current := "<unknown>"
				if st != nil && st.Object != nil {
					current = quantityString(st.Object.Current.AverageValue)
				}
				d.write(0, "(target average value):\t%s / %s\n", current, quantityString(m.Object.Target.AverageValue))
			} else {
				current := "<unknown>"
				if st != nil && st.Object != nil {
					current = quantityString(st.Object.Current.Value)
				}
				d.write(0, "(target value):\t%s / %s\n", current, quantityString(m.Object.Target.Value))
			}
		case autoscalingv2.ResourceMetricSourceType:
			d.write(1, "resource %s on pods", string(m.Resource.Name))
			if m.Resource.Target.AverageValue != nil {
				current := "<unknown>"
				if st != nil && st.Resource != nil {
					current = quantityString(st.Resource.Current.AverageValue)
				}
				d.write(0, ":\t%s / %s\n", current, m.Resource.Target.AverageValue.String())
			} else {
				current := "<unknown>"
				if st != nil && st.Resource != nil && st.Resource.Current.AverageUtilization != nil {
					current = fmt.Sprintf("%d%% (%s)", *st.Resource.Current.AverageUtilization, quantityString(st.Resource.Current.AverageValue))
				}
				target := "<auto>"
				if m.Resource.Target.AverageUtilization != nil {
					target = fmt.Sprintf("%d%%", *m.Resource.Target.AverageUtilization)
				}
				d.write(1, "(as a percentage of request):\t%s / %s\n", current, target)
			}
		case autoscalingv2.ContainerResourceMetricSourceType:
			d.write(1, "resource %s of container \"%s\" on pods", string(m.ContainerResource.Name), m.ContainerResource.Container)
			if m.ContainerResource.Target.AverageValue != nil {
				current := "<unknown>"
				if st != nil && st.ContainerResource != nil {
					current = quantityString(st.ContainerResource.Current.AverageValue)
				}
				d.write(0, ":\t%s / %s\n", current, m.ContainerResource.Target.AverageValue.String())
			} else {
				current := "<unknown>"
				if st != nil && st.ContainerResource != nil && st.ContainerResource.Current.AverageUtilization != nil {
					current = fmt.Sprintf("%d%% (%s)", *st.ContainerResource.Current.AverageUtilization, quantityString(st.ContainerResource.Current.AverageValue))
				}
				target := "<auto>"
				if m.ContainerResource.Target.AverageUtilization != nil {
					target = fmt.Sprintf("%d%%", *m.ContainerResource.Target.AverageUtilization)
				}
				d.write(1, "(as a percentage of request):\t%s / %s\n", current, target)
			}
		default:
			d.write(1, "<unknown metric type %q>\n", string(m.Type))
		}
	}
	minReplicas := "<unset>"
	if h.Spec.MinReplicas != nil {
		minReplicas = fmt.Sprintf("%d", *h.Spec.MinReplicas)
	}
	d.write(0, "Min replicas:\t%s\n", minReplicas)
	d.write(0, "Max replicas:\t%d\n", h.Spec.MaxReplicas)
	if b := h.Spec.Behavior; b != nil {
		d.write(0, "Behavior:\n")
		d.scalingRules("Scale Up", b.ScaleUp)
		d.scalingRules("Scale Down", b.ScaleDown)
	}
	d.write(0, "%s pods:\t", h.Spec.ScaleTargetRef.Kind)
	d.write(0, "%d current / %d desired\n", h.Status.CurrentReplicas, h.Status.DesiredReplicas)
	if len(h.Status.Conditions) > 0 {
		d.write(0, "Conditions:\n")
		d.write(1, "Type\tStatus\tReason\tMessage\n")
		d.write(1, "----\t------\t------\t-------\n")
		for _, c := range h.Status.Conditions {
			d.write(1, "%v\t%v\t%v\t%v\n", c.Type, c.Status, c.Reason, c.Message)
		}
	}
	d.events(events)
}

func (d *describer) scalingRules(direction string, r *autoscalingv2.HPAScalingRules) {
	if r == nil {
		return
	}
	d.write(1, "%s:\n", direction)
	if r.StabilizationWindowSeconds != nil {
		d.write(2, "Stabilization Window: %d seconds\n", *r.StabilizationWindowSeconds)
	}
	if len(r.Policies) > 0 {
		if r.SelectPolicy != nil {
			d.write(2, "Select Policy: %s\n", *r.SelectPolicy)
		} else {
			d.write(2, "Select Policy: %s\n", autoscalingv2.MaxChangePolicySelect)
		}
		d.write(2, "Policies:\n")
		for _, p := range r.Policies {
			d.write(3, "- Type: %s\tValue: %d\tPeriod: %d seconds\n", p.Type, p.Value, p.PeriodSeconds)
		}
	}
}

// namespace describes a namespace; kubeloop has no ResourceQuota or
// LimitRange kinds, so it prints what kubectl prints for a namespace with
// none of either.
func (d *describer) namespace(ns *corev1.Namespace) {
	d.write(0, "Name:\t%s\n", ns.Name)
	d.labels("", "Labels", ns.Labels)
	d.annotations("Annotations", ns.Annotations)
	d.write(0, "Status:\t%s\n", string(ns.Status.Phase))
	if len(ns.Status.Conditions) > 0 {
		d.write(0, "Conditions:\n")
		d.write(1, "Type\tStatus\tLastTransitionTime\tReason\tMessage\n")
		d.write(1, "----\t------\t------------------\t------\t-------\n")
		for _, c := range ns.Status.Conditions {
			d.write(1, "%v\t%v\t%s\t%v\t%v\n", c.Type, c.Status, rfc1123Z(c.LastTransitionTime), c.Reason, c.Message)
		}
	}
	d.write(0, "\n")
	d.write(0, "No resource quota.\n")
	d.write(0, "\n")
	d.write(0, "No LimitRange resource.\n")
}
