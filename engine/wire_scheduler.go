package engine

import (
	"github.com/kubeloop/kubeloop/engine/component"
	"github.com/kubeloop/kubeloop/engine/scheduler"
)

// schedulerReactors builds kube-scheduler with the default profile.
func (e *Engine) schedulerReactors() []component.Reactor {
	return []component.Reactor{scheduler.New(e.env(), scheduler.Config{})}
}

// Scheduler returns the cluster's scheduler, for `why pod/X`
// (Scheduler().Explain) and tests.
func (e *Engine) Scheduler() *scheduler.Scheduler {
	for _, r := range e.reactors {
		if s, ok := r.(*scheduler.Scheduler); ok {
			return s
		}
	}
	return nil
}
