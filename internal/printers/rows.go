package printers

// The row functions below follow k/k pkg/printers/internalversion/printers.go
// (the server-side printers behind kubectl get's tables), cell by cell. They
// take the versioned types; where the internal type differs, the comment
// says what the conversion would have given.

import (
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

func init() {
	register(kinds.Pod, &table{columns: []column{
		{name: "Name"}, {name: "Ready"}, {name: "Status"}, {name: "Restarts"}, {name: "Age"},
		{name: "IP", wide: true}, {name: "Node", wide: true}, {name: "Nominated Node", wide: true}, {name: "Readiness Gates", wide: true},
	}, row: func(o kinds.Object, now time.Time) []string { return podRow(o.(*corev1.Pod), now) }})

	register(kinds.Deployment, &table{columns: []column{
		{name: "Name"}, {name: "Ready"}, {name: "Up-to-date"}, {name: "Available"}, {name: "Age"},
		{name: "Containers", wide: true}, {name: "Images", wide: true}, {name: "Selector", wide: true},
	}, row: func(o kinds.Object, now time.Time) []string {
		d := o.(*appsv1.Deployment)
		cells := []string{d.Name, fmt.Sprintf("%d/%d", d.Status.ReadyReplicas, replicas(d.Spec.Replicas)),
			itoa(d.Status.UpdatedReplicas), itoa(d.Status.AvailableReplicas), since(d.CreationTimestamp.Time, now)}
		names, images := layoutContainerCells(d.Spec.Template.Spec.Containers)
		sel := "<invalid>"
		if s, err := metav1.LabelSelectorAsSelector(d.Spec.Selector); err == nil {
			sel = s.String()
		}
		return append(cells, names, images, sel)
	}})

	register(kinds.ReplicaSet, &table{columns: []column{
		{name: "Name"}, {name: "Desired"}, {name: "Current"}, {name: "Ready"}, {name: "Age"},
		{name: "Containers", wide: true}, {name: "Images", wide: true}, {name: "Selector", wide: true},
	}, row: func(o kinds.Object, now time.Time) []string {
		rs := o.(*appsv1.ReplicaSet)
		cells := []string{rs.Name, itoa(replicas(rs.Spec.Replicas)), itoa(rs.Status.Replicas), itoa(rs.Status.ReadyReplicas),
			since(rs.CreationTimestamp.Time, now)}
		names, images := layoutContainerCells(rs.Spec.Template.Spec.Containers)
		return append(cells, names, images, metav1.FormatLabelSelector(rs.Spec.Selector))
	}})

	register(kinds.Service, &table{columns: []column{
		{name: "Name"}, {name: "Type"}, {name: "Cluster-IP"}, {name: "External-IP"}, {name: "Port(s)"}, {name: "Age"},
		{name: "Selector", wide: true},
	}, row: func(o kinds.Object, now time.Time) []string {
		svc := o.(*corev1.Service)
		internalIP := "<none>"
		if len(svc.Spec.ClusterIPs) > 0 {
			internalIP = svc.Spec.ClusterIPs[0]
		}
		ports := servicePorts(svc.Spec.Ports)
		if ports == "" {
			ports = "<none>"
		}
		return []string{svc.Name, string(svc.Spec.Type), internalIP, serviceExternalIP(svc), ports, since(svc.CreationTimestamp.Time, now),
			labels.FormatLabels(svc.Spec.Selector)}
	}})

	register(kinds.Node, &table{columns: []column{
		{name: "Name"}, {name: "Status"}, {name: "Roles"}, {name: "Age"}, {name: "Version"},
		{name: "Internal-IP", wide: true}, {name: "External-IP", wide: true}, {name: "OS-Image", wide: true},
		{name: "Kernel-Version", wide: true}, {name: "Container-Runtime", wide: true},
	}, row: func(o kinds.Object, now time.Time) []string { return nodeRow(o.(*corev1.Node), now) }})

	register(kinds.Event, &table{columns: []column{
		{name: "Last Seen"}, {name: "Type"}, {name: "Reason"}, {name: "Object"},
		{name: "Subobject", wide: true}, {name: "Source", wide: true},
		{name: "Message"},
		{name: "First Seen", wide: true}, {name: "Count", wide: true}, {name: "Name", wide: true},
	}, row: func(o kinds.Object, now time.Time) []string { return eventRow(o.(*corev1.Event), now) }})

	register(kinds.Namespace, &table{columns: []column{{name: "Name"}, {name: "Status"}, {name: "Age"}},
		row: func(o kinds.Object, now time.Time) []string {
			ns := o.(*corev1.Namespace)
			return []string{ns.Name, string(ns.Status.Phase), since(ns.CreationTimestamp.Time, now)}
		}})

	register(kinds.Lease, &table{columns: []column{{name: "Name"}, {name: "Holder"}, {name: "Age"}},
		row: func(o kinds.Object, now time.Time) []string {
			l := o.(*coordinationv1.Lease)
			holder := ""
			if l.Spec.HolderIdentity != nil {
				holder = *l.Spec.HolderIdentity
			}
			return []string{l.Name, holder, since(l.CreationTimestamp.Time, now)}
		}})

	register(kinds.EndpointSlice, &table{columns: []column{
		{name: "Name"}, {name: "AddressType"}, {name: "Ports"}, {name: "Endpoints"}, {name: "Age"},
	}, row: func(o kinds.Object, now time.Time) []string {
		s := o.(*discoveryv1.EndpointSlice)
		return []string{s.Name, string(s.AddressType), endpointSlicePorts(s.Ports), endpointSliceEndpoints(s.Endpoints), since(s.CreationTimestamp.Time, now)}
	}})

	register(kinds.HPA, &table{columns: []column{
		{name: "Name"}, {name: "Reference"}, {name: "Targets"}, {name: "MinPods"}, {name: "MaxPods"}, {name: "Replicas"}, {name: "Age"},
	}, row: func(o kinds.Object, now time.Time) []string {
		h := o.(*autoscalingv2.HorizontalPodAutoscaler)
		minPods := "<unset>"
		if h.Spec.MinReplicas != nil {
			minPods = itoa(*h.Spec.MinReplicas)
		}
		return []string{h.Name, h.Spec.ScaleTargetRef.Kind + "/" + h.Spec.ScaleTargetRef.Name,
			hpaTargets(h.Spec.Metrics, h.Status.CurrentMetrics), minPods, itoa(h.Spec.MaxReplicas), itoa(h.Status.CurrentReplicas),
			since(h.CreationTimestamp.Time, now)}
	}})
}

func itoa[T ~int32 | ~int64 | ~int](n T) string { return strconv.FormatInt(int64(n), 10) }

// replicas reads a *int32 replica count as the internal type holds it: the
// API server defaults it, and a nil converts to 0.
func replicas(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// PodStatus is the STATUS cell of kubectl get pods: the pod's phase or
// reason refined by its init and app containers, as printPod computes it.
func PodStatus(pod *corev1.Pod) string {
	_, _, status, _ := podSummary(pod)
	return status
}

// podSummary computes printPod's READY, STATUS and RESTARTS inputs: ready
// and total containers, the status reason, the restart count and the time
// of the last restart (zero if none).
func podSummary(pod *corev1.Pod) (ready, total int, reason string, restarts restartInfo) {
	count := 0
	sidecarRestarts := 0
	total = len(pod.Spec.Containers)
	var lastRestart, lastSidecarRestart time.Time

	reason = string(pod.Status.Phase)
	if pod.Status.Reason != "" {
		reason = pod.Status.Reason
	}
	// A pod with {type: PodScheduled, reason: SchedulingGated} is gated.
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonSchedulingGated {
			reason = corev1.PodReasonSchedulingGated
		}
	}

	initContainers := make(map[string]*corev1.Container, len(pod.Spec.InitContainers))
	for i := range pod.Spec.InitContainers {
		initContainers[pod.Spec.InitContainers[i].Name] = &pod.Spec.InitContainers[i]
		if isSidecar(&pod.Spec.InitContainers[i]) {
			total++
		}
	}

	initializing := false
	for i := range pod.Status.InitContainerStatuses {
		cs := pod.Status.InitContainerStatuses[i]
		count += int(cs.RestartCount)
		if t := cs.LastTerminationState.Terminated; t != nil && lastRestart.Before(t.FinishedAt.Time) {
			lastRestart = t.FinishedAt.Time
		}
		sidecar := isSidecar(initContainers[cs.Name])
		if sidecar {
			sidecarRestarts += int(cs.RestartCount)
			if t := cs.LastTerminationState.Terminated; t != nil && lastSidecarRestart.Before(t.FinishedAt.Time) {
				lastSidecarRestart = t.FinishedAt.Time
			}
		}
		switch {
		case cs.State.Terminated != nil && cs.State.Terminated.ExitCode == 0:
			continue
		case sidecar && cs.Started != nil && *cs.Started:
			if cs.Ready {
				ready++
			}
			continue
		case cs.State.Terminated != nil:
			// initialization failed
			if cs.State.Terminated.Reason == "" {
				if cs.State.Terminated.Signal != 0 {
					reason = fmt.Sprintf("Init:Signal:%d", cs.State.Terminated.Signal)
				} else {
					reason = fmt.Sprintf("Init:ExitCode:%d", cs.State.Terminated.ExitCode)
				}
			} else {
				reason = "Init:" + cs.State.Terminated.Reason
			}
			initializing = true
		case cs.State.Waiting != nil && cs.State.Waiting.Reason != "" && cs.State.Waiting.Reason != "PodInitializing":
			reason = "Init:" + cs.State.Waiting.Reason
			initializing = true
		default:
			reason = fmt.Sprintf("Init:%d/%d", i, len(pod.Spec.InitContainers))
			initializing = true
		}
		break
	}

	if !initializing || podConditionTrue(pod, corev1.PodInitialized) {
		count = sidecarRestarts
		lastRestart = lastSidecarRestart
		hasRunning := false
		for i := len(pod.Status.ContainerStatuses) - 1; i >= 0; i-- {
			cs := pod.Status.ContainerStatuses[i]
			count += int(cs.RestartCount)
			if t := cs.LastTerminationState.Terminated; t != nil && lastRestart.Before(t.FinishedAt.Time) {
				lastRestart = t.FinishedAt.Time
			}
			switch {
			case cs.State.Waiting != nil && cs.State.Waiting.Reason != "":
				reason = cs.State.Waiting.Reason
			case cs.State.Terminated != nil && cs.State.Terminated.Reason != "":
				reason = cs.State.Terminated.Reason
			case cs.State.Terminated != nil:
				if cs.State.Terminated.Signal != 0 {
					reason = fmt.Sprintf("Signal:%d", cs.State.Terminated.Signal)
				} else {
					reason = fmt.Sprintf("ExitCode:%d", cs.State.Terminated.ExitCode)
				}
			case cs.Ready && cs.State.Running != nil:
				hasRunning = true
				ready++
			}
		}
		// A pod whose last container completed but which still has a
		// running one is Running (or NotReady), not Completed.
		if reason == "Completed" && hasRunning {
			if podConditionTrue(pod, corev1.PodReady) {
				reason = "Running"
			} else {
				reason = "NotReady"
			}
		}
	}

	if pod.DeletionTimestamp != nil && pod.Status.Reason == "NodeLost" {
		reason = "Unknown"
	} else if pod.DeletionTimestamp != nil && pod.Status.Phase != corev1.PodFailed && pod.Status.Phase != corev1.PodSucceeded {
		reason = "Terminating"
	}
	return ready, total, reason, restartInfo{count: count, last: lastRestart}
}

type restartInfo struct {
	count int
	last  time.Time
}

// cell is the RESTARTS cell: "3", or "3 (45s ago)" when the last restart's
// time is known.
func (r restartInfo) cell(now time.Time) string {
	if r.count != 0 && !r.last.IsZero() {
		return fmt.Sprintf("%d (%s ago)", r.count, since(r.last, now))
	}
	return strconv.Itoa(r.count)
}

func isSidecar(c *corev1.Container) bool {
	return c != nil && c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// podConditionTrue is printers.go's isPodInitializedConditionTrue (first
// condition of the type decides) and hasPodReadyCondition.
func podConditionTrue(pod *corev1.Pod, t corev1.PodConditionType) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func podRow(pod *corev1.Pod, now time.Time) []string {
	ready, total, reason, restarts := podSummary(pod)
	cells := []string{pod.Name, fmt.Sprintf("%d/%d", ready, total), reason, restarts.cell(now), since(pod.CreationTimestamp.Time, now)}
	{
		podIP := "<none>"
		if len(pod.Status.PodIPs) > 0 && pod.Status.PodIPs[0].IP != "" {
			podIP = pod.Status.PodIPs[0].IP
		}
		nodeName := orNone(pod.Spec.NodeName)
		nominated := orNone(pod.Status.NominatedNodeName)
		gates := "<none>"
		if len(pod.Spec.ReadinessGates) > 0 {
			trueConditions := 0
			for _, g := range pod.Spec.ReadinessGates {
				for _, c := range pod.Status.Conditions {
					if c.Type == g.ConditionType {
						if c.Status == corev1.ConditionTrue {
							trueConditions++
						}
						break
					}
				}
			}
			gates = fmt.Sprintf("%d/%d", trueConditions, len(pod.Spec.ReadinessGates))
		}
		cells = append(cells, podIP, nodeName, nominated, gates)
	}
	return cells
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// layoutContainerCells joins container names and images for -o wide.
func layoutContainerCells(cs []corev1.Container) (names, images string) {
	var n, i strings.Builder
	for k, c := range cs {
		if k > 0 {
			n.WriteByte(',')
			i.WriteByte(',')
		}
		n.WriteString(c.Name)
		i.WriteString(c.Image)
	}
	return n.String(), i.String()
}

// servicePorts is makePortString: "80/TCP", "80:31234/TCP", comma-joined.
func servicePorts(ports []corev1.ServicePort) string {
	pieces := make([]string, len(ports))
	for i, p := range ports {
		if p.NodePort > 0 {
			pieces[i] = fmt.Sprintf("%d:%d/%s", p.Port, p.NodePort, p.Protocol)
		} else {
			pieces[i] = fmt.Sprintf("%d/%s", p.Port, p.Protocol)
		}
	}
	return strings.Join(pieces, ",")
}

// loadBalancerStatus joins a load balancer's addresses. printers.go cuts
// them at 16 characters unless asked for wide output, but the API server
// always asks for wide (its TableConvertor passes Wide: true), so kubectl
// never shows the cut; neither does kubeloop.
func loadBalancerStatus(s corev1.LoadBalancerStatus) string {
	set := map[string]bool{}
	for _, in := range s.Ingress {
		if in.IP != "" {
			set[in.IP] = true
		} else if in.Hostname != "" {
			set[in.Hostname] = true
		}
	}
	list := make([]string, 0, len(set))
	for k := range set {
		list = append(list, k)
	}
	sort.Strings(list)
	return strings.Join(list, ",")
}

func serviceExternalIP(svc *corev1.Service) string {
	switch svc.Spec.Type {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort:
		if len(svc.Spec.ExternalIPs) > 0 {
			return strings.Join(svc.Spec.ExternalIPs, ",")
		}
		return "<none>"
	case corev1.ServiceTypeLoadBalancer:
		lbIPs := loadBalancerStatus(svc.Status.LoadBalancer)
		if len(svc.Spec.ExternalIPs) > 0 {
			var results []string
			if lbIPs != "" {
				results = append(results, strings.Split(lbIPs, ",")...)
			}
			results = append(results, svc.Spec.ExternalIPs...)
			return strings.Join(results, ",")
		}
		if lbIPs != "" {
			return lbIPs
		}
		return "<pending>"
	case corev1.ServiceTypeExternalName:
		return svc.Spec.ExternalName
	}
	return "<unknown>"
}

// NodeStatus is the STATUS cell of kubectl get nodes: Ready, NotReady or
// Unknown (no Ready condition), then ",SchedulingDisabled" when cordoned.
func NodeStatus(node *corev1.Node) string {
	var status []string
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			if c.Status == corev1.ConditionTrue {
				status = []string{"Ready"}
			} else {
				status = []string{"NotReady"}
			}
			// printNode keeps the last condition of a type; a node has one.
		}
	}
	if len(status) == 0 {
		status = []string{"Unknown"}
	}
	if node.Spec.Unschedulable {
		status = append(status, "SchedulingDisabled")
	}
	return strings.Join(status, ",")
}

// nodeRoles is findNodeRoles: node-role.kubernetes.io/<role> labels and the
// kubernetes.io/role label, sorted.
func nodeRoles(node *corev1.Node) []string {
	set := map[string]bool{}
	for k, v := range node.Labels {
		switch {
		case strings.HasPrefix(k, "node-role.kubernetes.io/"):
			if role := strings.TrimPrefix(k, "node-role.kubernetes.io/"); role != "" {
				set[role] = true
			}
		case k == "kubernetes.io/role" && v != "":
			set[v] = true
		}
	}
	roles := make([]string, 0, len(set))
	for r := range set {
		roles = append(roles, r)
	}
	sort.Strings(roles)
	return roles
}

func nodeRow(node *corev1.Node, now time.Time) []string {
	roles := strings.Join(nodeRoles(node), ",")
	if roles == "" {
		roles = "<none>"
	}
	info := node.Status.NodeInfo
	return []string{node.Name, NodeStatus(node), roles, since(node.CreationTimestamp.Time, now), info.KubeletVersion,
		nodeAddress(node, corev1.NodeInternalIP), nodeAddress(node, corev1.NodeExternalIP),
		orUnknown(info.OSImage), orUnknown(info.KernelVersion), orUnknown(info.ContainerRuntimeVersion)}
}

func nodeAddress(node *corev1.Node, t corev1.NodeAddressType) string {
	for _, a := range node.Status.Addresses {
		if a.Type == t {
			return a.Address
		}
	}
	return "<none>"
}

func orUnknown(s string) string {
	if s == "" {
		return "<unknown>"
	}
	return s
}

// eventRow computes every event column; PrintTable drops the wide ones.
func eventRow(ev *corev1.Event, now time.Time) []string {
	first := since(ev.FirstTimestamp.Time, now)
	if ev.FirstTimestamp.IsZero() {
		first = since(ev.EventTime.Time, now)
	}
	last := since(ev.LastTimestamp.Time, now)
	if ev.LastTimestamp.IsZero() {
		last = first
	}
	count := ev.Count
	if ev.Series != nil {
		last = since(ev.Series.LastObservedTime.Time, now)
		count = ev.Series.Count
	} else if count == 0 {
		// Singleton events of the events.k8s.io API have no count.
		count = 1
	}
	target := strings.ToLower(ev.InvolvedObject.Kind)
	if ev.InvolvedObject.Name != "" {
		target += "/" + ev.InvolvedObject.Name
	}
	return []string{last, ev.Type, ev.Reason, target, ev.InvolvedObject.FieldPath,
		eventSource(ev), strings.TrimSpace(ev.Message), first, itoa(count), ev.Name}
}

// eventSource is formatEventSource: "component, host", falling back to
// reportingController and reportingInstance.
func eventSource(ev *corev1.Event) string {
	component := ev.Source.Component
	if component == "" {
		component = ev.ReportingController
	}
	host := ev.Source.Host
	if host == "" {
		host = ev.ReportingInstance
	}
	if host == "" {
		return component
	}
	return component + ", " + host
}

// listWithMore joins up to max items and says how many more there were.
func listWithMore(list []string, more bool, count, max int) string {
	ret := strings.Join(list, ",")
	if more {
		return fmt.Sprintf("%s + %d more...", ret, count-max)
	}
	if ret == "" {
		ret = "<unset>"
	}
	return ret
}

// endpointSlicePorts is formatDiscoveryPorts: up to three port numbers (or
// names), "*" for a port without either.
func endpointSlicePorts(ports []discoveryv1.EndpointPort) string {
	var list []string
	max, more, count := 3, false, 0
	for _, p := range ports {
		if len(list) < max {
			n := "*"
			if p.Port != nil {
				n = strconv.Itoa(int(*p.Port))
			} else if p.Name != nil {
				n = *p.Name
			}
			list = append(list, n)
		} else if len(list) == max {
			more = true
		}
		count++
	}
	return listWithMore(list, more, count, max)
}

// endpointSliceEndpoints is formatDiscoveryEndpoints: up to three addresses,
// ready or not, then "+ N more...".
func endpointSliceEndpoints(eps []discoveryv1.Endpoint) string {
	var list []string
	max, more, count := 3, false, 0
	for _, ep := range eps {
		for _, a := range ep.Addresses {
			if len(list) < max {
				list = append(list, a)
			} else if len(list) == max {
				more = true
			}
			count++
		}
	}
	return listWithMore(list, more, count, max)
}

// quantityString is (*resource.Quantity).String, "<nil>" for nil as the
// printers get from a nil pointer.
func quantityString(q *resource.Quantity) string {
	if q == nil {
		return "<nil>"
	}
	return q.String()
}

// hpaTargets is formatHPAMetrics: each metric's current/target, the first
// two shown and the rest counted.
func hpaTargets(specs []autoscalingv2.MetricSpec, statuses []autoscalingv2.MetricStatus) string {
	if len(specs) == 0 {
		return "<none>"
	}
	var list []string
	max, count := 2, 0
	for i, spec := range specs {
		has := func(f func(s *autoscalingv2.MetricStatus) bool) bool { return len(statuses) > i && f(&statuses[i]) }
		switch spec.Type {
		case autoscalingv2.ExternalMetricSourceType:
			if spec.External.Target.AverageValue != nil {
				current := "<unknown>"
				if has(func(s *autoscalingv2.MetricStatus) bool {
					return s.External != nil && s.External.Current.AverageValue != nil
				}) {
					current = statuses[i].External.Current.AverageValue.String()
				}
				list = append(list, fmt.Sprintf("%s/%s (avg)", current, spec.External.Target.AverageValue.String()))
			} else {
				current := "<unknown>"
				if has(func(s *autoscalingv2.MetricStatus) bool { return s.External != nil }) {
					current = quantityString(statuses[i].External.Current.Value)
				}
				list = append(list, fmt.Sprintf("%s/%s", current, quantityString(spec.External.Target.Value)))
			}
		case autoscalingv2.PodsMetricSourceType:
			current := "<unknown>"
			if has(func(s *autoscalingv2.MetricStatus) bool { return s.Pods != nil }) {
				current = quantityString(statuses[i].Pods.Current.AverageValue)
			}
			list = append(list, fmt.Sprintf("%s/%s", current, quantityString(spec.Pods.Target.AverageValue)))
		case autoscalingv2.ObjectMetricSourceType:
			if spec.Object.Target.AverageValue != nil {
				current := "<unknown>"
				if has(func(s *autoscalingv2.MetricStatus) bool {
					return s.Object != nil && s.Object.Current.AverageValue != nil
				}) {
					current = statuses[i].Object.Current.AverageValue.String()
				}
				list = append(list, fmt.Sprintf("%s/%s (avg)", current, spec.Object.Target.AverageValue.String()))
			} else {
				current := "<unknown>"
				if has(func(s *autoscalingv2.MetricStatus) bool { return s.Object != nil }) {
					current = quantityString(statuses[i].Object.Current.Value)
				}
				list = append(list, fmt.Sprintf("%s/%s", current, quantityString(spec.Object.Target.Value)))
			}
		case autoscalingv2.ResourceMetricSourceType:
			if spec.Resource.Target.AverageValue != nil {
				current := "<unknown>"
				if has(func(s *autoscalingv2.MetricStatus) bool { return s.Resource != nil }) {
					current = quantityString(statuses[i].Resource.Current.AverageValue)
				}
				list = append(list, fmt.Sprintf("%s: %s/%s", spec.Resource.Name, current, spec.Resource.Target.AverageValue.String()))
			} else {
				current := "<unknown>"
				if has(func(s *autoscalingv2.MetricStatus) bool {
					return s.Resource != nil && s.Resource.Current.AverageUtilization != nil
				}) {
					current = fmt.Sprintf("%d%%", *statuses[i].Resource.Current.AverageUtilization)
				}
				target := "<auto>"
				if spec.Resource.Target.AverageUtilization != nil {
					target = fmt.Sprintf("%d%%", *spec.Resource.Target.AverageUtilization)
				}
				list = append(list, fmt.Sprintf("%s: %s/%s", spec.Resource.Name, current, target))
			}
		case autoscalingv2.ContainerResourceMetricSourceType:
			if spec.ContainerResource.Target.AverageValue != nil {
				current := "<unknown>"
				if has(func(s *autoscalingv2.MetricStatus) bool { return s.ContainerResource != nil }) {
					current = quantityString(statuses[i].ContainerResource.Current.AverageValue)
				}
				list = append(list, fmt.Sprintf("%s: %s/%s", spec.ContainerResource.Name, current, spec.ContainerResource.Target.AverageValue.String()))
			} else {
				current := "<unknown>"
				if has(func(s *autoscalingv2.MetricStatus) bool {
					return s.ContainerResource != nil && s.ContainerResource.Current.AverageUtilization != nil
				}) {
					current = fmt.Sprintf("%d%%", *statuses[i].ContainerResource.Current.AverageUtilization)
				}
				target := "<auto>"
				if spec.ContainerResource.Target.AverageUtilization != nil {
					target = fmt.Sprintf("%d%%", *spec.ContainerResource.Target.AverageUtilization)
				}
				list = append(list, fmt.Sprintf("%s: %s/%s", spec.ContainerResource.Name, current, target))
			}
		default:
			list = append(list, "<unknown type>")
		}
		count++
	}
	more := false
	if count > max {
		list, more = list[:max], true
	}
	ret := strings.Join(list, ", ")
	if more {
		return fmt.Sprintf("%s + %d more...", ret, count-max)
	}
	return ret
}

// joinHostPort is net.JoinHostPort for a numeric port.
func joinHostPort(host string, port int32) string {
	return net.JoinHostPort(host, strconv.Itoa(int(port)))
}
