package engine

import "github.com/kubeloop/kubeloop/engine/component"

// controllerReactors builds the controller manager: deployment, replicaset, endpointslice, garbage collector.
func (e *Engine) controllerReactors() []component.Reactor {
	return nil
}
