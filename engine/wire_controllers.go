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
		// Node health and taint-based eviction draw nothing at random:
		// they get no source of their own, so the seeds of the scheduler
		// and kubelets built after them stay as they were.
		controller.NewNodeLifecycleController(e.envWithoutRand()),
		controller.NewTaintEvictionController(e.envWithoutRand()),
		controller.NewDisruptionController(e.envWithoutRand()),
		controller.NewHPAController(e.envWithoutRand(), e.Metrics),
	}
}

// HPA returns the cluster's HorizontalPodAutoscaler controller, for
// `why hpa/X` (HPA().Explain) and tests.
func (e *Engine) HPA() *controller.HPAController {
	for _, r := range e.reactors {
		if c, ok := r.(*controller.HPAController); ok {
			return c
		}
	}
	return nil
}

// envWithoutRand is env for a component that makes no random choices: it
// derives no source, so adding one leaves every other seed unchanged.
func (e *Engine) envWithoutRand() component.Env {
	return component.Env{Loop: e.Loop, Store: e.Store, API: e.API, Trace: e.Trace, Images: e.Images}
}
