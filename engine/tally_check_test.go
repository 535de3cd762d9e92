package engine

import "github.com/kubeloop/kubeloop/engine/controller"

// Every test here also checks the ReplicaSet controller's running pod
// tallies against a full recount after each sync that uses one.
func init() { controller.VerifyTallies = true }
