package controller

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/component"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/engine/trace"
)

// fixture is sample-controller's test fixture at kubeloop size: a store
// behind a real API server, objects put in place by the test, and the API
// actions a Reconcile made, read back from the store's history.
type fixture struct {
	t    testing.TB
	env  component.Env
	seen int64 // store revision up to which actions were read
	fed  int64 // store revision up to which settle delivered events
}

var setup = apiserver.Actor{Component: "test"}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	loop := sim.NewLoop()
	st := store.New()
	tr := trace.New(loop, 0)
	root := sim.NewRand(1)
	api := apiserver.New(st, tr, loop, root.Derive())
	f := &fixture{t: t, env: component.Env{Loop: loop, Store: st, API: api, Trace: tr, Rand: root.Derive()}}
	for _, ns := range []string{"default", "other"} {
		f.create(&corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}
	f.seen, f.fed = st.Rev(), st.Rev()
	return f
}

// create stores obj as the test's setup (not an action under test).
func (f *fixture) create(obj kinds.Object) kinds.Object {
	f.t.Helper()
	o, err := f.env.API.Create(setup, obj)
	if err != nil {
		f.t.Fatalf("setup: create %s: %v", kinds.Ref(obj), err)
	}
	f.seen = f.env.Store.Rev()
	return o
}

// setStatus writes a pod's (or any object's) status as setup.
func (f *fixture) setStatus(obj kinds.Object) kinds.Object {
	f.t.Helper()
	o, err := f.env.API.UpdateStatus(setup, obj)
	if err != nil {
		f.t.Fatalf("setup: status of %s: %v", kinds.Ref(obj), err)
	}
	f.seen = f.env.Store.Rev()
	return o
}

func (f *fixture) get(k *kinds.Kind, ns, name string) kinds.Object {
	f.t.Helper()
	o, ok := f.env.Store.Lookup(k, ns, name)
	if !ok {
		f.t.Fatalf("%s %s/%s not found", k.Singular, ns, name)
	}
	return o
}

// actions lists the writes since the last call as "create pod
// default/web-x" lines, skipping Events.
func (f *fixture) actions() []string {
	evs, err := f.env.Store.Since(f.seen)
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for _, ev := range evs {
		f.seen = ev.Rev
		if ev.Kind == kinds.Event {
			continue
		}
		verb := map[store.EventType]string{store.Added: "create", store.Modified: "update", store.Deleted: "delete"}[ev.Type]
		out = append(out, fmt.Sprintf("%s %s %s", verb, ev.Kind.Singular, ev.Key()[len(ev.Kind.EtcdPrefix)+1:]))
	}
	return out
}

// eventObjects lists the Kubernetes Events recorded so far, oldest first.
func (f *fixture) eventObjects() []*corev1.Event {
	var out []*corev1.Event
	for _, o := range f.env.Store.List(kinds.Event, "") {
		out = append(out, o.(*corev1.Event))
	}
	rv := func(e *corev1.Event) int { n, _ := strconv.Atoi(e.ResourceVersion); return n }
	sort.Slice(out, func(i, j int) bool { return rv(out[i]) < rv(out[j]) })
	return out
}

// events lists the Kubernetes Events as "Reason: message", oldest first.
func (f *fixture) events() []string {
	var out []string
	for _, e := range f.eventObjects() {
		out = append(out, e.Reason+": "+e.Message)
	}
	return out
}

func (f *fixture) expectActions(want ...string) {
	f.t.Helper()
	got := f.actions()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		f.t.Errorf("actions:\n  got  %s\n  want %s", strings.Join(got, "\n       "), strings.Join(want, "\n       "))
	}
}

// feed delivers every write since rev to the reactors' Observe, as the
// engine's watch does.
func (f *fixture) feed(from int64, rs ...component.Reactor) {
	evs, _ := f.env.Store.Since(from)
	for _, ev := range evs {
		for _, r := range rs {
			r.Observe(ev)
		}
	}
}

// settle feeds and works the reactors until they are quiet, as the engine
// does at one instant. Every write since the last settle is delivered,
// setup included.
func (f *fixture) settle(rs ...component.Reactor) {
	f.t.Helper()
	for steps := 0; steps < 1_000_000; steps++ {
		if to := f.env.Store.Rev(); to > f.fed {
			f.feed(f.fed, rs...)
			f.fed = to
			continue
		}
		worked := false
		for _, r := range rs {
			if r.Work() {
				worked = true
				break
			}
		}
		if !worked {
			return
		}
	}
	f.t.Fatal("reactors did not settle")
}

// advance moves virtual time by d, firing timers and settling after each.
func (f *fixture) advance(d sim.Tick, rs ...component.Reactor) {
	f.t.Helper()
	f.settle(rs...)
	limit := f.env.Loop.Now() + d
	for f.env.Loop.FireNext(limit) {
		f.settle(rs...)
	}
	if limit > f.env.Loop.Now() {
		f.env.Loop.SetNow(limit)
	}
}

// Builders in the style of kube's scheduler testing wrappers.

type deployBuilder struct{ d *appsv1.Deployment }

func makeDeployment(name string, replicas int32) *deployBuilder {
	return &deployBuilder{&appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: name, Image: "nginx:1.27"}}},
			},
		},
	}}
}

func (b *deployBuilder) image(img string) *deployBuilder {
	b.d.Spec.Template.Spec.Containers[0].Image = img
	return b
}

func (b *deployBuilder) surge(surge, unavail string) *deployBuilder {
	s, u := intstr.Parse(surge), intstr.Parse(unavail)
	b.d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &s, MaxUnavailable: &u}}
	return b
}

func (b *deployBuilder) recreate() *deployBuilder {
	b.d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	return b
}

func (b *deployBuilder) obj() *appsv1.Deployment { return b.d }

type podBuilder struct{ p *corev1.Pod }

func makePod(name string) *podBuilder {
	return &podBuilder{&corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name)},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:1.27"}}},
	}}
}

func (b *podBuilder) node(n string) *podBuilder { b.p.Spec.NodeName = n; return b }
func (b *podBuilder) phase(ph corev1.PodPhase) *podBuilder {
	b.p.Status.Phase = ph
	return b
}
func (b *podBuilder) ready(at sim.Tick) *podBuilder {
	b.p.Status.Conditions = append(b.p.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady,
		Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(at.Time())})
	return b
}
func (b *podBuilder) created(at sim.Tick) *podBuilder {
	b.p.CreationTimestamp = metav1.NewTime(at.Time())
	return b
}
func (b *podBuilder) restarts(n int32) *podBuilder {
	b.p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", RestartCount: n}}
	return b
}
func (b *podBuilder) cost(c string) *podBuilder {
	b.p.Annotations = map[string]string{PodDeletionCostAnnotation: c}
	return b
}
func (b *podBuilder) obj() *corev1.Pod { return b.p }
