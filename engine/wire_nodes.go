package engine

import "github.com/kubeloop/kubeloop/engine/component"

// nodeReactors builds the kubelets, one per node.
func (e *Engine) nodeReactors() []component.Reactor {
	return nil
}
