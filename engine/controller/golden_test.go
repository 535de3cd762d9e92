package controller

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/trace"
)

// TestGolden replays the scenarios in testdata/ against the controller
// manager alone (no scheduler, no kubelets: `start` plays both) and
// compares the trace and state with the recorded output. Regenerate with
// `go test ./engine/controller -rewrite`.
//
// Warning: only commit a rewritten golden file if you have read the diff
// and understand what caused every change (etcd-io/raft's advice).
//
// Commands:
//
//	deployment NAME replicas=N [image=I] [strategy=Recreate] [surge=S unavailable=U] [deadline=S] [history=N]
//	service NAME [port=P] [target=T]
//	set-image NAME IMAGE | scale NAME N
//	start [n=N]                 bind, run and make ready up to N pods (all by default), oldest first
//	kill POD                    delete a pod as a learner would
//	delete KIND NAME [propagation=Background|Foreground|Orphan]
//	finish-terminating          the kubelets remove every terminating pod
//	advance D
//	trace                       trace events since the last trace
//	get deployments|replicasets|pods|endpointslices|events
func TestGolden(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		if strings.Contains(path, "cluster") {
			t.Skip("testdata/cluster is TestRolloutCluster's (a whole cluster, not this harness)")
		}
		c := newCluster(t)
		c.create(&corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
			ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{corev1.LabelTopologyZone: "zone-a"}}})
		h := &golden{cluster: c, traced: c.env.Trace.NextSeq()}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			return h.do(t, d)
		})
	})
}

type golden struct {
	*cluster
	traced uint64
	ips    int
}

func (h *golden) kubectl(line string) apiserver.Actor {
	seq := h.env.Trace.Record(trace.Event{Component: "kubectl", Lane: trace.ControlPlane, Column: trace.Declare, Message: line})
	return apiserver.Actor{Component: "kubectl", Cause: seq}
}

func (h *golden) do(t *testing.T, d *datadriven.TestData) string {
	arg := func(key, def string) string {
		for _, a := range d.CmdArgs {
			if a.Key == key && len(a.Vals) > 0 {
				return a.Vals[0]
			}
		}
		return def
	}
	pos := func(i int) string {
		n := 0
		for _, a := range d.CmdArgs {
			if len(a.Vals) == 0 {
				if n == i {
					return a.Key
				}
				n++
			}
		}
		t.Fatalf("%s: missing argument %d", d.Pos, i+1)
		return ""
	}
	num := func(s string) int32 {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("%s: %v", d.Pos, err)
		}
		return int32(n)
	}
	errOut := func(err error) string {
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		return ""
	}
	switch d.Cmd {
	case "deployment":
		name := pos(0)
		b := makeDeployment(name, num(arg("replicas", "1"))).image(arg("image", "nginx:1.27"))
		b.d.Spec.Template.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}}
		if arg("strategy", "") == "Recreate" {
			b.recreate()
		}
		if s := arg("surge", ""); s != "" {
			b.surge(s, arg("unavailable", "25%"))
		}
		if s := arg("deadline", ""); s != "" {
			v := num(s)
			b.d.Spec.ProgressDeadlineSeconds = &v
		}
		if s := arg("history", ""); s != "" {
			v := num(s)
			b.d.Spec.RevisionHistoryLimit = &v
		}
		_, err := h.env.API.Create(h.kubectl("apply -f "+name+".yaml"), b.obj())
		h.run1()
		return errOut(err) + h.trace()
	case "service":
		name := pos(0)
		svc := makeService(name, map[string]string{"app": name})
		svc.Spec.Ports[0].Port = num(arg("port", "80"))
		svc.Spec.Ports[0].TargetPort = intstr.Parse(arg("target", "http"))
		_, err := h.env.API.Create(h.kubectl("apply -f "+name+"-svc.yaml"), svc)
		h.run1()
		return errOut(err) + h.trace()
	case "set-image", "scale":
		dep := h.deployment(pos(0)).DeepCopy()
		line := "set image deployment/" + dep.Name + " " + dep.Name + "=" + pos(1)
		if d.Cmd == "scale" {
			r := num(pos(1))
			dep.Spec.Replicas = &r
			line = "scale deployment/" + dep.Name + " --replicas=" + pos(1)
		} else {
			dep.Spec.Template.Spec.Containers[0].Image = pos(1)
		}
		_, err := h.env.API.Update(h.kubectl(line), dep)
		h.run1()
		return errOut(err) + h.trace()
	case "start":
		n := int(num(arg("n", "100000")))
		h.start(n)
		h.run1()
		return h.trace()
	case "kill":
		_, err := h.env.API.Delete(h.kubectl("delete pod "+pos(0)), kinds.Pod, "default", pos(0), apiserver.DeleteOptions{})
		h.run1()
		return errOut(err) + h.trace()
	case "delete":
		k, _ := kinds.Lookup(pos(0))
		prop := metav1.DeletionPropagation(arg("propagation", "Background"))
		_, err := h.env.API.Delete(h.kubectl("delete "+pos(0)+" "+pos(1)+" --cascade="+strings.ToLower(string(prop))),
			k, "default", pos(1), apiserver.DeleteOptions{Propagation: prop})
		h.run1()
		return errOut(err) + h.trace()
	case "finish-terminating":
		for _, o := range h.env.Store.List(kinds.Pod, "default") {
			if o.GetDeletionTimestamp() != nil {
				seq := h.env.Trace.Record(trace.Event{Component: "kubelet/n1", Lane: trace.NodeLane, Column: trace.Run,
					Namespace: "default", Object: "pod/" + o.GetName(), Message: "containers stopped; deleting the pod object"})
				h.env.API.Delete(apiserver.Actor{Component: "kubelet/n1", Cause: seq}, kinds.Pod, "default", o.GetName(),
					apiserver.DeleteOptions{GracePeriodSeconds: new(int64)})
			}
		}
		h.run1()
		return h.trace()
	case "advance":
		td, err := time.ParseDuration(pos(0))
		if err != nil {
			t.Fatal(err)
		}
		h.advance(sim.FromDuration(td), h.reactors()...)
		return h.trace()
	case "trace":
		return h.trace()
	case "get":
		return h.get(pos(0))
	}
	t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
	return ""
}

func (h *golden) run1() { h.cluster.run() }

// start plays scheduler and kubelet for up to n pods, oldest first.
func (h *golden) start(n int) {
	var pods []*corev1.Pod
	for _, o := range h.env.Store.List(kinds.Pod, "default") {
		p := o.(*corev1.Pod)
		if !IsPodReady(p) && p.DeletionTimestamp == nil {
			pods = append(pods, p)
		}
	}
	sort.SliceStable(pods, func(i, j int) bool { return pods[i].ResourceVersion < pods[j].ResourceVersion })
	for i, p := range pods {
		if i >= n {
			break
		}
		h.ips++
		cp := p.DeepCopy()
		cp.Spec.NodeName = "n1"
		seq := h.env.Trace.Record(trace.Event{Component: "kubelet/n1", Lane: trace.NodeLane, Column: trace.Run,
			Namespace: "default", Object: "pod/" + p.Name, Message: "status Running, Ready; IP 10.244.0." + strconv.Itoa(h.ips+1)})
		// Binding and status in one step: this harness has no scheduler.
		h.env.Store.Update(cp, seq)
		cp = cp.DeepCopy()
		ip := "10.244.0." + strconv.Itoa(h.ips+1)
		cp.Status.Phase = corev1.PodRunning
		cp.Status.PodIP, cp.Status.PodIPs = ip, []corev1.PodIP{{IP: ip}}
		cp.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue,
			LastTransitionTime: metav1.NewTime(h.env.Loop.Now().Time())}}
		h.env.API.UpdateStatus(apiserver.Actor{Component: "kubelet/n1", Cause: seq}, cp)
	}
}

func (h *golden) trace() string {
	var b strings.Builder
	for _, e := range h.env.Trace.Since(h.traced) {
		if e.Component == "apiserver" || e.Component == "etcd" {
			continue // the API server's own steps belong to its goldens
		}
		obj := e.Object
		if e.Namespace != "" && obj != "" {
			obj = e.Namespace + "/" + obj
		}
		fmt.Fprintf(&b, "%s #%d %s [%s] %s: %s (cause #%d", e.T, e.Seq, e.Component, e.Column, obj, e.Message, e.Cause)
		if e.Rev != 0 {
			fmt.Fprintf(&b, ", rev %d", e.Rev)
		}
		b.WriteString(")\n")
	}
	h.traced = h.env.Trace.NextSeq()
	return b.String()
}

func (h *golden) get(what string) string {
	var b strings.Builder
	switch what {
	case "deployments":
		for _, o := range h.env.Store.List(kinds.Deployment, "default") {
			d := o.(*appsv1.Deployment)
			st := d.Status
			fmt.Fprintf(&b, "%s gen %d observed %d revision %s: replicas %d updated %d ready %d available %d unavailable %d\n",
				d.Name, d.Generation, st.ObservedGeneration, d.Annotations[RevisionAnnotation], st.Replicas, st.UpdatedReplicas, st.ReadyReplicas, st.AvailableReplicas, st.UnavailableReplicas)
			for _, c := range st.Conditions {
				fmt.Fprintf(&b, "  %s=%s %s: %s\n", c.Type, c.Status, c.Reason, c.Message)
			}
		}
	case "replicasets":
		for _, o := range h.env.Store.List(kinds.ReplicaSet, "default") {
			rs := o.(*appsv1.ReplicaSet)
			fmt.Fprintf(&b, "%s desired %d current %d ready %d available %d; revision %s desired-replicas %s max-replicas %s; image %s\n",
				rs.Name, *rs.Spec.Replicas, rs.Status.Replicas, rs.Status.ReadyReplicas, rs.Status.AvailableReplicas,
				rs.Annotations[RevisionAnnotation], rs.Annotations[DesiredReplicasAnnotation], rs.Annotations[MaxReplicasAnnotation],
				rs.Spec.Template.Spec.Containers[0].Image)
		}
	case "pods":
		for _, o := range h.env.Store.List(kinds.Pod, "default") {
			p := o.(*corev1.Pod)
			owner := "-"
			if r := metav1.GetControllerOf(p); r != nil {
				owner = strings.ToLower(r.Kind) + "/" + r.Name
			}
			state := string(p.Status.Phase)
			if state == "" {
				state = "Pending"
			}
			if p.DeletionTimestamp != nil {
				state = "Terminating"
			}
			fmt.Fprintf(&b, "%s %s ready=%v owner=%s\n", p.Name, state, IsPodReady(p), owner)
		}
	case "endpointslices":
		for _, o := range h.env.Store.List(kinds.EndpointSlice, "default") {
			es := o.(*discoveryv1.EndpointSlice)
			var ports []string
			for _, p := range es.Ports {
				ports = append(ports, fmt.Sprintf("%s:%d/%s", *p.Name, *p.Port, *p.Protocol))
			}
			fmt.Fprintf(&b, "%s service=%s addressType=%s ports=[%s]\n", es.Name, es.Labels[discoveryv1.LabelServiceName], es.AddressType, strings.Join(ports, " "))
			for _, ep := range es.Endpoints {
				fmt.Fprintf(&b, "  %s %s ready=%v serving=%v terminating=%v node=%s zone=%s\n", ep.TargetRef.Name, strings.Join(ep.Addresses, ","),
					*ep.Conditions.Ready, *ep.Conditions.Serving, *ep.Conditions.Terminating, deref(ep.NodeName), deref(ep.Zone))
			}
		}
	case "events":
		for _, e := range h.eventObjects() {
			fmt.Fprintf(&b, "%s %s %s/%s: %s\n", e.Type, e.Reason, strings.ToLower(e.InvolvedObject.Kind), e.InvolvedObject.Name, e.Message)
		}
	}
	return b.String()
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
