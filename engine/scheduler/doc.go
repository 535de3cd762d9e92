// Package scheduler is kubeloop's kube-scheduler: the Schedule column.
//
// It watches pods and nodes through Observe, like kube-scheduler's
// informers: unbound pods that ask for default-scheduler and are not being
// deleted enter the scheduling queue; bound pods and nodes feed its own
// cache of NodeInfos (requested and non-zero requested resources, pod
// counts, images), so an attempt never lists pods. For InterPodAffinity and
// PodTopologySpread the cache also keeps, per label query a plugin has asked
// (selector, namespaces, topology key), the matching pods per topology
// domain, and the distinct affinity terms of bound pods with their own
// per-domain counts, updated as pods come and go (topology.go): a plugin's
// PreFilter reads them instead of scanning every pod, and its Filter reads a
// count by domain number (two slice reads per node). Each Work call takes one
// pod from the queue and runs one scheduling cycle with the default profile
// (see DefaultPlugins): PreFilter, Filter over the nodes in node-tree order
// from a rotating start until percentageOfNodesToScore feasible nodes are
// found, PostFilter (the preemption message) when none is, PreScore, Score,
// NormalizeScore, the weighted sum, and a uniform pick among the top totals
// from the scheduler's seeded source. A success is a Bind through the API
// server and a Normal Scheduled event; a failure is a Warning
// FailedScheduling event (identical ones counted, not repeated), the
// condition PodScheduled=False, and the pod back in the queue: parked until
// a cluster event that may help (queueing hints), retried after backoff
// (1 s doubling to 10 s) when no plugin is to blame, and flushed after 5
// minutes in any case.
//
// Every attempt leaves a Decision: the outcome and scope always, and per
// evaluated node which filter rejected it and each score plugin's raw,
// normalised and weighted score, kept in a bounded ring (Explain, Describe).
// The trace shows each attempt in the Schedule column with its cause.
//
// Simplifications, said here and in the code: no preemption victims are
// chosen (PriorityClasses are not served, so pods carry spec.priority only
// when set by hand; the FailedScheduling message still says, per node,
// whether preemption could help); volume,
// port and DRA plugins are not modelled; binding is synchronous; a pod
// leaves the backoffQ exactly when its backoff ends.
package scheduler
