package lessons

import (
	"github.com/kubeloop/kubeloop/engine/controller"
	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/store"
)

// Every test here also checks the ReplicaSet controller's running pod
// tallies against a full recount after each sync that uses one, and that
// every object version the store encodes decodes to the same JSON, and
// that the scheduler's whole-list scoring shortcuts agree with kube's
// per-node methods.
func init() {
	controller.VerifyTallies, store.VerifyEncoding, framework.VerifyNodesScorers = true, true, true
}
