// Package tainttoleration is the TaintToleration plugin: a node's NoSchedule
// and NoExecute taints keep out pods that do not tolerate them (filter), and
// its PreferNoSchedule taints make it less attractive to such pods (score).
package tainttoleration
