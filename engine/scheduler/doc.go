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
// Priority and preemption (preemption.go, plugins/defaultpreemption): the
// queue pops higher spec.priority first (PrioritySort; the Priority
// admission plugin sets it from the pod's PriorityClass). When no node
// fits, DefaultPreemption, kube's Evaluator, dry-runs every node the
// filters found Unschedulable: remove the lower-priority pods, check the
// pod fits, reprieve victims most important first (those a
// PodDisruptionBudget protects before the others), and picks a node by
// kube's ordered criteria (fewest budget violations, lowest
// highest-victim priority, smallest priority sum, fewest victims, latest
// start, then a seeded draw where kube's map order is random). The
// scheduler then does what prepareCandidate does: each victim gets the
// DisruptionTarget condition (PreemptionByScheduler), a graceful delete
// and a Normal Preempted event; lower-priority pods nominated to that node
// lose their nomination; the preemptor gets status.nominatedNodeName with
// its FailedScheduling (whose message has no "preemption:" part when
// preemption succeeded, as in kube). While nominated, the pod's reserved
// room counts against pods of lower or equal priority on that node (kube's
// RunFilterPluginsWithNominatedPods), it does not preempt again while its
// victims terminate ("not eligible due to a terminating pod on the
// nominated node."), the victims' deletions requeue it, and it tries its
// nominated node first. As in 1.30-1.34, the nomination stays on the pod
// once bound.
//
// The dry run, like kube's, works on a copy of the NodeInfo and a clone of
// the CycleState per node: each victim removed or reprieved, and each
// nominated pod counted, also goes through the PreFilter plugins'
// extensions (framework.PreFilterExtensions: AddPod, RemovePod), so
// InterPodAffinity and PodTopologySpread see it come and go; a pod blocked
// by a lower-priority pod through required anti-affinity or a DoNotSchedule
// spread constraint can preempt it. Those plugins keep the change beside
// the cache's live per-domain counts, in the cloned state, never in the
// counts themselves. When the filters pass with nominated pods counted,
// they run again without them, as in kube.
//
// Simplifications, said here and in the code: preemption runs
// synchronously inside the attempt, as in 1.30-1.32 (1.33+ defaults to
// SchedulerAsyncPreemption, which makes the same API calls from a
// goroutine); there are no extenders and no Permit-waiting victims;
// volume, port and DRA plugins are not modelled; binding is synchronous; a
// pod leaves the backoffQ exactly when its backoff ends.
package scheduler
