package controller

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/kinds"
)

func (c *cluster) counts() (deploys, rss, pods int) {
	return c.env.Store.Count(kinds.Deployment), c.env.Store.Count(kinds.ReplicaSet), c.env.Store.Count(kinds.Pod)
}

func TestGarbageCollectorBackground(t *testing.T) {
	c := newCluster(t)
	c.create(makeDeployment("api", 3).obj())
	c.run()
	if _, err := c.env.API.Delete(setup, kinds.Deployment, "default", "api", deleteBackground); err != nil {
		t.Fatal(err)
	}
	c.run()
	if d, r, p := c.counts(); d+r+p != 0 {
		t.Errorf("after deleting the Deployment: %d deployments, %d replicasets, %d pods; want none", d, r, p)
	}
}

func TestGarbageCollectorForeground(t *testing.T) {
	c := newCluster(t)
	c.create(makeDeployment("api", 2).obj())
	c.run()
	// Bind the pods so that they terminate gracefully and block.
	for _, o := range c.env.Store.List(kinds.Pod, "default") {
		cp := o.(*corev1.Pod).DeepCopy()
		cp.Spec.NodeName = "n1"
		c.env.Store.Update(cp, 0)
	}
	if _, err := c.env.API.Delete(setup, kinds.Deployment, "default", "api", apiserver.DeleteOptions{Propagation: metav1.DeletePropagationForeground}); err != nil {
		t.Fatal(err)
	}
	c.run()
	d := c.deployment("api")
	if d.DeletionTimestamp == nil || !hasFinalizer(d, metav1.FinalizerDeleteDependents) {
		t.Fatalf("Deployment finalizers %v; want it waiting with foregroundDeletion", d.Finalizers)
	}
	rs := c.replicaSets(d)[0]
	if rs.DeletionTimestamp == nil || !hasFinalizer(rs, metav1.FinalizerDeleteDependents) {
		t.Errorf("ReplicaSet %s not deleted in the foreground: finalizers %v", rs.Name, rs.Finalizers)
	}
	for _, o := range c.env.Store.List(kinds.Pod, "default") {
		if o.GetDeletionTimestamp() == nil {
			t.Errorf("pod %s not being deleted", o.GetName())
		}
	}
	// The kubelet finishes the pods: everything goes, bottom up.
	for _, o := range c.env.Store.List(kinds.Pod, "default") {
		c.env.API.Delete(setup, kinds.Pod, "default", o.GetName(), apiserver.DeleteOptions{GracePeriodSeconds: new(int64)})
	}
	c.run()
	if d, r, p := c.counts(); d+r+p != 0 {
		t.Errorf("after the pods went: %d deployments, %d replicasets, %d pods; want none", d, r, p)
	}
}

func TestGarbageCollectorOrphan(t *testing.T) {
	c := newCluster(t)
	c.create(makeDeployment("api", 2).obj())
	c.run()
	if _, err := c.env.API.Delete(setup, kinds.Deployment, "default", "api", apiserver.DeleteOptions{Propagation: metav1.DeletePropagationOrphan}); err != nil {
		t.Fatal(err)
	}
	c.run()
	d, r, p := c.counts()
	if d != 0 || r != 1 || p != 2 {
		t.Fatalf("after orphan delete: %d deployments, %d replicasets, %d pods; want 0, 1, 2", d, r, p)
	}
	rs := c.env.Store.List(kinds.ReplicaSet, "default")[0].(*appsv1.ReplicaSet)
	if len(rs.OwnerReferences) != 0 {
		t.Errorf("orphaned ReplicaSet still has owners %v", rs.OwnerReferences)
	}
}

func TestGarbageCollectorDanglingAndSolidOwners(t *testing.T) {
	c := newCluster(t)
	owner := c.create(makeReplicaSet("keep", 0)).(*appsv1.ReplicaSet)
	ghost := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "ghost", UID: "uid-ghost"}
	p1 := makePod("orphaned").obj()
	p1.OwnerReferences = []metav1.OwnerReference{ghost}
	p2 := makePod("shared").obj()
	p2.OwnerReferences = []metav1.OwnerReference{ghost, {APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "keep", UID: owner.UID}}
	c.create(p1)
	c.create(p2)
	c.settle(c.gc)
	if _, ok := c.env.Store.Lookup(kinds.Pod, "default", "orphaned"); ok {
		t.Error("a pod whose only owner never existed was kept")
	}
	shared := c.get(kinds.Pod, "default", "shared").(*corev1.Pod)
	if len(shared.OwnerReferences) != 1 || shared.OwnerReferences[0].Name != "keep" {
		t.Errorf("shared pod owners %v; want only keep", shared.OwnerReferences)
	}
}
