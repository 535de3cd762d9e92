package controller

import (
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/component"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/engine/trace"
)

// GarbageCollectorName is the garbage collector's name in the trace.
const GarbageCollectorName = "garbage-collector"

// GarbageCollectorWorkers is --concurrent-gc-syncs.
const GarbageCollectorWorkers = 20

const (
	whyGCBackground = "An object whose owners are all gone is garbage: the garbage collector deletes it, so deleting a Deployment takes its ReplicaSets and their pods with it."
	whyGCForeground = "In foreground deletion the owner waits, with the foregroundDeletion finalizer, until its blocking dependents are gone; the garbage collector deletes them first."
	whyGCFinalizer  = "The garbage collector removes its finalizer once the owner's dependents are dealt with, and the API server then deletes the owner."
	whyGCOrphan     = "Orphan propagation keeps the dependents: the garbage collector removes their ownerReferences before letting the owner go."
	whyGCDangling   = "An ownerReference to an owner that is gone (or is being deleted in the foreground) is removed while other owners remain."
)

// GarbageCollector deletes objects whose owners are gone and carries out
// foreground and orphan deletion (pkg/controller/garbagecollector). Its
// dependency graph is the store's owner-UID index.
//
// Queue keys are "<resource>/<namespace>/<name>" ("pods/default/api-x").
type GarbageCollector struct {
	worker
}

var _ component.Reactor = (*GarbageCollector)(nil)

// NewGarbageCollector builds the garbage collector.
func NewGarbageCollector(env component.Env) *GarbageCollector {
	EnsureIndexes(env.Store)
	c := &GarbageCollector{worker: newWorker(GarbageCollectorName, env, GarbageCollectorWorkers)}
	c.reconcile = c.Reconcile
	return c
}

func gcKey(k *kinds.Kind, obj metav1.Object) string {
	return k.Resource + "/" + obj.GetNamespace() + "/" + obj.GetName()
}

func parseGCKey(key string) (*kinds.Kind, string, string, bool) {
	parts := strings.SplitN(key, "/", 3)
	if len(parts) != 3 {
		return nil, "", "", false
	}
	k, ok := kinds.Lookup(parts[0])
	return k, parts[1], parts[2], ok
}

// Observe feeds the graph (GraphBuilder): an object that references a
// missing owner, or that is being deleted in the foreground or with orphan
// propagation, is queued; when an object goes, its dependents are queued,
// and so are its owners that are waiting for their dependents.
func (c *GarbageCollector) Observe(ev store.Event) {
	if ev.Kind == kinds.Event {
		return // Events have no owners; skip the most frequent writes
	}
	obj := ev.Object
	switch ev.Type {
	case store.Deleted:
		c.enqueueDependents(obj, ev.Cause)
		c.enqueueDeletingOwners(obj, ev.Cause)
	default:
		if obj.GetDeletionTimestamp() != nil && (hasFinalizer(obj, metav1.FinalizerDeleteDependents) || hasFinalizer(obj, metav1.FinalizerOrphanDependents)) {
			c.queue.Add(gcKey(ev.Kind, obj), ev.Cause)
		}
		refs := obj.GetOwnerReferences()
		if len(refs) == 0 && (ev.Old == nil || len(ev.Old.GetOwnerReferences()) == 0) {
			return
		}
		if ev.Old != nil && ownerRefsEqual(ev.Old.GetOwnerReferences(), refs) && (ev.Old.GetDeletionTimestamp() != nil) == (obj.GetDeletionTimestamp() != nil) {
			return
		}
		for i := range refs {
			if _, state := c.owner(obj, &refs[i]); state != ownerSolid {
				c.queue.Add(gcKey(ev.Kind, obj), ev.Cause)
				break
			}
		}
		if ev.Old != nil {
			// A dependent that dropped or unblocked a reference may be what a
			// foreground deletion was waiting for.
			c.enqueueDeletingOwners(ev.Old, ev.Cause)
		}
	}
}

func (c *GarbageCollector) enqueueDependents(owner store.Object, cause uint64) {
	for _, k := range kinds.All {
		if k == kinds.Event || !c.env.Store.HasIndex(k, IndexOwnerUID) {
			continue
		}
		for _, d := range c.env.Store.ByIndex(k, IndexOwnerUID, string(owner.GetUID())) {
			c.queue.Add(gcKey(k, d), cause)
		}
	}
}

func (c *GarbageCollector) enqueueDeletingOwners(dependent store.Object, cause uint64) {
	refs := dependent.GetOwnerReferences()
	for i := range refs {
		if o, state := c.owner(dependent, &refs[i]); state == ownerWaiting {
			c.queue.Add(gcKey(kinds.Of(o), o), cause)
		}
	}
}

func hasFinalizer(obj metav1.Object, f string) bool {
	for _, x := range obj.GetFinalizers() {
		if x == f {
			return true
		}
	}
	return false
}

func ownerRefsEqual(a, b []metav1.OwnerReference) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].UID != b[i].UID || !boolPtrEqual(a[i].BlockOwnerDeletion, b[i].BlockOwnerDeletion) {
			return false
		}
	}
	return true
}

func boolPtrEqual(a, b *bool) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

type ownerState int

const (
	ownerSolid    ownerState = iota // exists and is not waiting for its dependents
	ownerDangling                   // gone, or a different object now has the name
	ownerWaiting                    // being deleted in the foreground
)

// owner looks up what ref points to.
func (c *GarbageCollector) owner(dependent metav1.Object, ref *metav1.OwnerReference) (store.Object, ownerState) {
	k, ok := kinds.ForGVK(ref.APIVersion, ref.Kind)
	if !ok {
		// Kube cannot resolve the kind either; it keeps retrying and never
		// deletes the dependent. Treat the owner as present.
		return nil, ownerSolid
	}
	ns := dependent.GetNamespace()
	if !k.Namespaced {
		ns = ""
	}
	o, ok := c.env.Store.Lookup(k, ns, ref.Name)
	if !ok || o.GetUID() != ref.UID {
		return nil, ownerDangling
	}
	if o.GetDeletionTimestamp() != nil && hasFinalizer(o, metav1.FinalizerDeleteDependents) {
		return o, ownerWaiting
	}
	return o, ownerSolid
}

// Reconcile processes one object (attemptToDeleteItem, and the orphan
// worker): an owner being deleted in the foreground or with orphan
// propagation has its dependents dealt with and its finalizer removed; a
// dependent whose owners are all gone is deleted.
func (c *GarbageCollector) Reconcile(key string) (Result, error) {
	k, ns, name, ok := parseGCKey(key)
	if !ok {
		panic("garbage collector: bad key " + key)
	}
	obj, ok := c.env.Store.Lookup(k, ns, name)
	if !ok {
		return Result{}, nil
	}
	if obj.GetDeletionTimestamp() != nil {
		switch {
		case hasFinalizer(obj, metav1.FinalizerOrphanDependents):
			return Result{}, c.orphanDependents(k, obj)
		case hasFinalizer(obj, metav1.FinalizerDeleteDependents):
			return Result{}, c.processDeletingDependents(k, obj)
		}
		return Result{}, nil // already being deleted
	}
	refs := obj.GetOwnerReferences()
	if len(refs) == 0 {
		return Result{}, nil
	}
	var solid, dangling, waiting []metav1.OwnerReference
	for i := range refs {
		switch _, st := c.owner(obj, &refs[i]); st {
		case ownerSolid:
			solid = append(solid, refs[i])
		case ownerDangling:
			dangling = append(dangling, refs[i])
		case ownerWaiting:
			waiting = append(waiting, refs[i])
		}
	}
	ref := k.Singular + "/" + name
	switch {
	case len(solid) > 0:
		if len(dangling) == 0 && len(waiting) == 0 {
			return Result{}, nil
		}
		drop := append(append([]metav1.OwnerReference(nil), dangling...), waiting...)
		cp := obj.DeepCopyObject().(kinds.Object)
		cp.SetOwnerReferences(withoutOwners(refs, drop))
		seq := c.record(trace.Maintain, ns, ref, fmt.Sprintf("Removed ownerReferences to %s from %s; its other owners remain", describeRefs(drop), ref), whyGCDangling)
		_, err := c.env.API.Update(c.actor(seq), cp)
		return Result{}, err
	case len(waiting) > 0 && c.hasDependents(obj):
		seq := c.record(trace.Maintain, ns, ref, fmt.Sprintf("Deleting %s in the foreground: its owner %s is being deleted in the foreground", ref, describeRefs(waiting)), whyGCForeground)
		_, err := c.env.API.Delete(c.actor(seq), k, ns, name, apiserver.DeleteOptions{Propagation: metav1.DeletePropagationForeground, ResourceVersion: obj.GetResourceVersion()})
		return Result{}, ignoreNotFound(err)
	}
	policy := metav1.DeletePropagationBackground
	switch {
	case hasFinalizer(obj, metav1.FinalizerOrphanDependents):
		policy = metav1.DeletePropagationOrphan
	case hasFinalizer(obj, metav1.FinalizerDeleteDependents):
		policy = metav1.DeletePropagationForeground
	}
	why, msg := whyGCBackground, fmt.Sprintf("Deleting %s: its owner %s is gone", ref, describeRefs(refs))
	if len(waiting) > 0 {
		why, msg = whyGCForeground, fmt.Sprintf("Deleting %s: its owner %s is being deleted in the foreground", ref, describeRefs(waiting))
	}
	seq := c.record(trace.Maintain, ns, ref, msg, why)
	_, err := c.env.API.Delete(c.actor(seq), k, ns, name, apiserver.DeleteOptions{Propagation: policy, ResourceVersion: obj.GetResourceVersion()})
	return Result{}, ignoreNotFound(err)
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// processDeletingDependents deletes the blocking dependents of an owner in
// foreground deletion, and removes its finalizer when none is left.
func (c *GarbageCollector) processDeletingDependents(k *kinds.Kind, owner store.Object) error {
	blocking := c.blockingDependents(owner)
	if len(blocking) == 0 {
		cp := owner.DeepCopyObject().(kinds.Object)
		cp.SetFinalizers(withoutString(owner.GetFinalizers(), metav1.FinalizerDeleteDependents))
		ref := k.Singular + "/" + owner.GetName()
		seq := c.record(trace.Maintain, owner.GetNamespace(), ref,
			fmt.Sprintf("Removed finalizer %s from %s: no blocking dependents are left", metav1.FinalizerDeleteDependents, ref), whyGCFinalizer)
		_, err := c.env.API.Update(c.actor(seq), cp)
		return ignoreNotFound(err)
	}
	for _, d := range blocking {
		if d.GetDeletionTimestamp() == nil || hasFinalizer(d, metav1.FinalizerDeleteDependents) {
			c.queue.Add(gcKey(kinds.Of(d), d), c.cause)
		}
	}
	return nil
}

// blockingDependents are the dependents whose reference to owner has
// blockOwnerDeletion set.
func (c *GarbageCollector) blockingDependents(owner store.Object) []store.Object {
	var out []store.Object
	c.eachDependent(owner, func(d store.Object) {
		for _, r := range d.GetOwnerReferences() {
			if r.UID == owner.GetUID() && r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion {
				out = append(out, d)
				return
			}
		}
	})
	return out
}

func (c *GarbageCollector) hasDependents(owner store.Object) bool {
	for _, k := range kinds.All {
		if k != kinds.Event && c.env.Store.HasIndex(k, IndexOwnerUID) && c.env.Store.CountByIndex(k, IndexOwnerUID, string(owner.GetUID())) > 0 {
			return true
		}
	}
	return false
}

func (c *GarbageCollector) eachDependent(owner store.Object, fn func(store.Object)) {
	for _, k := range kinds.All {
		if k == kinds.Event || !c.env.Store.HasIndex(k, IndexOwnerUID) {
			continue
		}
		for _, d := range c.env.Store.ByIndex(k, IndexOwnerUID, string(owner.GetUID())) {
			fn(d)
		}
	}
}

// orphanDependents strips the owner from its dependents' ownerReferences,
// then removes the orphan finalizer.
func (c *GarbageCollector) orphanDependents(k *kinds.Kind, owner store.Object) error {
	ownerRef := k.Singular + "/" + owner.GetName()
	var err error
	c.eachDependent(owner, func(d store.Object) {
		if err != nil {
			return
		}
		dk := kinds.Of(d)
		cp := d.DeepCopyObject().(kinds.Object)
		cp.SetOwnerReferences(withoutOwners(d.GetOwnerReferences(), []metav1.OwnerReference{{UID: owner.GetUID()}}))
		ref := dk.Singular + "/" + d.GetName()
		seq := c.record(trace.Maintain, d.GetNamespace(), ref, fmt.Sprintf("Orphaned %s: removed its ownerReference to %s", ref, ownerRef), whyGCOrphan)
		_, err = c.env.API.Update(c.actor(seq), cp)
		err = ignoreNotFound(err)
	})
	if err != nil {
		return err
	}
	cp := owner.DeepCopyObject().(kinds.Object)
	cp.SetFinalizers(withoutString(owner.GetFinalizers(), metav1.FinalizerOrphanDependents))
	seq := c.record(trace.Maintain, owner.GetNamespace(), ownerRef,
		fmt.Sprintf("Removed finalizer %s from %s: its dependents are orphaned", metav1.FinalizerOrphanDependents, ownerRef), whyGCFinalizer)
	_, err = c.env.API.Update(c.actor(seq), cp)
	return ignoreNotFound(err)
}

func withoutOwners(refs, drop []metav1.OwnerReference) []metav1.OwnerReference {
	var out []metav1.OwnerReference
outer:
	for _, r := range refs {
		for _, d := range drop {
			if r.UID == d.UID {
				continue outer
			}
		}
		out = append(out, r)
	}
	return out
}

func withoutString(list []string, s string) []string {
	var out []string
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

func describeRefs(refs []metav1.OwnerReference) string {
	parts := make([]string, len(refs))
	for i, r := range refs {
		parts[i] = strings.ToLower(r.Kind) + "/" + r.Name
	}
	return strings.Join(parts, ", ")
}
