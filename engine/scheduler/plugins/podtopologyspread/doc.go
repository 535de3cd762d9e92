// Package podtopologyspread is kube-scheduler's PodTopologySpread plugin:
// whenUnsatisfiable DoNotSchedule constraints as a filter (skew = matching
// pods in the node's domain, plus one if the pod matches itself, minus the
// global minimum over eligible domains, at most maxSkew; minDomains;
// nodeAffinityPolicy and nodeTaintsPolicy; matchLabelKeys), ScheduleAnyway
// constraints as a score (count × log(domains + 2) + maxSkew − 1, reversed
// by NormalizeScore), and the system default constraints (hostname maxSkew
// 3, zone maxSkew 5, ScheduleAnyway) for pods with none of their own that a
// Service or controller selects.
//
// Per-domain counts come from the scheduler's cache when every node is
// eligible (the common case); otherwise the plugin counts node by node.
// The system default constraints are built once per namespace and default
// selector, and a pod's own constraints parsed once per distinct spec, not
// once per pod as in kube: the replicas of a ReplicaSet share them.
//
// PreFilterExtensions (AddPod, RemovePod) let the preemption dry run and
// the nominated pods change the filter's counts in a cloned CycleState: a
// change per domain is kept beside the cache's counts (which are live and
// never written), and the global minimum follows kube's two critical
// paths, started from every eligible domain in value order where kube's
// order is a map's.
package podtopologyspread
