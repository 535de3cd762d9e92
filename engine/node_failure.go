package engine

// FailNode makes a node fail as `node fail NAME` does: its kubelet stops
// renewing its Lease and posting status, and does nothing for its pods,
// until RecoverNode. The node lifecycle controller notices the silence
// after --node-monitor-grace-period. cause is the trace event of the
// learner's command. An unknown node is NotFound, in Kubernetes' words.
func (e *Engine) FailNode(cause uint64, name string) error {
	return e.Kubelets().Fail(name, cause)
}

// RecoverNode brings a failed node back (`node recover NAME`): its kubelet
// posts Ready, renews its Lease, and cleans up the pods deleted while it
// was away.
func (e *Engine) RecoverNode(cause uint64, name string) error {
	return e.Kubelets().Recover(name, cause)
}
