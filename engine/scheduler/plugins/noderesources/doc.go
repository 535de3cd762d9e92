// Package noderesources holds the NodeResourcesFit plugin (a node must have
// room for the pod's requests and one more pod; score LeastAllocated) and
// the NodeResourcesBalancedAllocation plugin (prefer nodes whose cpu and
// memory fill evenly).
package noderesources
