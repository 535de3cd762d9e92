package kubelet

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
)

// failure is a kubelet's fault state for `node fail` and `node recover`.
//
// A failed node is modelled as a kubelet that can no longer reach the API
// server (a crashed kubelet, a network partition): it renews no Lease,
// posts no node or pod status, and makes no progress on its pods. Pod
// watch events still reach it and are queued, as a reconnecting kubelet
// relists what changed; nothing is done with them until it recovers. The
// containers it had started are left as they were (they keep running on a
// real node), which is why a recovered kubelet stops pods deleted
// meanwhile instead of finding them gone.
type failure struct {
	failed   bool
	failedAt sim.Tick
	// readySince is when the kubelet last came back: the transition time
	// of the conditions it posts (0: since it started).
	readySince sim.Tick
}

// Failed reports whether the node's kubelet is failed (`node fail`).
// Anything a kubelet does on a timer (probes, restarts) must check it:
// a failed kubelet writes nothing.
func (k *Kubelet) Failed() bool { return k.failed }

// conditionsSince is the transition time of the node conditions the
// kubelet posts: when it started, or when it last recovered (the Ready
// condition the node lifecycle controller set to Unknown becomes True
// again at that moment).
func (k *Kubelet) conditionsSince() sim.Tick {
	if k.readySince > k.startedAt {
		return k.readySince
	}
	return k.startedAt
}

// Fail stops node's kubelet as `node fail` does: no more Lease renewals,
// no node status, no pod work, until Recover. cause is the trace event of
// the learner's command.
func (m *Manager) Fail(node string, cause uint64) error {
	k := m.kubelets[node]
	if k == nil {
		return apierrors.NewNotFound(kinds.Node.GroupResource(), node)
	}
	if k.failed {
		return fmt.Errorf("node %s has already failed (node recover %s brings it back)", node, node)
	}
	k.failed, k.failedAt = true, k.now()
	m.env.Loop.Cancel(k.hbTimer)
	k.hbQueued = false
	k.record("", "node/"+node, cause, fmt.Sprintf(
		"node %s failed: its kubelet stopped renewing Lease %s/%s and posting node and pod status; "+
			"its containers are left as they were", node, NodeLeaseNamespace, node), whyFail)
	return nil
}

// Recover brings node's kubelet back after Fail: it posts Ready status at
// once (the NodeReady event included), renews its Lease and resumes its
// 10 s heartbeat, then syncs every pod it has: pods deleted meanwhile are
// stopped and removed, the others report their status again (Ready, which
// the node lifecycle controller had set to False).
func (m *Manager) Recover(node string, cause uint64) error {
	k := m.kubelets[node]
	if k == nil {
		return apierrors.NewNotFound(kinds.Node.GroupResource(), node)
	}
	if !k.failed {
		return fmt.Errorf("node %s has not failed (node fail %s stops its kubelet)", node, node)
	}
	now := k.now()
	k.failed = false
	k.readySince = now
	seq := k.record("", "node/"+node, cause, fmt.Sprintf(
		"node %s recovered after %s: its kubelet reaches the API server again", node, (now-k.failedAt).Duration()), whyRecover)
	if !k.started {
		k.m.markDirty(k)
		return nil
	}
	if obj, ok := m.env.Store.Lookup(kinds.Node, "", node); ok {
		k.postNodeStatus(obj.(*corev1.Node), seq, true)
	}
	// Renew the Lease now and restart the heartbeat; node status was just
	// posted, so the next check is a full period away.
	k.nextStatusCheck = now + m.cfg.NodeStatusUpdateFrequency
	k.heartbeat()

	for _, p := range k.podsByKey() {
		if !p.queued {
			// Nothing happened to this pod while the kubelet was away; its
			// next status report follows from the recovery. A pod that was
			// deleted meanwhile keeps the deletion as its cause.
			p.cause = seq
		}
		k.enqueue(p)
	}
	k.m.markDirty(k)
	return nil
}

const (
	whyFail = "A node fails when its kubelet can no longer reach the API server; the control plane cannot tell a " +
		"dead machine from a cut network, so it only notices the silence."
	whyRecover = "A kubelet that reaches the API server again reports its node Ready and reconciles its pods with " +
		"what the API now says, including pods deleted while it was away."
)
