// Package defaultpreemption is kube-scheduler's DefaultPreemption
// PostFilter plugin and its Evaluator (k/k pkg/scheduler/framework/
// preemption and plugins/defaultpreemption, 1.30-1.34) at teaching size.
//
// When no node can run a pod, PostFilter decides whether evicting pods of
// lower priority would help and where:
//
//   - eligibility: a pod with preemptionPolicy Never may not preempt; nor
//     may a pod nominated to a node where the victims it chose are still
//     terminating (it waits for them instead of evicting more);
//   - candidates: only nodes the filters rejected as Unschedulable, not
//     UnschedulableAndUnresolvable (a taint, a selector, a request larger
//     than the node: no eviction changes those);
//   - SelectVictimsOnNode: on a copy of the node and a clone of the cycle
//     state, remove every lower-priority pod, run the filters; if the pod
//     fits, put pods back most important first (PodDisruptionBudget-
//     protected ones first) while it still fits; the rest are the victims.
//     Each removal and return also goes to the PreFilter plugins' RemovePod
//     and AddPod (through the Handle), so what InterPodAffinity and
//     PodTopologySpread counted in PreFilter sees it: a pod kept off a node
//     by a lower-priority pod's labels (required anti-affinity, a
//     DoNotSchedule spread constraint) can preempt it;
//   - PickOneNodeForPreemption: fewest budget violations, then the lowest
//     priority of the most important victim, the smallest sum of
//     priorities, the fewest victims, the latest start, and finally a draw
//     from the scheduler's seeded source where kube's order is that of a Go
//     map.
//
// The plugin is pure: it writes nothing. Its choice (a Result in the
// CycleState) is carried out by the scheduler, which sets the victims'
// DisruptionTarget condition, deletes them gracefully, records kube's
// Preempted events and nominates the pod (engine/scheduler/preemption.go).
// Without a candidate, its status is kube's "preemption: 0/N nodes are
// available: ..." message. Simplified: the dry run tries the nodes one
// after another, where kube's tries them in parallel.
package defaultpreemption
