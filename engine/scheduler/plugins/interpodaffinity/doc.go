// Package interpodaffinity is kube-scheduler's InterPodAffinity plugin:
// required pod affinity and anti-affinity as a filter (including the
// symmetric rule: an existing pod's required anti-affinity keeps matching
// pods out of its topology domain, and the exception for the first pod of
// a group that is affine to itself), and preferred terms of the incoming
// and the existing pods as a score, normalised min–max.
//
// Counts per topology domain come from the scheduler's cache
// (framework.ClusterLister), kept current as pods come and go, so a cycle
// costs one map lookup per node and term rather than a scan of every pod.
//
// PreFilterExtensions (AddPod, RemovePod) let the preemption dry run and
// the nominated pods change what the filter counts, in a cloned CycleState:
// a change per domain is kept beside the cache's counts (which are live and
// never written), and Filter adds it to what it reads.
package interpodaffinity
