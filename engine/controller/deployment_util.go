package controller

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Annotations and condition reasons of the Deployment controller
// (pkg/controller/deployment/util/deployment_util.go).
const (
	RevisionAnnotation        = "deployment.kubernetes.io/revision"
	RevisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"
	DesiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	MaxReplicasAnnotation     = "deployment.kubernetes.io/max-replicas"

	ReplicaSetUpdatedReason    = "ReplicaSetUpdated"
	FailedRSCreateReason       = "ReplicaSetCreateError"
	NewReplicaSetReason        = "NewReplicaSetCreated"
	FoundNewRSReason           = "FoundNewReplicaSet"
	NewRSAvailableReason       = "NewReplicaSetAvailable"
	TimedOutReason             = "ProgressDeadlineExceeded"
	PausedDeployReason         = "DeploymentPaused"
	ResumedDeployReason        = "DeploymentResumed"
	MinimumReplicasAvailable   = "MinimumReplicasAvailable"
	MinimumReplicasUnavailable = "MinimumReplicasUnavailable"

	// maxRevHistoryLengthInChars bounds the revision-history annotation
	// (sync.go).
	maxRevHistoryLengthInChars = 2000
)

// ResolveFenceposts resolves maxSurge (rounded up) and maxUnavailable
// (rounded down) against the desired replicas; if both come out 0,
// maxUnavailable becomes 1 so that a rollout can always proceed.
func ResolveFenceposts(maxSurge, maxUnavailable *intstr.IntOrString, desired int32) (int32, int32, error) {
	surge, err := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(maxSurge, intstr.FromInt32(0)), int(desired), true)
	if err != nil {
		return 0, 0, err
	}
	unavailable, err := intstr.GetScaledValueFromIntOrPercent(intstr.ValueOrDefault(maxUnavailable, intstr.FromInt32(0)), int(desired), false)
	if err != nil {
		return 0, 0, err
	}
	if surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	return int32(surge), int32(unavailable), nil
}

func isRollingUpdate(d *appsv1.Deployment) bool {
	return d.Spec.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType
}

func replicas(p *int32) int32 {
	if p == nil {
		return 1 // the API default; stored objects always carry it
	}
	return *p
}

func rollingParams(d *appsv1.Deployment) (surge, unavail *intstr.IntOrString) {
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
		return ru.MaxSurge, ru.MaxUnavailable
	}
	// Defaulting fills in 25%/25%; be robust to an undefaulted object.
	q := intstr.FromString("25%")
	return &q, &q
}

// MaxUnavailable is how many pods a rolling update may take below the
// desired count: 0 for Recreate or zero replicas, and never more than the
// replicas.
func MaxUnavailable(d *appsv1.Deployment) int32 {
	if !isRollingUpdate(d) || replicas(d.Spec.Replicas) == 0 {
		return 0
	}
	s, u := rollingParams(d)
	_, maxUnavailable, _ := ResolveFenceposts(s, u, replicas(d.Spec.Replicas))
	return min(maxUnavailable, replicas(d.Spec.Replicas))
}

// MaxSurge is how many pods a rolling update may run above the desired
// count (0 for Recreate).
func MaxSurge(d *appsv1.Deployment) int32 {
	if !isRollingUpdate(d) {
		return 0
	}
	s, u := rollingParams(d)
	maxSurge, _, _ := ResolveFenceposts(s, u, replicas(d.Spec.Replicas))
	return maxSurge
}

// NewRSNewReplicas is the size the new ReplicaSet should have now: for a
// rolling update, its size plus whatever room is left under replicas +
// maxSurge, but never above replicas; for Recreate, replicas.
func NewRSNewReplicas(d *appsv1.Deployment, allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (int32, error) {
	switch d.Spec.Strategy.Type {
	case appsv1.RollingUpdateDeploymentStrategyType:
		s, _ := rollingParams(d)
		maxSurge, err := intstr.GetScaledValueFromIntOrPercent(s, int(replicas(d.Spec.Replicas)), true)
		if err != nil {
			return 0, err
		}
		current := replicaCount(allRSs)
		maxTotal := replicas(d.Spec.Replicas) + int32(maxSurge)
		if current >= maxTotal {
			return replicas(newRS.Spec.Replicas), nil
		}
		up := min(maxTotal-current, replicas(d.Spec.Replicas)-replicas(newRS.Spec.Replicas))
		return replicas(newRS.Spec.Replicas) + up, nil
	case appsv1.RecreateDeploymentStrategyType:
		return replicas(d.Spec.Replicas), nil
	}
	return 0, fmt.Errorf("deployment type %v isn't supported", d.Spec.Strategy.Type)
}

// replicaCount is Σ spec.replicas (GetReplicaCountForReplicaSets).
func replicaCount(rss []*appsv1.ReplicaSet) int32 {
	n := int32(0)
	for _, rs := range rss {
		if rs != nil {
			n += replicas(rs.Spec.Replicas)
		}
	}
	return n
}

func actualReplicaCount(rss []*appsv1.ReplicaSet) (replicas, ready, available int32) {
	for _, rs := range rss {
		if rs != nil {
			replicas += rs.Status.Replicas
			ready += rs.Status.ReadyReplicas
			available += rs.Status.AvailableReplicas
		}
	}
	return
}

// GetProportion is how many of the replicas to add (or, negative, remove)
// go to rs in a proportional scale: its share by the max-replicas
// annotation, bounded by what is left to distribute.
func GetProportion(rs *appsv1.ReplicaSet, d *appsv1.Deployment, toAdd, added int32) int32 {
	if rs == nil || replicas(rs.Spec.Replicas) == 0 || toAdd == 0 || toAdd == added {
		return 0
	}
	fraction := replicaSetFraction(rs, d)
	allowed := toAdd - added
	if toAdd > 0 {
		return min(fraction, allowed)
	}
	return max(fraction, allowed)
}

func replicaSetFraction(rs *appsv1.ReplicaSet, d *appsv1.Deployment) int32 {
	if replicas(d.Spec.Replicas) == 0 {
		return -replicas(rs.Spec.Replicas)
	}
	deploymentReplicas := replicas(d.Spec.Replicas) + MaxSurge(d)
	annotated, ok := intAnnotation(rs, MaxReplicasAnnotation)
	if !ok {
		annotated = d.Status.Replicas
	}
	size := float64(replicas(rs.Spec.Replicas)*deploymentReplicas) / float64(annotated)
	return int32(math.Round(size)) - replicas(rs.Spec.Replicas)
}

func intAnnotation(rs *appsv1.ReplicaSet, key string) (int32, bool) {
	v, ok := rs.Annotations[key]
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, false
	}
	return int32(n), true
}

// IsSaturated reports whether the new ReplicaSet has all the Deployment's
// replicas, knows it, and has them all available.
func IsSaturated(d *appsv1.Deployment, rs *appsv1.ReplicaSet) bool {
	if rs == nil {
		return false
	}
	desired, err := strconv.Atoi(rs.Annotations[DesiredReplicasAnnotation])
	if err != nil {
		return false
	}
	r := replicas(d.Spec.Replicas)
	return replicas(rs.Spec.Replicas) == r && int32(desired) == r && rs.Status.AvailableReplicas == r
}

// EqualIgnoreHash compares two pod templates, ignoring the pod-template-hash
// label: how the controller finds a Deployment's new ReplicaSet. As with
// apimachinery's semantic equality, nil and empty lists and maps are equal.
func EqualIgnoreHash(a, b *corev1.PodTemplateSpec) bool {
	if !equalLabelsIgnoring(a.Labels, b.Labels, appsv1.DefaultDeploymentUniqueLabelKey) {
		return false
	}
	// Shallow copies without labels: compared, never written.
	am, bm := a.ObjectMeta, b.ObjectMeta
	am.Labels, bm.Labels = nil, nil
	return equality.Semantic.DeepEqual(am, bm) && equality.Semantic.DeepEqual(&a.Spec, &b.Spec)
}

func equalLabelsIgnoring(a, b map[string]string, ignore string) bool {
	n := 0
	for k, v := range a {
		if k == ignore {
			continue
		}
		if w, ok := b[k]; !ok || w != v {
			return false
		}
		n++
	}
	m := len(b)
	if _, ok := b[ignore]; ok {
		m--
	}
	return n == m
}

// byCreation sorts ReplicaSets oldest first, by name on ties
// (controller.ReplicaSetsByCreationTimestamp).
func byCreation(rss []*appsv1.ReplicaSet) {
	if len(rss) < 2 {
		return // nothing to order; SliceStable would still allocate
	}
	sort.SliceStable(rss, func(i, j int) bool {
		a, b := rss[i], rss[j]
		if a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.Name < b.Name
		}
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	})
}

// FindNewReplicaSet returns the ReplicaSet whose template equals the
// Deployment's, the oldest if several do.
func FindNewReplicaSet(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	byCreation(rss)
	for _, rs := range rss {
		if EqualIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
			return rs
		}
	}
	return nil
}

// FindOldReplicaSets returns the Deployment's other ReplicaSets.
func FindOldReplicaSets(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	newRS := FindNewReplicaSet(d, rss)
	var old []*appsv1.ReplicaSet
	for _, rs := range rss {
		if newRS != nil && rs.UID == newRS.UID {
			continue
		}
		old = append(old, rs)
	}
	return old
}

func activeReplicaSets(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	var out []*appsv1.ReplicaSet
	for _, rs := range rss {
		if rs != nil && replicas(rs.Spec.Replicas) > 0 {
			out = append(out, rs)
		}
	}
	return out
}

// findActiveOrLatest returns the only active ReplicaSet, or the newest if
// none is active; nil if several are.
func findActiveOrLatest(newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	if newRS == nil && len(oldRSs) == 0 {
		return nil
	}
	sorted := append([]*appsv1.ReplicaSet(nil), oldRSs...)
	byCreation(sorted)
	for i, j := 0, len(sorted)-1; i < j; i, j = i+1, j-1 {
		sorted[i], sorted[j] = sorted[j], sorted[i]
	}
	active := activeReplicaSets(append(sorted, newRS))
	switch len(active) {
	case 0:
		if newRS != nil {
			return newRS
		}
		return sorted[0]
	case 1:
		return active[0]
	}
	return nil
}

// Revision is a ReplicaSet's revision annotation (0 if none).
func Revision(obj metav1.Object) int64 {
	v, ok := obj.GetAnnotations()[RevisionAnnotation]
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0
	}
	return n
}

func maxRevision(rss []*appsv1.ReplicaSet) int64 {
	m := int64(0)
	for _, rs := range rss {
		m = max(m, Revision(rs))
	}
	return m
}

var annotationsToSkip = map[string]bool{
	corev1.LastAppliedConfigAnnotation: true,
	RevisionAnnotation:                 true,
	RevisionHistoryAnnotation:          true,
	DesiredReplicasAnnotation:          true,
	MaxReplicasAnnotation:              true,
	appsv1.DeprecatedRollbackTo:        true,
}

// SetNewReplicaSetAnnotations copies the Deployment's annotations to the new
// ReplicaSet (all but kubectl's last-applied and the controller's own),
// raises its revision to newRevision if lower, keeping the old one in
// revision-history (a rollback), and for a ReplicaSet about to be created
// sets desired-replicas and max-replicas. It reports whether anything
// changed.
//
// It changes no annotation map in place: the first change gives rs a copy
// of its map (copy on write), so rs may share a stored ReplicaSet's. Every
// sync of a Deployment tries its annotations on its new ReplicaSet's,
// and almost always nothing changes: sharing them costs nothing, where a
// scratch copy cost a map clear and copy a sync.
func SetNewReplicaSetAnnotations(d *appsv1.Deployment, rs *appsv1.ReplicaSet, newRevision string, exists bool) bool {
	changed := false
	w := annotationWriter{rs: rs}
	for _, k := range sortedKeys(d.Annotations) {
		v := d.Annotations[k]
		if annotationsToSkip[k] || rs.Annotations[k] == v {
			continue
		}
		w.set(k, v)
		changed = true
	}
	oldRevision, had := rs.Annotations[RevisionAnnotation]
	oldInt, err := strconv.ParseInt(oldRevision, 10, 64)
	if err != nil {
		if oldRevision != "" {
			return false
		}
		oldInt = 0
	}
	newInt, err := strconv.ParseInt(newRevision, 10, 64)
	if err != nil {
		return false
	}
	if oldInt < newInt {
		w.set(RevisionAnnotation, newRevision)
		changed = true
	}
	if had && oldInt < newInt {
		history := rs.Annotations[RevisionHistoryAnnotation]
		olds := strings.Split(history, ",")
		if len(olds[0]) == 0 {
			w.set(RevisionHistoryAnnotation, oldRevision)
		} else {
			total := len(history) + len(oldRevision) + 1
			start := 0
			for total > maxRevHistoryLengthInChars && start < len(olds) {
				total -= len(olds[start]) + 1
				start++
			}
			if total <= maxRevHistoryLengthInChars {
				w.set(RevisionHistoryAnnotation, strings.Join(append(olds[start:], oldRevision), ","))
			}
		}
	}
	if !exists && setReplicasAnnotations(w.own(), replicas(d.Spec.Replicas), replicas(d.Spec.Replicas)+MaxSurge(d)) {
		changed = true
	}
	return changed
}

// annotationWriter changes a ReplicaSet's annotations on a copy of its
// map, made before the first change (see SetNewReplicaSetAnnotations).
type annotationWriter struct {
	rs     *appsv1.ReplicaSet
	copied bool
}

// own gives rs its own copy of its annotation map, once, and returns rs.
func (w *annotationWriter) own() *appsv1.ReplicaSet {
	if !w.copied {
		a := make(map[string]string, len(w.rs.Annotations)+1)
		maps.Copy(a, w.rs.Annotations)
		w.rs.Annotations, w.copied = a, true
	}
	return w.rs
}

func (w *annotationWriter) set(k, v string) { w.own().Annotations[k] = v }

func setReplicasAnnotations(rs *appsv1.ReplicaSet, desired, maxReplicas int32) bool {
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	changed := false
	if s := strconv.Itoa(int(desired)); rs.Annotations[DesiredReplicasAnnotation] != s {
		rs.Annotations[DesiredReplicasAnnotation] = s
		changed = true
	}
	if s := strconv.Itoa(int(maxReplicas)); rs.Annotations[MaxReplicasAnnotation] != s {
		rs.Annotations[MaxReplicasAnnotation] = s
		changed = true
	}
	return changed
}

func replicasAnnotationsNeedUpdate(rs *appsv1.ReplicaSet, desired, maxReplicas int32) bool {
	return rs.Annotations[DesiredReplicasAnnotation] != strconv.Itoa(int(desired)) ||
		rs.Annotations[MaxReplicasAnnotation] != strconv.Itoa(int(maxReplicas))
}

// DeploymentComplete reports whether every desired replica is updated and
// available, no old pods run, and the latest spec has been observed.
func DeploymentComplete(d *appsv1.Deployment, st *appsv1.DeploymentStatus) bool {
	r := replicas(d.Spec.Replicas)
	return st.UpdatedReplicas == r && st.Replicas == r && st.AvailableReplicas == r &&
		st.ObservedGeneration >= d.Generation
}

// DeploymentProgressing reports whether st shows progress over the
// Deployment's current status: more updated, ready or available pods, or
// fewer old ones.
func DeploymentProgressing(d *appsv1.Deployment, st *appsv1.DeploymentStatus) bool {
	old := d.Status
	return st.UpdatedReplicas > old.UpdatedReplicas ||
		st.Replicas-st.UpdatedReplicas < old.Replicas-old.UpdatedReplicas ||
		st.ReadyReplicas > old.ReadyReplicas ||
		st.AvailableReplicas > old.AvailableReplicas
}

// HasProgressDeadline reports whether progressDeadlineSeconds is set (and
// not the "never" value MaxInt32).
func HasProgressDeadline(d *appsv1.Deployment) bool {
	return d.Spec.ProgressDeadlineSeconds != nil && *d.Spec.ProgressDeadlineSeconds != math.MaxInt32
}

// DeploymentTimedOut reports whether the Progressing condition in st is
// older than progressDeadlineSeconds at now (or already timed out); a
// completed rollout never times out.
func DeploymentTimedOut(d *appsv1.Deployment, st *appsv1.DeploymentStatus, now metav1.Time) bool {
	if !HasProgressDeadline(d) {
		return false
	}
	c := GetDeploymentCondition(*st, appsv1.DeploymentProgressing)
	if c == nil || c.Reason == NewRSAvailableReason {
		return false
	}
	if c.Reason == TimedOutReason {
		return true
	}
	deadline := c.LastUpdateTime.Add(secondsDuration(*d.Spec.ProgressDeadlineSeconds))
	return deadline.Before(now.Time)
}

// NewDeploymentCondition returns a condition stamped at now.
func NewDeploymentCondition(t appsv1.DeploymentConditionType, status corev1.ConditionStatus, reason, message string, now metav1.Time) *appsv1.DeploymentCondition {
	return &appsv1.DeploymentCondition{Type: t, Status: status, LastUpdateTime: now, LastTransitionTime: now,
		Reason: reason, Message: message}
}

// GetDeploymentCondition returns the condition of type t, or nil. Kube
// returns a copy; this points into st.Conditions, for reading only: a
// condition list is never changed in place (see SetDeploymentCondition),
// so what it points to stays as it is, and a getter allocates nothing.
func GetDeploymentCondition(st appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t {
			return &st.Conditions[i]
		}
	}
	return nil
}

// SetDeploymentCondition puts c in st unless a condition of its type with
// the same status and reason is there; lastTransitionTime is kept if the
// status does not change. The condition moves to the end, as in kube.
//
// It and RemoveDeploymentCondition never change a condition list in place:
// a change makes a new list. So a status may share its list with the
// stored Deployment's (as the Deployment controller's working copy and the
// statuses it computes and writes do) without changing the stored object.
func SetDeploymentCondition(st *appsv1.DeploymentStatus, c appsv1.DeploymentCondition) {
	cur := GetDeploymentCondition(*st, c.Type)
	if cur != nil && cur.Status == c.Status && cur.Reason == c.Reason {
		return
	}
	if cur != nil && cur.Status == c.Status {
		c.LastTransitionTime = cur.LastTransitionTime
	}
	st.Conditions = append(filterCondition(st.Conditions, c.Type), c)
}

// RemoveDeploymentCondition removes the condition of type t.
func RemoveDeploymentCondition(st *appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) {
	st.Conditions = filterCondition(st.Conditions, t)
}

// filterCondition is cs without the conditions of type t (kube's
// filterOutCondition), nil if none is left. If there is none of type t it
// returns cs itself, with its capacity clipped so that an append copies
// it; otherwise a new list, with room for one more.
func filterCondition(cs []appsv1.DeploymentCondition, t appsv1.DeploymentConditionType) []appsv1.DeploymentCondition {
	n := 0
	for i := range cs {
		if cs[i].Type != t {
			n++
		}
	}
	switch {
	case n == 0:
		return nil
	case n == len(cs):
		return slices.Clip(cs)
	}
	out := make([]appsv1.DeploymentCondition, 0, n+1)
	for _, c := range cs {
		if c.Type != t {
			out = append(out, c)
		}
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// deploymentStatusEqual is equality.Semantic.DeepEqual(*a, *b) written out
// for Deployment statuses, without reflection (a sync compares statuses on
// every ReplicaSet status change): nil and empty condition lists are
// equal, pointers compare what they point to, and times compare as
// Semantic compares metav1.Time, by a.UTC() == b.UTC().
// TestDeploymentStatusEqual checks it against Semantic field by field.
func deploymentStatusEqual(a, b *appsv1.DeploymentStatus) bool {
	return a.ObservedGeneration == b.ObservedGeneration && a.Replicas == b.Replicas &&
		a.UpdatedReplicas == b.UpdatedReplicas && a.ReadyReplicas == b.ReadyReplicas &&
		a.AvailableReplicas == b.AvailableReplicas && a.UnavailableReplicas == b.UnavailableReplicas &&
		int32PtrEqual(a.TerminatingReplicas, b.TerminatingReplicas) &&
		int32PtrEqual(a.CollisionCount, b.CollisionCount) &&
		slices.EqualFunc(a.Conditions, b.Conditions, deploymentConditionEqual)
}

func deploymentConditionEqual(a, b appsv1.DeploymentCondition) bool {
	return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message &&
		a.LastUpdateTime.UTC() == b.LastUpdateTime.UTC() && a.LastTransitionTime.UTC() == b.LastTransitionTime.UTC()
}

func int32PtrEqual(a, b *int32) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
