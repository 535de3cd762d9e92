// Package plugins holds kubeloop's scheduling plugins, one package each, as
// kube-scheduler's pkg/scheduler/framework/plugins does. Each plugin file
// declares the interfaces it implements (var _ framework.FilterPlugin =
// (*X)(nil)), exports its Name and its ErrReason strings (Kubernetes' exact
// words), and exports the pure predicate or formula it is built on, so that
// tests, hints and explanations share one definition.
package plugins
