package engine

import (
	"github.com/kubeloop/kubeloop/engine/component"
	"github.com/kubeloop/kubeloop/engine/kubelet"
)

// nodeReactors builds the node agents: one reactor that starts a kubelet
// for every Node added and routes each pod to its node's kubelet.
func (e *Engine) nodeReactors() []component.Reactor {
	return []component.Reactor{kubelet.NewManager(e.env(), kubelet.DefaultConfig())}
}

// Kubelets is the reactor that runs the nodes' kubelets: for `logs`, and
// for inspecting what each node did.
func (e *Engine) Kubelets() *kubelet.Manager {
	for _, r := range e.reactors {
		if m, ok := r.(*kubelet.Manager); ok {
			return m
		}
	}
	panic("engine: no kubelet manager")
}
