// Package st holds fluent builders for pods and nodes in scheduler tests,
// after kube's pkg/scheduler/testing wrappers:
// MakePod().Name("p").Req("100m", "500Mi").Toleration(...).Obj().
package st
