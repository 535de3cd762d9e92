// Package defaultpreemption is the DefaultPreemption plugin, as far as
// kubeloop models it: when no node can run a pod, it works out where
// evicting lower-priority pods might help and says so in kube's words, the
// "preemption: ..." part of a FailedScheduling message. It does not yet
// choose or evict victims (see PostFilter).
package defaultpreemption
