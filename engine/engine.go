package engine

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/component"
	"github.com/kubeloop/kubeloop/engine/metrics"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/engine/trace"
	"github.com/kubeloop/kubeloop/engine/workload"
)

// DefaultSeed is the seed used unless one is given: a constant, never the
// clock, so that two fresh sessions agree.
const DefaultSeed uint64 = 1

// MaxSettleSteps bounds one Settle: a control loop that keeps writing
// without converging is reported in the trace instead of hanging the REPL.
const MaxSettleSteps = 1_000_000

// EtcdCompactionInterval is kube-apiserver's default --etcd-compaction-interval:
// every 5 minutes it compacts etcd history to the revision it saw 5 minutes
// earlier.
const EtcdCompactionInterval = 5 * sim.Minute

// Config describes a cluster to build.
type Config struct {
	// Seed is the root of all randomness; 0 means DefaultSeed.
	Seed uint64
	// Nodes are the worker nodes the cluster starts with.
	Nodes []NodeConfig
	// TraceCapacity bounds the trace (trace.DefaultCapacity if 0).
	TraceCapacity int
}

// Engine is one simulated cluster.
type Engine struct {
	Seed  uint64
	Loop  *sim.Loop
	Store *store.Store
	API   *apiserver.Server
	Trace *trace.Trace
	// Images is the simulated container registry: the built-in catalogue
	// plus whatever a lesson or learner adds.
	Images *workload.Registry
	// Loads is the demand each workload serves (the playground's `load`
	// command sets it); the metrics-server turns it into usage.
	Loads *workload.Loads
	// Metrics is the cluster's metrics-server (the metrics.k8s.io API that
	// `kubectl top` and the HorizontalPodAutoscaler read).
	Metrics *metrics.Server

	root     *sim.Rand
	reactors []component.Reactor
	cursor   int64 // the store revision delivered to reactors so far
	// compactTo is the revision that the next compaction compacts to: the
	// head revision at the previous compaction tick.
	compactTo int64
	// Unsettled counts Settle calls that hit MaxSettleSteps.
	Unsettled int
	// BootRev is the store's revision after the API server's own start-up
	// writes (the default namespaces, the system PriorityClasses, the
	// kubernetes Service), which are not steps of the trace.
	BootRev int64
}

// New builds a cluster: the control plane, the default namespaces, and the
// configured nodes, settled at tick 0.
func New(cfg Config) *Engine {
	seed := cfg.Seed
	if seed == 0 {
		seed = DefaultSeed
	}
	e := &Engine{Seed: seed, Loop: sim.NewLoop(), Store: store.New(), root: sim.NewRand(seed)}
	e.Trace = trace.New(e.Loop, cfg.TraceCapacity)
	// Component sources are derived in a fixed order; append new ones at the
	// end so that existing traces keep their random choices.
	e.API = apiserver.New(e.Store, e.Trace, e.Loop, e.root.Derive())
	e.Images = workload.DefaultRegistry()
	e.Loads = workload.NewLoads()
	e.Metrics = metrics.New(e.Loop, e.Store, e.Images, e.Loads)
	e.reactors = e.buildReactors()
	e.bootstrap()
	e.BootRev = e.Store.Rev()
	for _, n := range cfg.Nodes {
		if err := e.AddNode(n); err != nil {
			panic("engine: default node: " + err.Error())
		}
	}
	e.Loop.After(EtcdCompactionInterval, "etcd compaction", e.compact)
	e.Settle()
	return e
}

// env hands a component what it needs, with its own random source.
func (e *Engine) env() component.Env {
	return component.Env{Loop: e.Loop, Store: e.Store, API: e.API, Trace: e.Trace, Rand: e.root.Derive(), Images: e.Images}
}

// buildReactors creates the control plane's components in the order they
// work within one instant.
func (e *Engine) buildReactors() []component.Reactor {
	// Each wire_*.go file builds one family of components. Order: the
	// controllers turn desired state into pods, the scheduler places them,
	// the kubelets run them.
	var rs []component.Reactor
	rs = append(rs, e.controllerReactors()...)
	rs = append(rs, e.schedulerReactors()...)
	rs = append(rs, e.nodeReactors()...)
	return rs
}

// System is the actor for the cluster's own bootstrap writes.
var System = apiserver.Actor{Component: "apiserver"}

func (e *Engine) bootstrap() {
	for _, ns := range []string{metav1.NamespaceDefault, "kube-node-lease", metav1.NamespacePublic, metav1.NamespaceSystem} {
		obj := &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			ObjectMeta: metav1.ObjectMeta{Name: ns}}
		if _, err := e.API.Create(System, obj); err != nil {
			panic("engine: bootstrap namespace " + ns + ": " + err.Error())
		}
	}
	if err := e.API.CreateSystemPriorityClasses(System); err != nil {
		panic("engine: bootstrap priority classes: " + err.Error())
	}
	if err := e.API.CreateKubernetesService(System); err != nil {
		panic("engine: bootstrap kubernetes service: " + err.Error())
	}
	e.Loop.After(apiserver.EndpointInterval, "kubernetes service", e.reconcileKubernetesService)
}

// reconcileKubernetesService is kube-apiserver's bootstrap controller loop:
// it puts back the `kubernetes` Service and its endpoints if a learner
// deleted or changed them.
func (e *Engine) reconcileKubernetesService() {
	e.API.ReconcileKubernetesService()
	e.Loop.After(apiserver.EndpointInterval, "kubernetes service", e.reconcileKubernetesService)
}

// compact is kube-apiserver's periodic etcd compaction.
func (e *Engine) compact() {
	if e.compactTo > 0 && e.compactTo <= e.cursor {
		e.Store.Compact(e.compactTo)
	}
	e.compactTo = e.Store.Rev()
	e.Loop.After(EtcdCompactionInterval, "etcd compaction", e.compact)
}

// Now is the current virtual time.
func (e *Engine) Now() sim.Tick { return e.Loop.Now() }

// Settle delivers every committed write to the components and lets them work
// until none has anything left to do at this instant. It reports whether the
// cluster converged within MaxSettleSteps; if not, the trace says so.
//
// Components act one step at a time, and every write a step makes reaches
// every component before the next step. The first component with work, in
// the order buildReactors gives (controllers, scheduler, kubelets), takes
// the next step, so the control plane answers each change before the nodes
// act again. The kubelets are the exception (component.Parallel): they are
// many nodes working at the same moment, so once they have work they keep
// the turn until all of it is done, and the controllers then find every
// change those nodes made waiting in their work queues, as one key each.
func (e *Engine) Settle() bool {
	var turn component.Reactor // a Parallel reactor working through its queue
	for steps := 0; steps < MaxSettleSteps; steps++ {
		if e.deliver() {
			continue
		}
		if turn != nil && turn.Work() {
			continue
		}
		turn = nil
		worked := false
		for _, r := range e.reactors {
			if r.Work() {
				worked = true
				if _, ok := r.(component.Parallel); ok {
					turn = r
				}
				break // deliver its writes before anyone else acts
			}
		}
		if !worked {
			return true
		}
	}
	e.Unsettled++
	e.Trace.Record(trace.Event{Component: "engine", Lane: trace.ControlPlane, Column: trace.Maintain,
		Message: fmt.Sprintf("the control loops did not settle within %d steps at this instant; "+
			"some component keeps rewriting the same objects", MaxSettleSteps),
		Why: "Controllers must converge: each write should bring observed state closer to desired state."})
	return false
}

// deliver hands the writes since the cursor to every reactor, in revision
// order, and reports whether there were any.
func (e *Engine) deliver() bool {
	evs, err := e.Store.Watch(e.cursor)
	if err != nil {
		panic("engine: watch fell behind compaction: " + err.Error())
	}
	if len(evs) == 0 {
		return false
	}
	// The batch is a view of the store's log, capped at its length: a
	// reactor that wrote while observing (a contract violation) would
	// append past it, not into it.
	batch := evs
	for _, ev := range batch {
		for _, r := range e.reactors {
			r.Observe(ev)
		}
	}
	e.cursor = batch[len(batch)-1].Rev
	// Every component has now seen these writes: what they superseded is
	// history, which the store may keep encoded, as etcd does.
	e.Store.Seal(e.cursor)
	return true
}

// Advance moves virtual time forward by d, firing every timer due on the way
// and settling after each.
func (e *Engine) Advance(d sim.Tick) {
	e.AdvanceTo(e.Loop.Now() + d)
}

// AdvanceTo moves virtual time forward to t.
func (e *Engine) AdvanceTo(t sim.Tick) {
	e.Settle()
	for e.Loop.FireNext(t) {
		e.Settle()
	}
	if t > e.Loop.Now() {
		e.Loop.SetNow(t)
	}
}

// AdvanceUntil moves time forward until cond holds (checked after every
// settled instant) or timeout passes; it reports whether cond held.
func (e *Engine) AdvanceUntil(cond func() bool, timeout sim.Tick) bool {
	e.Settle()
	if cond() {
		return true
	}
	limit := e.Loop.Now() + timeout
	for e.Loop.FireNext(limit) {
		e.Settle()
		if cond() {
			return true
		}
	}
	if limit > e.Loop.Now() {
		e.Loop.SetNow(limit)
	}
	return cond()
}

// Command records a learner's command in the trace (component "kubectl",
// column Declare) and returns the actor for the requests it makes, so that
// everything that follows can be traced back to it.
func (e *Engine) Command(line string) apiserver.Actor {
	seq := e.Trace.Record(trace.Event{Component: "kubectl", Lane: trace.ControlPlane, Column: trace.Declare,
		Message: line, Why: "Everything in Kubernetes starts from a request to the API server; this is yours."})
	return apiserver.Actor{Component: "kubectl", Cause: seq}
}
