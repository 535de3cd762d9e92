// Package component defines what every part of the simulated control plane
// and every node agent is given, and the one interface through which the
// engine drives them. As in Kubernetes, components never call each other:
// they read the store, write through the API server, and react to the
// store's watch events.
package component

import (
	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/engine/trace"
	"github.com/kubeloop/kubeloop/engine/workload"
)

// Env is what a component is built with.
type Env struct {
	Loop  *sim.Loop         // virtual time and timers
	Store *store.Store      // reads (the informer cache); never write here directly
	API   *apiserver.Server // every write goes through the API server
	Trace *trace.Trace      // where the component records what it did
	Rand  *sim.Rand         // this component's own seeded source
	// Images is the simulated container registry the kubelets pull from.
	Images *workload.Registry
}

// Reactor is a component the engine drives. The engine delivers every
// committed store event to Observe, in revision order (a watch), then calls
// Work until no reactor has anything left to do at the current tick.
type Reactor interface {
	// Name is the component's name in the trace ("scheduler").
	Name() string
	// Observe sees one committed write. It must only note work to do
	// (enqueue a key), not write: writes happen in Work. A write to an
	// Event, which no component watches, comes without its objects (the
	// store keeps Events encoded, see store.Watch).
	Observe(ev store.Event)
	// Work does queued work and reports whether it did any.
	Work() bool
}

// Parallel is a Reactor that stands for many actors working at the same
// time, such as the kubelets of every node. Once it has work, the engine
// lets it work through all of it, delivering each of its writes as it
// goes, before any other component acts: the control plane then reacts to
// everything the nodes did at that moment at once, as client-go's work
// queues do when several changes to one object arrive before its
// controller gets to it.
type Parallel interface {
	Reactor
	Parallel()
}
