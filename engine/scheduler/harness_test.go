package scheduler_test

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/component"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/scheduler"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/engine/trace"
)

// harness is a cluster with nothing but the store, the API server and the
// scheduler, driven like engine.Settle: deliver every write, then Work
// until quiet. Tests of the scheduler alone use it so that other
// components' behaviour cannot change their outcome.
type harness struct {
	loop   *sim.Loop
	store  *store.Store
	api    *apiserver.Server
	trace  *trace.Trace
	sched  *scheduler.Scheduler
	cursor int64
}

func newHarness() *harness { return newHarnessSeed(1) }

func newHarnessSeed(seed uint64) *harness {
	root := sim.NewRand(seed)
	h := &harness{loop: sim.NewLoop(), store: store.New()}
	h.trace = trace.New(h.loop, 0)
	h.api = apiserver.New(h.store, h.trace, h.loop, root.Derive())
	h.sched = scheduler.New(component.Env{Loop: h.loop, Store: h.store, API: h.api, Trace: h.trace, Rand: root.Derive()},
		scheduler.Config{})
	h.create(&corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: "default"}})
	return h
}

func (h *harness) create(o kinds.Object) kinds.Object {
	out, err := h.api.Create(apiserver.Actor{Component: "test"}, o)
	if err != nil {
		panic(err)
	}
	return out
}

func (h *harness) settle() {
	for {
		evs, err := h.store.Since(h.cursor)
		if err != nil {
			panic(err)
		}
		if len(evs) > 0 {
			batch := append([]store.Event(nil), evs...)
			for _, ev := range batch {
				h.sched.Observe(ev)
			}
			h.cursor = batch[len(batch)-1].Rev
			continue
		}
		if !h.sched.Work() {
			return
		}
	}
}

// advance moves virtual time, settling after every timer.
func (h *harness) advance(d sim.Tick) {
	h.settle()
	until := h.loop.Now() + d
	for h.loop.FireNext(until) {
		h.settle()
	}
	if until > h.loop.Now() {
		h.loop.SetNow(until)
	}
}

func (h *harness) pod(name string) *corev1.Pod {
	o, ok := h.store.Lookup(kinds.Pod, "default", name)
	if !ok {
		return nil
	}
	return o.(*corev1.Pod)
}
