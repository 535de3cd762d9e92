package interpodaffinity

import (
	"maps"
	"math"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
)

// Name is the plugin's name.
const Name = "InterPodAffinity"

// Filter reasons, in kube's words (interpodaffinity/filtering.go).
const (
	// ErrReasonAffinityRulesNotMatch: no pod the incoming pod requires is in
	// the node's domain. UnschedulableAndUnresolvable.
	ErrReasonAffinityRulesNotMatch = "node(s) didn't match pod affinity rules"
	// ErrReasonAntiAffinityRulesNotMatch: a pod the incoming pod must avoid
	// is in the node's domain. Unschedulable (evicting it would help).
	ErrReasonAntiAffinityRulesNotMatch = "node(s) didn't match pod anti-affinity rules"
	// ErrReasonExistingAntiAffinityRulesNotMatch: an existing pod's
	// required anti-affinity matches the incoming pod in the node's domain.
	// Unschedulable.
	ErrReasonExistingAntiAffinityRulesNotMatch = "node(s) didn't satisfy existing pods anti-affinity rules"
)

// DefaultHardPodAffinityWeight is kube's hardPodAffinityWeight default: the
// score weight an existing pod's required affinity term gives nodes in its
// domain for pods it matches.
const DefaultHardPodAffinityWeight = 1

var (
	statusAffinity     = framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonAffinityRulesNotMatch)
	statusAnti         = framework.NewStatus(framework.Unschedulable, ErrReasonAntiAffinityRulesNotMatch)
	statusExistingAnti = framework.NewStatus(framework.Unschedulable, ErrReasonExistingAntiAffinityRulesNotMatch)
	statusSkip         = framework.NewStatus(framework.Skip)
)

// InterPodAffinity filters and scores nodes by pod affinity and
// anti-affinity.
type InterPodAffinity struct {
	// HardPodAffinityWeight; use DefaultHardPodAffinityWeight (0 turns the
	// symmetric scoring of required affinity off, as in kube).
	HardPodAffinityWeight int32
}

var (
	_ framework.PreFilterPlugin   = (*InterPodAffinity)(nil)
	_ framework.FilterPlugin      = (*InterPodAffinity)(nil)
	_ framework.PreScorePlugin    = (*InterPodAffinity)(nil)
	_ framework.ScorePlugin       = (*InterPodAffinity)(nil)
	_ framework.ScoreExtensions   = (*InterPodAffinity)(nil)
	_ framework.EnqueueExtensions = (*InterPodAffinity)(nil)
)

// Name implements framework.Plugin.
func (*InterPodAffinity) Name() string { return Name }

// Term is a pod affinity term resolved for matching: the namespaces it
// looks in and its parsed label selector.
type Term struct {
	Sel         framework.PodSelector
	TopologyKey string
	Weight      int32
	key         string // namespaces and selector, for the cache's query key
}

// namespaceResolver lists namespaces at most once per cycle.
type namespaceResolver struct {
	lister framework.ClusterLister
	list   []framework.NamespaceInfo
	done   bool
}

func (r *namespaceResolver) namespaces() []framework.NamespaceInfo {
	if !r.done && r.lister != nil {
		r.list, r.done = r.lister.Namespaces(), true
	}
	return r.list
}

func (r *namespaceResolver) labelsOf(ns string) labels.Set {
	for _, n := range r.namespaces() {
		if n.Name == ns {
			return n.Labels
		}
	}
	return nil
}

// ResolveTerm resolves a term of a pod in namespace podNS: the namespaces
// are podNS when both namespaces and namespaceSelector are empty;
// otherwise the listed ones plus those the namespaceSelector matches ({}
// matches all). ok is false for an unparsable selector (matches nothing).
func ResolveTerm(podNS string, t *corev1.PodAffinityTerm, weight int32, nsList func() []framework.NamespaceInfo) (Term, bool) {
	sel, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
	if err != nil {
		return Term{}, false
	}
	out := Term{TopologyKey: t.TopologyKey, Weight: weight, Sel: framework.PodSelector{Selector: sel}}
	var b strings.Builder
	switch {
	case len(t.Namespaces) == 0 && t.NamespaceSelector == nil:
		out.Sel.Namespaces = map[string]struct{}{podNS: {}}
		b.WriteString(podNS)
	default:
		out.Sel.Namespaces = map[string]struct{}{}
		for _, ns := range t.Namespaces {
			out.Sel.Namespaces[ns] = struct{}{}
		}
		if t.NamespaceSelector != nil {
			nsSel, err := metav1.LabelSelectorAsSelector(t.NamespaceSelector)
			if err != nil {
				break
			}
			if nsSel.Empty() {
				out.Sel.AllNamespaces = true
				b.WriteString("*")
				break
			}
			for _, ns := range nsList() {
				if nsSel.Matches(labels.Set(ns.Labels)) {
					out.Sel.Namespaces[ns.Name] = struct{}{}
				}
			}
		}
		if !out.Sel.AllNamespaces {
			names := make([]string, 0, len(out.Sel.Namespaces))
			for ns := range out.Sel.Namespaces {
				names = append(names, ns)
			}
			sort.Strings(names)
			b.WriteString(strings.Join(names, ","))
		}
	}
	b.WriteString("|")
	b.Write(framework.LabelSelectorKey(nil, t.LabelSelector))
	out.key = b.String()
	return out, true
}

// existingTermMatches is kube's AffinityTerm.Matches for an existing pod's
// term against the incoming pod: the pod's namespace is one the term names
// (its owner's by default) or one its namespaceSelector matches, and its
// labels match.
func existingTermMatches(et *framework.ExistingTerm, pod *corev1.Pod, nsr *namespaceResolver) bool {
	t := &et.Term
	inNS := false
	if len(t.Namespaces) == 0 && t.NamespaceSelector == nil {
		inNS = pod.Namespace == et.Namespace
	} else {
		for _, ns := range t.Namespaces {
			if ns == pod.Namespace {
				inNS = true
				break
			}
		}
		if !inNS && t.NamespaceSelector != nil {
			if s, err := metav1.LabelSelectorAsSelector(t.NamespaceSelector); err == nil {
				inNS = s.Empty() || s.Matches(nsr.labelsOf(pod.Namespace))
			}
		}
	}
	return inNS && et.Selector.Matches(labels.Set(pod.Labels))
}

var preFilterStateKey = framework.NewStateKey("PreFilter" + Name)

type preFilterState struct {
	affinity       []*framework.DomainCounts // per required affinity term: pods matching all terms
	anyAffinityPod bool
	selfAffine     bool
	anti           []*framework.DomainCounts // per required anti-affinity term
	existingAnti   []*framework.DomainCounts // existing pods' required anti-affinity terms matching the pod

	// What AddPod and RemovePod need: the pod's resolved terms (aligned
	// with affinity and anti) and its namespace's labels.
	affinityTerms, antiTerms []Term
	nsr                      *namespaceResolver

	// The changes AddPod and RemovePod made, on top of the counts (which
	// are the cache's live indexes and must not change): per affinity and
	// anti entry, domain value -> change; for existing pods' anti-affinity,
	// topology key -> value -> change (kube counts those per topology pair,
	// whatever the term). All nil until changed is set.
	changed           bool
	affinityDelta     []map[string]int
	antiDelta         []map[string]int
	existingAntiDelta map[string]map[string]int
}

// Clone implements framework.StateData: the counts are shared (read-only),
// the changes copied.
func (s *preFilterState) Clone() framework.StateData {
	c := *s
	if s.changed {
		c.affinityDelta = cloneDeltas(s.affinityDelta)
		c.antiDelta = cloneDeltas(s.antiDelta)
		c.existingAntiDelta = make(map[string]map[string]int, len(s.existingAntiDelta))
		for k, m := range s.existingAntiDelta {
			c.existingAntiDelta[k] = maps.Clone(m)
		}
	}
	return &c
}

func cloneDeltas(in []map[string]int) []map[string]int {
	out := make([]map[string]int, len(in))
	for i, m := range in {
		out[i] = maps.Clone(m)
	}
	return out
}

func addDelta(m map[string]int, v string, d int) map[string]int {
	if m == nil {
		m = map[string]int{}
	}
	if m[v] += d; m[v] == 0 {
		delete(m, v)
	}
	return m
}

// updateWithPod is kube's preFilterState.updateWithPod: the pod p on node
// counts mult (+1 added, -1 removed) for the existing-anti-affinity
// domains of its own required anti-affinity terms that match the incoming
// pod, for the affinity domains if it matches all the incoming pod's
// required affinity terms, and for the anti-affinity domains of each of the
// incoming pod's required anti-affinity terms it matches.
func (s *preFilterState) updateWithPod(incoming, p *corev1.Pod, node *corev1.Node, mult int) {
	if node == nil {
		return
	}
	if !s.changed {
		s.changed = true
		s.affinityDelta = make([]map[string]int, len(s.affinity))
		s.antiDelta = make([]map[string]int, len(s.anti))
		s.existingAntiDelta = map[string]map[string]int{}
	}
	nl := node.Labels
	if a := p.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
		for i := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			t := &a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[i]
			v, ok := nl[t.TopologyKey]
			if !ok {
				continue
			}
			sel, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
			if err != nil {
				continue
			}
			et := framework.ExistingTerm{Kind: framework.RequiredAntiAffinity, Namespace: p.Namespace, Term: *t, Selector: sel}
			if existingTermMatches(&et, incoming, s.nsr) {
				s.existingAntiDelta[t.TopologyKey] = addDelta(s.existingAntiDelta[t.TopologyKey], v, mult)
			}
		}
	}
	if len(s.affinityTerms) > 0 {
		all := true
		for i := range s.affinityTerms {
			if !s.affinityTerms[i].Sel.Matches(p) {
				all = false
				break
			}
		}
		if all {
			for i := range s.affinityTerms {
				if v, ok := nl[s.affinityTerms[i].TopologyKey]; ok {
					s.affinityDelta[i] = addDelta(s.affinityDelta[i], v, mult)
				}
			}
			s.anyAffinityPod = s.anyAffinityPodWithDeltas()
		}
	}
	for i := range s.antiTerms {
		if v, ok := nl[s.antiTerms[i].TopologyKey]; ok && s.antiTerms[i].Sel.Matches(p) {
			s.antiDelta[i] = addDelta(s.antiDelta[i], v, mult)
		}
	}
}

// anyAffinityPodWithDeltas reports whether any domain of any affinity term
// still has a matching pod once the changes are counted (kube: the
// affinity counts are not empty).
func (s *preFilterState) anyAffinityPodWithDeltas() bool {
	for i, c := range s.affinity {
		d := s.affinityDelta[i]
		for v, n := range c.All() {
			if n+d[v] > 0 {
				return true
			}
		}
		for v, n := range d {
			if c.Count(v) == 0 && n > 0 {
				return true
			}
		}
	}
	return false
}

// PreFilterExtensions implements framework.PreFilterPlugin.
func (pl *InterPodAffinity) PreFilterExtensions() framework.PreFilterExtensions { return pl }

// AddPod implements framework.PreFilterExtensions: the state counts the
// pod as if it ran on the node.
func (*InterPodAffinity) AddPod(state *framework.CycleState, pod, added *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	s, _ := state.Read(preFilterStateKey).(*preFilterState)
	if s == nil {
		return framework.NewStatus(framework.Error, "PreFilter state of "+Name+" missing")
	}
	s.updateWithPod(pod.Pod, added.Pod, node.Node(), 1)
	return nil
}

// RemovePod implements framework.PreFilterExtensions: the state no longer
// counts the pod on the node.
func (*InterPodAffinity) RemovePod(state *framework.CycleState, pod, removed *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	s, _ := state.Read(preFilterStateKey).(*preFilterState)
	if s == nil {
		return framework.NewStatus(framework.Error, "PreFilter state of "+Name+" missing")
	}
	s.updateWithPod(pod.Pod, removed.Pod, node.Node(), -1)
	return nil
}

func queryKey(terms []Term, topologyKey string) string {
	var b strings.Builder
	b.WriteString("ipa")
	for i := range terms {
		b.WriteString("\x00")
		b.WriteString(terms[i].key)
	}
	b.WriteString("\x00@")
	b.WriteString(topologyKey)
	return b.String()
}

func count(l framework.ClusterLister, terms []Term, topologyKey string) *framework.DomainCounts {
	q := framework.CountQuery{Key: queryKey(terms, topologyKey), TopologyKey: topologyKey}
	q.Terms = make([]framework.PodSelector, len(terms))
	for i := range terms {
		q.Terms[i] = terms[i].Sel
	}
	return l.TopologyCounts(&q)
}

// PreFilter implements framework.PreFilterPlugin: it works out, per
// topology domain, the pods the incoming pod requires or must avoid and
// the existing pods whose anti-affinity forbids it. Skip when there are
// none of either.
func (pl *InterPodAffinity) PreFilter(state *framework.CycleState, pi *framework.PodInfo) (*framework.PreFilterResult, *framework.Status) {
	pod := pi.Pod
	l := state.Cluster
	if l == nil {
		return nil, framework.NewStatus(framework.Error, Name+": no cluster lister")
	}
	var req, anti []corev1.PodAffinityTerm
	if a := pod.Spec.Affinity; a != nil {
		if a.PodAffinity != nil {
			req = a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution
		}
		if a.PodAntiAffinity != nil {
			anti = a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
		}
	}
	existing := l.ExistingTerms()
	if len(existing) == 0 && len(req) == 0 && len(anti) == 0 {
		return nil, statusSkip
	}
	nsr := &namespaceResolver{lister: l}
	s := &preFilterState{nsr: nsr}
	for _, et := range existing {
		if et.Kind == framework.RequiredAntiAffinity && existingTermMatches(et, pod, nsr) {
			s.existingAnti = append(s.existingAnti, et.Counts)
		}
	}
	if len(s.existingAnti) == 0 && len(req) == 0 && len(anti) == 0 {
		return nil, statusSkip
	}
	if len(req) > 0 {
		terms := make([]Term, 0, len(req))
		for i := range req {
			t, ok := ResolveTerm(pod.Namespace, &req[i], 0, nsr.namespaces)
			if !ok {
				return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonAffinityRulesNotMatch)
			}
			terms = append(terms, t)
		}
		s.selfAffine = true
		s.affinityTerms = terms
		for i := range terms {
			c := count(l, terms, terms[i].TopologyKey)
			s.affinity = append(s.affinity, c)
			if c.Len() > 0 {
				s.anyAffinityPod = true
			}
			if !terms[i].Sel.Matches(pod) {
				s.selfAffine = false
			}
		}
	}
	for i := range anti {
		t, ok := ResolveTerm(pod.Namespace, &anti[i], 0, nsr.namespaces)
		if !ok {
			continue
		}
		s.anti = append(s.anti, count(l, []Term{t}, t.TopologyKey))
		s.antiTerms = append(s.antiTerms, t)
	}
	state.Write(preFilterStateKey, s)
	return nil, nil
}

// Filter implements framework.FilterPlugin, in kube's order: the pod's
// required affinity, its required anti-affinity, then existing pods'
// anti-affinity.
func (*InterPodAffinity) Filter(state *framework.CycleState, _ *framework.PodInfo, ni *framework.NodeInfo) *framework.Status {
	s, _ := state.Read(preFilterStateKey).(*preFilterState)
	if s == nil {
		return framework.NewStatus(framework.Error, "PreFilter state of "+Name+" missing")
	}
	if s.changed {
		return s.filterWithDeltas(ni)
	}
	if len(s.affinity) > 0 {
		podsExist := true
		for _, c := range s.affinity {
			n, ok := c.ForNode(ni)
			if !ok {
				return statusAffinity // every topology key must be on the node
			}
			if n <= 0 {
				podsExist = false
			}
		}
		// The first pod of a group affine to itself may go anywhere.
		if !podsExist && (s.anyAffinityPod || !s.selfAffine) {
			return statusAffinity
		}
	}
	for _, c := range s.anti {
		if n, _ := c.ForNode(ni); n > 0 {
			return statusAnti
		}
	}
	for _, c := range s.existingAnti {
		if n, _ := c.ForNode(ni); n > 0 {
			return statusExistingAnti
		}
	}
	return nil
}

// filterWithDeltas is Filter once AddPod or RemovePod changed the state:
// each count plus its change (a preemption dry run, nominated pods).
func (s *preFilterState) filterWithDeltas(ni *framework.NodeInfo) *framework.Status {
	nl := ni.Node().Labels
	if len(s.affinity) > 0 {
		podsExist := true
		for i, c := range s.affinity {
			n, ok := c.ForNode(ni)
			if !ok {
				return statusAffinity
			}
			if n+s.affinityDelta[i][nl[c.Key]] <= 0 {
				podsExist = false
			}
		}
		if !podsExist && (s.anyAffinityPod || !s.selfAffine) {
			return statusAffinity
		}
	}
	for i, c := range s.anti {
		if n, ok := c.ForNode(ni); ok && n+s.antiDelta[i][nl[c.Key]] > 0 {
			return statusAnti
		}
	}
	// Existing pods' anti-affinity: per topology key of the node, the
	// terms' counts in its domain plus the change there (the order of the
	// keys does not matter: any positive total rejects).
	for _, c := range s.existingAnti {
		if _, ok := s.existingAntiDelta[c.Key]; ok {
			continue
		}
		if n, _ := c.ForNode(ni); n > 0 {
			return statusExistingAnti
		}
	}
	for key, d := range s.existingAntiDelta {
		v, ok := nl[key]
		if !ok {
			continue
		}
		total := d[v]
		for _, c := range s.existingAnti {
			if c.Key == key {
				n, _ := c.ForNode(ni)
				total += n
			}
		}
		if total > 0 {
			return statusExistingAnti
		}
	}
	return nil
}

var preScoreStateKey = framework.NewStateKey("PreScore" + Name)

// topologyScore is a topology key and the score per value of it.
type topologyScore struct {
	key    string
	scores map[string]int64
}

type preScoreState struct {
	scores []topologyScore
}

func (s *preScoreState) add(key string, dc *framework.DomainCounts, mult int64) {
	if mult == 0 || dc.Len() == 0 {
		return
	}
	var m map[string]int64
	for i := range s.scores {
		if s.scores[i].key == key {
			m = s.scores[i].scores
		}
	}
	if m == nil {
		m = map[string]int64{}
		s.scores = append(s.scores, topologyScore{key: key, scores: m})
	}
	for v, n := range dc.All() {
		m[v] += mult * int64(n)
	}
}

// PreScore implements framework.PreScorePlugin: per topology domain, the
// sum of the weights of the incoming pod's preferred terms that existing
// pods there match (anti-affinity subtracts), plus the weights of existing
// pods' preferred terms that the incoming pod matches, plus
// hardPodAffinityWeight for each existing pod whose required affinity it
// matches. Skip when nothing can score.
func (pl *InterPodAffinity) PreScore(state *framework.CycleState, pi *framework.PodInfo, _ []*framework.NodeInfo) *framework.Status {
	pod := pi.Pod
	l := state.Cluster
	if l == nil {
		return framework.NewStatus(framework.Error, Name+": no cluster lister")
	}
	a := pod.Spec.Affinity
	if len(l.ExistingTerms()) == 0 && (a == nil || a.PodAffinity == nil && a.PodAntiAffinity == nil) {
		return statusSkip
	}
	nsr := &namespaceResolver{lister: l}
	s := &preScoreState{}
	if a != nil {
		if a.PodAffinity != nil {
			for _, w := range a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
				if t, ok := ResolveTerm(pod.Namespace, &w.PodAffinityTerm, w.Weight, nsr.namespaces); ok {
					s.add(t.TopologyKey, count(l, []Term{t}, t.TopologyKey), int64(w.Weight))
				}
			}
		}
		if a.PodAntiAffinity != nil {
			for _, w := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
				if t, ok := ResolveTerm(pod.Namespace, &w.PodAffinityTerm, w.Weight, nsr.namespaces); ok {
					s.add(t.TopologyKey, count(l, []Term{t}, t.TopologyKey), -int64(w.Weight))
				}
			}
		}
	}
	for _, et := range l.ExistingTerms() {
		var mult int64
		switch et.Kind {
		case framework.RequiredAffinity:
			mult = int64(pl.HardPodAffinityWeight)
		case framework.PreferredAffinity:
			mult = int64(et.Weight)
		case framework.PreferredAntiAffinity:
			mult = -int64(et.Weight)
		}
		if mult != 0 && existingTermMatches(et, pod, nsr) {
			s.add(et.Term.TopologyKey, et.Counts, mult)
		}
	}
	if len(s.scores) == 0 {
		return statusSkip
	}
	state.Write(preScoreStateKey, s)
	return nil
}

// Score implements framework.ScorePlugin: the sum of the node's domains'
// scores (may be negative before normalisation).
func (*InterPodAffinity) Score(state *framework.CycleState, _ *framework.PodInfo, ni *framework.NodeInfo) (int64, *framework.Status) {
	s, _ := state.Read(preScoreStateKey).(*preScoreState)
	if s == nil {
		return 0, framework.NewStatus(framework.Error, "PreScore state of "+Name+" missing")
	}
	nl := ni.Node().Labels
	var score int64
	for i := range s.scores {
		if v, ok := nl[s.scores[i].key]; ok {
			score += s.scores[i].scores[v]
		}
	}
	return score, nil
}

// ScoreExtensions implements framework.ScorePlugin.
func (pl *InterPodAffinity) ScoreExtensions() framework.ScoreExtensions { return pl }

// NormalizeScore implements framework.ScoreExtensions: min–max,
// 100 × (s − min) / (max − min), all 0 when max == min.
func (*InterPodAffinity) NormalizeScore(_ *framework.CycleState, _ *framework.PodInfo, scores framework.NodeScoreList) *framework.Status {
	NormalizeMinMax(scores)
	return nil
}

// NormalizeMinMax is the plugin's normalisation, exported for tests.
func NormalizeMinMax(scores framework.NodeScoreList) {
	if len(scores) == 0 {
		return
	}
	var lo, hi int64 = math.MaxInt64, math.MinInt64
	for _, s := range scores {
		lo, hi = min(lo, s.Score), max(hi, s.Score)
	}
	diff := hi - lo
	for i := range scores {
		var f float64
		if diff > 0 {
			f = float64(framework.MaxNodeScore) * (float64(scores[i].Score-lo) / float64(diff))
		}
		scores[i].Score = int64(f)
	}
}

// EventsToRegister implements framework.EnqueueExtensions: a pod added,
// relabelled or deleted, a node added or relabelled (kube's plugin.go).
func (*InterPodAffinity) EventsToRegister() []framework.ClusterEventWithHint {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.Pod, ActionType: framework.Add | framework.UpdatePodLabel | framework.Delete}},
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeLabel}},
	}
}
