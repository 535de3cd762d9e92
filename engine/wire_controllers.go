package engine

import (
	"github.com/kubeloop/kubeloop/engine/component"
	"github.com/kubeloop/kubeloop/engine/controller"
)

// controllerReactors builds the controller manager, in a fixed order:
// deployment, replicaset, endpointslice, garbage collector. Each gets its
// own derived random source, in that order.
func (e *Engine) controllerReactors() []component.Reactor {
	return []component.Reactor{
		controller.NewDeploymentController(e.env()),
		controller.NewReplicaSetController(e.env()),
		controller.NewEndpointSliceController(e.env()),
		controller.NewGarbageCollector(e.env()),
	}
}
