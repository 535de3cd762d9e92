package controller

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubeloop/kubeloop/engine/component"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/engine/trace"
)

// EndpointSliceControllerName is the EndpointSlice controller's name in the
// trace.
const EndpointSliceControllerName = "endpointslice-controller"

// Numbers and names of the EndpointSlice controller (pkg/controller/
// endpointslice and k8s.io/endpointslice).
const (
	// EndpointSliceWorkers is --concurrent-service-endpoint-syncs.
	EndpointSliceWorkers = 5
	// MaxEndpointsPerSlice is --max-endpoints-per-slice.
	MaxEndpointsPerSlice = 100
	// EndpointSliceManagedBy is the managed-by label value of the slices this
	// controller owns.
	EndpointSliceManagedBy = "endpointslice-controller.k8s.io"
	endpointSliceSource    = "endpoint-slice-controller"
)

const (
	whyReadyEndpoint    = "Only ready endpoints receive traffic: from now on the Service can send requests to this pod."
	whyNotReadyEndpoint = "An EndpointSlice lists every selected pod that has an IP, but a pod that is not ready gets no traffic."
	whyLeftEndpoint     = "A pod that is not ready, or is shutting down, is taken out of the Service's ready endpoints, so no new requests reach it."
	whyGoneEndpoint     = "A pod that is gone, finished, or no longer selected is removed from the Service's EndpointSlices."
	whyPlaceholder      = "Every Service with a selector gets an EndpointSlice, empty until a selected pod has an IP."
	whySliceUpdate      = "The EndpointSlice controller keeps each Service's slices equal to the pods it selects."
)

// EndpointSliceController keeps, for every Service with a selector, the
// EndpointSlices that list the selected pods' addresses and readiness.
type EndpointSliceController struct {
	worker
	// selectors of the Services that get slices, by namespace and name.
	selectors map[string]map[string]labels.Selector
	// podCause is the trace seq of the last relevant change of each pod a
	// Service selects, so that "pod/x is now a ready endpoint" cites it;
	// svcCause that of each Service, for the slices a new Service gets.
	podCause map[string]uint64
	svcCause map[string]uint64
}

var _ component.Reactor = (*EndpointSliceController)(nil)

// NewEndpointSliceController builds the EndpointSlice controller.
func NewEndpointSliceController(env component.Env) *EndpointSliceController {
	EnsureIndexes(env.Store)
	c := &EndpointSliceController{worker: newWorker(EndpointSliceControllerName, env, EndpointSliceWorkers),
		selectors: map[string]map[string]labels.Selector{}, podCause: map[string]uint64{}, svcCause: map[string]uint64{}}
	c.reconcile = c.Reconcile
	return c
}

func servesSlices(svc *corev1.Service) bool {
	return svc.Spec.Selector != nil && svc.Spec.Type != corev1.ServiceTypeExternalName
}

// Observe queues the Services a change concerns: the Service, the Services
// selecting a pod whose endpoint would change, and the Service of a slice
// someone else changed or deleted.
func (c *EndpointSliceController) Observe(ev store.Event) {
	switch ev.Kind {
	case kinds.Service:
		svc := ev.Object.(*corev1.Service)
		ns := c.selectors[svc.Namespace]
		if ev.Type == store.Deleted || !servesSlices(svc) {
			delete(ns, svc.Name)
			delete(c.svcCause, Key(svc))
		} else {
			c.svcCause[Key(svc)] = ev.Cause
			if ns == nil {
				ns = map[string]labels.Selector{}
				c.selectors[svc.Namespace] = ns
			}
			ns[svc.Name] = labels.SelectorFromSet(svc.Spec.Selector)
		}
		c.queue.Add(Key(svc), ev.Cause)
	case kinds.Pod:
		sels := c.selectors[ev.Object.GetNamespace()]
		if len(sels) == 0 {
			return
		}
		p := ev.Object.(*corev1.Pod)
		var old *corev1.Pod
		if ev.Type == store.Modified {
			old = ev.Old.(*corev1.Pod)
			if !podEndpointChanged(old, p) && kinds.SameLabels(old.Labels, p.Labels) {
				return
			}
		}
		for _, name := range sortedSelectorNames(sels) {
			sel := sels[name]
			if sel.Matches(labels.Set(p.Labels)) || (old != nil && sel.Matches(labels.Set(old.Labels))) {
				c.podCause[Key(p)] = ev.Cause
				c.queue.Add(p.Namespace+"/"+name, ev.Cause)
			}
		}
	case kinds.EndpointSlice:
		es := ev.Object.(*discoveryv1.EndpointSlice)
		svc := es.Labels[discoveryv1.LabelServiceName]
		if svc == "" || es.Labels[discoveryv1.LabelManagedBy] != EndpointSliceManagedBy || ev.Type == store.Added {
			return
		}
		if e, ok := c.env.Trace.Get(ev.Cause); ok && ev.Cause != 0 && e.Component == c.name {
			return // our own write
		}
		c.queue.Add(es.Namespace+"/"+svc, ev.Cause)
	}
}

func sortedSelectorNames(m map[string]labels.Selector) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// podEndpointChanged reports whether a pod update changes its endpoint.
func podEndpointChanged(a, b *corev1.Pod) bool {
	return IsPodReady(a) != IsPodReady(b) ||
		(a.DeletionTimestamp != nil) != (b.DeletionTimestamp != nil) ||
		a.Spec.NodeName != b.Spec.NodeName ||
		a.Status.PodIP != b.Status.PodIP ||
		!slices.Equal(a.Status.PodIPs, b.Status.PodIPs) || // as Semantic.DeepEqual: nil and empty are equal
		isPodTerminal(a) != isPodTerminal(b) ||
		a.Spec.Hostname != b.Spec.Hostname || a.Spec.Subdomain != b.Spec.Subdomain
}

func isPodTerminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// ShouldPodBeInEndpoints reports whether a pod is listed at all: it has an
// IP and is not Succeeded or Failed; terminating pods are listed (not
// ready) when includeTerminating is set, as the EndpointSlice controller
// does.
func ShouldPodBeInEndpoints(p *corev1.Pod, includeTerminating bool) bool {
	if isPodTerminal(p) {
		return false
	}
	if p.Status.PodIP == "" && len(p.Status.PodIPs) == 0 {
		return false
	}
	return includeTerminating || p.DeletionTimestamp == nil
}

// PodToEndpoint is a pod's endpoint (podToEndpoint): serving = Ready,
// terminating = being deleted, ready = serving and not terminating (or
// publishNotReadyAddresses); node name, the node's zone and a reference to
// the pod.
func PodToEndpoint(p *corev1.Pod, node *corev1.Node, svc *corev1.Service) discoveryv1.Endpoint {
	serving := IsPodReady(p)
	terminating := p.DeletionTimestamp != nil
	ready := svc.Spec.PublishNotReadyAddresses || (serving && !terminating)
	ep := discoveryv1.Endpoint{
		Addresses:  podIPv4s(p),
		Conditions: discoveryv1.EndpointConditions{Ready: &ready, Serving: &serving, Terminating: &terminating},
		TargetRef:  &corev1.ObjectReference{Kind: "Pod", Namespace: p.Namespace, Name: p.Name, UID: p.UID},
	}
	if p.Spec.NodeName != "" {
		n := p.Spec.NodeName
		ep.NodeName = &n
	}
	if node != nil && node.Labels[corev1.LabelTopologyZone] != "" {
		z := node.Labels[corev1.LabelTopologyZone]
		ep.Zone = &z
	}
	if p.Spec.Hostname != "" && p.Spec.Subdomain == svc.Name && svc.Namespace == p.Namespace {
		h := p.Spec.Hostname
		ep.Hostname = &h
	}
	return ep
}

// podIPv4s are the pod's IPv4 addresses (status.podIPs; status.podIP if a
// kubelet filled in only that).
func podIPv4s(p *corev1.Pod) []string {
	out := []string{}
	ips := p.Status.PodIPs
	if len(ips) == 0 && p.Status.PodIP != "" {
		ips = []corev1.PodIP{{IP: p.Status.PodIP}}
	}
	for _, ip := range ips {
		if !strings.Contains(ip.IP, ":") {
			out = append(out, ip.IP)
		}
	}
	return out
}

// EndpointPorts resolves the Service's ports against the pod: a numeric
// targetPort is used as is, a named one is looked up among the pod's
// container ports of the same protocol; a port that cannot be resolved is
// left out (getEndpointPorts).
func EndpointPorts(svc *corev1.Service, p *corev1.Pod) []discoveryv1.EndpointPort {
	out := []discoveryv1.EndpointPort{}
	for i := range svc.Spec.Ports {
		sp := &svc.Spec.Ports[i]
		num, ok := findPort(p, sp)
		if !ok {
			continue
		}
		name, proto, port := sp.Name, sp.Protocol, int32(num)
		out = append(out, discoveryv1.EndpointPort{Name: &name, Port: &port, Protocol: &proto, AppProtocol: sp.AppProtocol})
	}
	return out
}

func findPort(p *corev1.Pod, sp *corev1.ServicePort) (int, bool) {
	tp := sp.TargetPort
	if tp.Type == intstr.Int {
		v := tp.IntValue()
		if v == 0 {
			v = int(sp.Port) // targetPort defaults to port
		}
		return v, true
	}
	for _, ctr := range p.Spec.Containers {
		for _, cp := range ctr.Ports {
			if cp.Name == tp.StrVal && protoOrTCP(cp.Protocol) == protoOrTCP(sp.Protocol) {
				return int(cp.ContainerPort), true
			}
		}
	}
	for _, ctr := range p.Spec.InitContainers {
		if ctr.RestartPolicy == nil || *ctr.RestartPolicy != corev1.ContainerRestartPolicyAlways {
			continue
		}
		for _, cp := range ctr.Ports {
			if cp.Name == tp.StrVal && protoOrTCP(cp.Protocol) == protoOrTCP(sp.Protocol) {
				return int(cp.ContainerPort), true
			}
		}
	}
	return 0, false
}

func protoOrTCP(p corev1.Protocol) corev1.Protocol {
	if p == "" {
		return corev1.ProtocolTCP
	}
	return p
}

func portsKey(ports []discoveryv1.EndpointPort) string {
	parts := make([]string, len(ports))
	for i, p := range ports {
		var b strings.Builder
		if p.Name != nil {
			b.WriteString(*p.Name)
		}
		b.WriteByte('/')
		if p.Protocol != nil {
			b.WriteString(string(*p.Protocol))
		}
		b.WriteByte('/')
		if p.Port != nil {
			b.WriteString(strconv.Itoa(int(*p.Port)))
		}
		b.WriteByte('/')
		if p.AppProtocol != nil {
			b.WriteString(*p.AppProtocol)
		}
		parts[i] = b.String()
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// selectPods returns the pods in namespace matching the Service's selector,
// through the pod label index: the smallest label bucket, then filtered.
func (c *EndpointSliceController) selectPods(svc *corev1.Service) []*corev1.Pod {
	ensurePodLabelIndex(c.env.Store)
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	var bucket []store.Object
	if len(svc.Spec.Selector) == 0 {
		bucket = c.env.Store.List(kinds.Pod, svc.Namespace) // an empty selector selects every pod
	} else {
		best, bestN := "", -1
		for _, k := range sortedKeys(svc.Spec.Selector) {
			v := svc.Namespace + "/" + k + "=" + svc.Spec.Selector[k]
			if n := c.env.Store.CountByIndex(kinds.Pod, IndexPodLabel, v); bestN < 0 || n < bestN {
				best, bestN = v, n
			}
		}
		bucket = c.env.Store.ByIndex(kinds.Pod, IndexPodLabel, best)
	}
	var out []*corev1.Pod
	for _, o := range bucket {
		if p := o.(*corev1.Pod); sel.Matches(labels.Set(p.Labels)) {
			out = append(out, p)
		}
	}
	return out
}

// sliceLabels are the Service's labels plus the slice's own: the Service's
// name, the managing controller, and headless for a Service without a
// cluster IP (setEndpointSliceLabels).
func sliceLabels(svc *corev1.Service) map[string]string {
	out := map[string]string{}
	for k, v := range svc.Labels {
		if k == discoveryv1.LabelServiceName || k == discoveryv1.LabelManagedBy || k == corev1.IsHeadlessService {
			continue
		}
		out[k] = v
	}
	if svc.Spec.ClusterIP == corev1.ClusterIPNone || svc.Spec.ClusterIP == "" {
		out[corev1.IsHeadlessService] = ""
	}
	out[discoveryv1.LabelServiceName] = svc.Name
	out[discoveryv1.LabelManagedBy] = EndpointSliceManagedBy
	return out
}

func newEndpointSlice(svc *corev1.Service, ports []discoveryv1.EndpointPort) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		TypeMeta: metav1.TypeMeta{APIVersion: "discovery.k8s.io/v1", Kind: "EndpointSlice"},
		ObjectMeta: metav1.ObjectMeta{
			GenerateName:    svc.Name + "-",
			Namespace:       svc.Namespace,
			Labels:          sliceLabels(svc),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(svc, corev1.SchemeGroupVersion.WithKind("Service"))},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       ports,
		Endpoints:   []discoveryv1.Endpoint{},
	}
}

type desiredEndpoint struct {
	pod *corev1.Pod
	ep  discoveryv1.Endpoint
}

type sliceWrite struct {
	op    string // "create", "update", "delete"
	slice *discoveryv1.EndpointSlice
}

// Reconcile makes a Service's EndpointSlices list exactly its selected pods
// (reconciler.go, at teaching size): slices are grouped by resolved ports,
// endpoints stay in the slice that has them, new ones fill slices up to
// MaxEndpointsPerSlice and then go to new slices, and a Service with no
// endpoints keeps one empty placeholder slice. Slices that would be deleted
// are reused for slices that would be created, as kube does.
func (c *EndpointSliceController) Reconcile(key string) (Result, error) {
	ns, name := SplitKey(key)
	o, ok := c.env.Store.Lookup(kinds.Service, ns, name)
	if !ok {
		return Result{}, nil // the garbage collector deletes its slices
	}
	svc := o.(*corev1.Service)
	if !servesSlices(svc) {
		return Result{}, nil
	}

	// What should be.
	groups := map[string][]desiredEndpoint{}
	groupPorts := map[string][]discoveryv1.EndpointPort{}
	for _, p := range c.selectPods(svc) {
		if !ShouldPodBeInEndpoints(p, true) {
			continue
		}
		var node *corev1.Node
		if p.Spec.NodeName != "" {
			if n, ok := c.env.Store.Lookup(kinds.Node, "", p.Spec.NodeName); ok {
				node = n.(*corev1.Node)
			}
		}
		ports := EndpointPorts(svc, p)
		pk := portsKey(ports)
		groups[pk] = append(groups[pk], desiredEndpoint{pod: p, ep: PodToEndpoint(p, node, svc)})
		groupPorts[pk] = ports
	}

	// What is.
	var existing []*discoveryv1.EndpointSlice
	for _, o := range controlled(c.env.Store, kinds.EndpointSlice, svc) {
		es := o.(*discoveryv1.EndpointSlice)
		if es.Labels[discoveryv1.LabelManagedBy] == EndpointSliceManagedBy {
			existing = append(existing, es)
		}
	}
	before := map[string]discoveryv1.Endpoint{} // pod name -> endpoint
	for _, es := range existing {
		for _, ep := range es.Endpoints {
			if ep.TargetRef != nil {
				before[ep.TargetRef.Name] = ep
			}
		}
	}

	writes := c.plan(svc, existing, groups, groupPorts)
	if len(writes) == 0 {
		return Result{}, nil
	}

	// Say what changes for each pod, then write.
	after := map[string]discoveryv1.Endpoint{}
	for _, g := range groups {
		for _, d := range g {
			after[d.pod.Name] = d.ep
		}
	}
	transitions := c.recordTransitions(svc, before, after)
	for _, w := range writes {
		if err := c.write(svc, w, transitions, len(existing) == 0); err != nil {
			return Result{}, err
		}
	}
	for pod := range before {
		if _, ok := after[pod]; !ok {
			delete(c.podCause, ns+"/"+pod)
		}
	}
	return Result{}, nil
}

// plan computes the slice writes that make existing match groups.
func (c *EndpointSliceController) plan(svc *corev1.Service, existing []*discoveryv1.EndpointSlice,
	groups map[string][]desiredEndpoint, groupPorts map[string][]discoveryv1.EndpointPort) []sliceWrite {
	wantLabels := sliceLabels(svc)
	var creates, updates, deletes []sliceWrite
	groupKeys := make([]string, 0, len(groups))
	for k := range groups {
		groupKeys = append(groupKeys, k)
	}
	sort.Strings(groupKeys)

	bySlicePorts := map[string][]*discoveryv1.EndpointSlice{}
	for _, es := range existing {
		pk := portsKey(es.Ports)
		if _, ok := groups[pk]; ok {
			bySlicePorts[pk] = append(bySlicePorts[pk], es)
		} else {
			deletes = append(deletes, sliceWrite{op: "delete", slice: es})
		}
	}
	for _, pk := range groupKeys {
		want := map[string]desiredEndpoint{}
		for _, d := range groups[pk] {
			want[d.pod.Name] = d
		}
		placed := map[string]bool{}
		var kept []*discoveryv1.EndpointSlice
		changed := map[*discoveryv1.EndpointSlice]*discoveryv1.EndpointSlice{}
		for _, es := range bySlicePorts[pk] {
			cp := es.DeepCopy()
			cp.Endpoints = cp.Endpoints[:0]
			dirty := false
			for _, ep := range es.Endpoints {
				name := ""
				if ep.TargetRef != nil {
					name = ep.TargetRef.Name
				}
				d, ok := want[name]
				if !ok || placed[name] {
					dirty = true
					continue
				}
				placed[name] = true
				if !equality.Semantic.DeepEqual(ep, d.ep) {
					dirty = true
				}
				cp.Endpoints = append(cp.Endpoints, d.ep)
			}
			if !equality.Semantic.DeepEqual(es.Labels, wantLabels) {
				cp.Labels = copyMap(wantLabels)
				dirty = true
			}
			kept = append(kept, es)
			if dirty {
				changed[es] = cp
			}
		}
		// New endpoints, by pod name, fill kept slices then new ones.
		var rest []desiredEndpoint
		for _, d := range groups[pk] {
			if !placed[d.pod.Name] {
				rest = append(rest, d)
			}
		}
		sort.Slice(rest, func(i, j int) bool { return rest[i].pod.Name < rest[j].pod.Name })
		for _, es := range kept {
			cur := changed[es]
			n := len(es.Endpoints)
			if cur != nil {
				n = len(cur.Endpoints)
			}
			for len(rest) > 0 && n < MaxEndpointsPerSlice {
				if cur == nil {
					cur = es.DeepCopy()
					changed[es] = cur
				}
				cur.Endpoints = append(cur.Endpoints, rest[0].ep)
				rest, n = rest[1:], n+1
			}
		}
		for _, es := range kept {
			cur, ok := changed[es]
			switch {
			case !ok:
			case len(cur.Endpoints) == 0:
				deletes = append(deletes, sliceWrite{op: "delete", slice: es})
			default:
				updates = append(updates, sliceWrite{op: "update", slice: cur})
			}
		}
		for len(rest) > 0 {
			n := min(len(rest), MaxEndpointsPerSlice)
			es := newEndpointSlice(svc, groupPorts[pk])
			for _, d := range rest[:n] {
				es.Endpoints = append(es.Endpoints, d.ep)
			}
			rest = rest[n:]
			creates = append(creates, sliceWrite{op: "create", slice: es})
		}
	}
	// A Service without endpoints keeps one empty placeholder slice.
	if len(existing) == len(deletes) && len(creates) == 0 {
		placeholder := newEndpointSlice(svc, []discoveryv1.EndpointPort{})
		if len(deletes) == 1 && isPlaceholder(deletes[0].slice, placeholder) {
			deletes = nil
		} else {
			creates = append(creates, sliceWrite{op: "create", slice: placeholder})
		}
	}
	// Reuse slices about to be deleted for slices about to be created.
	for len(deletes) > 0 && len(creates) > 0 {
		old := deletes[0].slice
		nw := creates[len(creates)-1].slice
		nw.Name, nw.GenerateName, nw.ResourceVersion = old.Name, "", old.ResourceVersion
		nw.ObjectMeta.UID = old.UID
		nw.ObjectMeta.CreationTimestamp = old.CreationTimestamp
		creates = creates[:len(creates)-1]
		deletes = deletes[1:]
		updates = append(updates, sliceWrite{op: "update", slice: nw})
	}
	if svc.DeletionTimestamp != nil {
		creates = nil
	}
	out := append(append(creates, updates...), deletes...)
	return out
}

func isPlaceholder(es, placeholder *discoveryv1.EndpointSlice) bool {
	return len(es.Endpoints) == 0 && len(es.Ports) == 0 && es.AddressType == placeholder.AddressType &&
		equality.Semantic.DeepEqual(es.Labels, placeholder.Labels)
}

// recordTransitions records one trace event for each pod whose endpoint
// appears, disappears or changes readiness, and returns their seqs by pod.
func (c *EndpointSliceController) recordTransitions(svc *corev1.Service, before, after map[string]discoveryv1.Endpoint) map[string]uint64 {
	names := make([]string, 0, len(before)+len(after))
	for n := range before {
		names = append(names, n)
	}
	for n := range after {
		if _, ok := before[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	out := map[string]uint64{}
	svcRef := "service/" + svc.Name
	for _, n := range names {
		b, had := before[n]
		a, has := after[n]
		wasReady, isReady := had && isReady(b), has && isReady(a)
		var col trace.Column
		var msg, why string
		switch {
		case isReady && !wasReady:
			col, why = trace.Run, whyReadyEndpoint
			msg = fmt.Sprintf("pod/%s is now a ready endpoint of %s", n, svcRef)
		case has && !had:
			col, why = trace.Run, whyNotReadyEndpoint
			msg = fmt.Sprintf("pod/%s is now an endpoint of %s, not ready: it gets no traffic yet", n, svcRef)
		case wasReady && has && !isReady:
			col, why = trace.Maintain, whyLeftEndpoint
			reason := "not ready"
			if a.Conditions.Terminating != nil && *a.Conditions.Terminating {
				reason = "terminating"
			}
			msg = fmt.Sprintf("pod/%s is no longer a ready endpoint of %s (%s)", n, svcRef, reason)
		case had && !has:
			col, why = trace.Maintain, whyGoneEndpoint
			msg = fmt.Sprintf("pod/%s is no longer an endpoint of %s", n, svcRef)
		default:
			continue
		}
		cause := c.podCause[svc.Namespace+"/"+n]
		if cause == 0 {
			cause = c.cause
		}
		out[n] = c.env.Trace.Record(trace.Event{Component: c.name, Lane: trace.ControlPlane, Column: col,
			Namespace: svc.Namespace, Object: "pod/" + n, Message: msg, Cause: cause, Why: why})
	}
	return out
}

func isReady(ep discoveryv1.Endpoint) bool {
	return ep.Conditions.Ready != nil && *ep.Conditions.Ready
}

// write performs one slice write. Its cause is the last pod transition it
// carries; a write that carries none gets its own trace event.
func (c *EndpointSliceController) write(svc *corev1.Service, w sliceWrite, transitions map[string]uint64, newService bool) error {
	var seqs []uint64
	pods := map[string]bool{}
	for _, ep := range w.slice.Endpoints {
		if ep.TargetRef != nil {
			pods[ep.TargetRef.Name] = true
		}
	}
	if w.op != "create" {
		if old, ok := c.env.Store.Lookup(kinds.EndpointSlice, w.slice.Namespace, w.slice.Name); ok {
			for _, ep := range old.(*discoveryv1.EndpointSlice).Endpoints {
				// Endpoints never move between slices in this planner, so
				// one that leaves this slice leaves the Service.
				if ep.TargetRef != nil {
					pods[ep.TargetRef.Name] = true
				}
			}
		}
	}
	for _, n := range sortedBoolKeys(pods) {
		if s, ok := transitions[n]; ok {
			seqs = append(seqs, s)
			delete(transitions, n) // each transition rides on one write
		}
	}
	var seq uint64
	if len(seqs) > 0 {
		seq = seqs[len(seqs)-1]
	} else {
		col, why := trace.Maintain, whySliceUpdate
		var msg string
		switch w.op {
		case "create":
			msg = fmt.Sprintf("Creating EndpointSlice for service/%s with %d endpoints", svc.Name, len(w.slice.Endpoints))
			if newService {
				col = trace.Declare
			}
			if len(w.slice.Endpoints) == 0 {
				why = whyPlaceholder
			}
		case "update":
			msg = fmt.Sprintf("Updated EndpointSlice %s of service/%s: %d endpoints", w.slice.Name, svc.Name, len(w.slice.Endpoints))
		case "delete":
			msg = fmt.Sprintf("Deleted EndpointSlice %s of service/%s", w.slice.Name, svc.Name)
		}
		cause := c.cause
		if newService && c.svcCause[Key(svc)] != 0 {
			cause = c.svcCause[Key(svc)] // the first slices carry out the Service itself
		}
		seq = c.env.Trace.Record(trace.Event{Component: c.name, Lane: trace.ControlPlane, Column: col,
			Namespace: svc.Namespace, Object: "endpointslice/" + w.slice.Name, Message: msg, Cause: cause, Why: why})
	}
	var rev int64
	switch w.op {
	case "create":
		o, err := c.env.API.Create(c.actor(seq), w.slice)
		if err != nil {
			return err
		}
		rev, _ = strconv.ParseInt(o.GetResourceVersion(), 10, 64)
		if len(seqs) == 0 {
			c.env.Trace.Amend(seq, "endpointslice/"+o.GetName(), fmt.Sprintf("Created EndpointSlice %s for service/%s with %d endpoints", o.GetName(), svc.Name, len(w.slice.Endpoints)))
		}
	case "update":
		o, err := c.env.API.Update(c.actor(seq), w.slice)
		if err != nil {
			return err
		}
		rev, _ = strconv.ParseInt(o.GetResourceVersion(), 10, 64)
	case "delete":
		if _, err := c.env.API.Delete(c.actor(seq), kinds.EndpointSlice, w.slice.Namespace, w.slice.Name, deleteBackground); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		rev = c.env.Store.Rev()
	}
	for _, s := range seqs[:max(0, len(seqs)-1)] {
		c.env.Trace.SetRev(s, rev)
	}
	return nil
}

func sortedBoolKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
