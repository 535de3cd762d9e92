// Package nodeaffinity is the NodeAffinity plugin: spec.nodeSelector and
// requiredDuringSchedulingIgnoredDuringExecution node affinity decide which
// nodes may run a pod (filter), and preferredDuringScheduling terms make
// some nodes more attractive (score, weight 2 in the default profile).
package nodeaffinity
