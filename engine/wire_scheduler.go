package engine

import "github.com/kubeloop/kubeloop/engine/component"

// schedulerReactors builds kube-scheduler.
func (e *Engine) schedulerReactors() []component.Reactor {
	return nil
}
