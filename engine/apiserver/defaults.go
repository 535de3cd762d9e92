package apiserver

import (
	"github.com/kubeloop/kubeloop/engine/kinds"
)

// Default applies Kubernetes' defaulting to obj in place (k/k
// pkg/apis/*/v1/defaults.go).
func Default(obj kinds.Object) {}
