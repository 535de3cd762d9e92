package podtopologyspread

import (
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/scheduler/plugins/nodeaffinity"
	"github.com/kubeloop/kubeloop/engine/scheduler/plugins/tainttoleration"
)

// Name is the plugin's name.
const Name = "PodTopologySpread"

// Filter reasons, in kube's words (podtopologyspread/plugin.go).
const (
	// ErrReasonConstraintsNotMatch: placing the pod here would exceed
	// maxSkew. Unschedulable (evicting pods could lower the skew).
	ErrReasonConstraintsNotMatch = "node(s) didn't match pod topology spread constraints"
	// ErrReasonNodeLabelNotMatch: the node lacks a constraint's topology
	// key. UnschedulableAndUnresolvable.
	ErrReasonNodeLabelNotMatch = ErrReasonConstraintsNotMatch + " (missing required label)"
)

var (
	statusSkew         = framework.NewStatus(framework.Unschedulable, ErrReasonConstraintsNotMatch)
	statusMissingLabel = framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonNodeLabelNotMatch)
	statusSkip         = framework.NewStatus(framework.Skip)
)

// SystemDefaultConstraints are kube's defaultingType System constraints,
// applied (without a selector: it comes from the pod's Services and
// controller) to pods that declare none.
var SystemDefaultConstraints = []corev1.TopologySpreadConstraint{
	{TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.ScheduleAnyway, MaxSkew: 3},
	{TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.ScheduleAnyway, MaxSkew: 5},
}

// PodTopologySpread filters and scores nodes by how evenly matching pods
// are spread over topology domains.
type PodTopologySpread struct {
	// NoSystemDefaults turns the system default constraints off
	// (defaultingType List with no defaults).
	NoSystemDefaults bool

	// defaults caches the system default constraints built for a default
	// selector (see defaultConstraints).
	defaults map[defaultsKey][]Constraint
	// parsed caches the pods' own constraints, parsed (see
	// parseConstraints); keyBuf is where their keys are written.
	parsed map[string][]Constraint
	keyBuf []byte
	// preScore is the PreScore state, reused by every cycle: only the
	// cycle's Score and NormalizeScore read it, and cycles run one at a time.
	preScore preScoreState
}

// defaultsKey names the system default constraints of the pods of one
// namespace with one default selector (by its String).
type defaultsKey struct{ namespace, selector string }

// maxDefaults bounds the cached default constraints; past it they are all
// dropped.
const maxDefaults = 4096

var (
	_ framework.PreFilterPlugin   = (*PodTopologySpread)(nil)
	_ framework.FilterPlugin      = (*PodTopologySpread)(nil)
	_ framework.PreScorePlugin    = (*PodTopologySpread)(nil)
	_ framework.ScorePlugin       = (*PodTopologySpread)(nil)
	_ framework.NodesScorer       = (*PodTopologySpread)(nil)
	_ framework.ScoreExtensions   = (*PodTopologySpread)(nil)
	_ framework.NodesNormalizer   = (*PodTopologySpread)(nil)
	_ framework.EnqueueExtensions = (*PodTopologySpread)(nil)
)

// Name implements framework.Plugin.
func (*PodTopologySpread) Name() string { return Name }

// Constraint is a parsed topology spread constraint.
type Constraint struct {
	MaxSkew       int32
	TopologyKey   string
	MinDomains    int32
	Selector      labels.Selector
	HonorAffinity bool // nodeAffinityPolicy Honor (the default)
	HonorTaints   bool // nodeTaintsPolicy Honor (default Ignore)
	query         framework.CountQuery
}

// ParseConstraints keeps the pod's constraints with the given
// whenUnsatisfiable, their selectors parsed and matchLabelKeys merged in
// (key In the pod's value, for keys the pod has).
func ParseConstraints(pod *corev1.Pod, cs []corev1.TopologySpreadConstraint, action corev1.UnsatisfiableConstraintAction) ([]Constraint, error) {
	var out []Constraint
	for i := range cs {
		c := &cs[i]
		if c.WhenUnsatisfiable != action {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
		if err != nil {
			return nil, err
		}
		for _, k := range c.MatchLabelKeys {
			if v, ok := pod.Labels[k]; ok {
				r, err := labels.NewRequirement(k, selection.In, []string{v})
				if err != nil {
					return nil, err
				}
				sel = sel.Add(*r)
			}
		}
		out = append(out, newConstraint(pod, c, sel))
	}
	return out, nil
}

func newConstraint(pod *corev1.Pod, c *corev1.TopologySpreadConstraint, sel labels.Selector) Constraint {
	pc := Constraint{MaxSkew: c.MaxSkew, TopologyKey: c.TopologyKey, MinDomains: 1, Selector: sel,
		HonorAffinity: c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor,
		HonorTaints:   c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor}
	if c.MinDomains != nil {
		pc.MinDomains = *c.MinDomains
	}
	pc.query = framework.CountQuery{
		Key:             "pts\x00" + pod.Namespace + "\x00" + sel.String() + "\x00@" + c.TopologyKey,
		Terms:           []framework.PodSelector{{Namespaces: map[string]struct{}{pod.Namespace: {}}, Selector: sel}},
		TopologyKey:     c.TopologyKey,
		SkipTerminating: true,
	}
	return pc
}

// parseConstraints is ParseConstraints of the pod's own constraints, cached:
// the replicas of a Deployment declare the same constraints and carry the
// same labels, and parsing a selector allocates a dozen objects. The key
// holds everything ParseConstraints reads (the namespace, every field of
// each constraint with the action, and the pod's values of its
// matchLabelKeys), each string length-prefixed, so equal keys mean equal
// inputs and so equal constraints; errors are not cached.
func (pl *PodTopologySpread) parseConstraints(pod *corev1.Pod, action corev1.UnsatisfiableConstraintAction) ([]Constraint, error) {
	b := appendString(pl.keyBuf[:0], pod.Namespace)
	for i := range pod.Spec.TopologySpreadConstraints {
		c := &pod.Spec.TopologySpreadConstraints[i]
		if c.WhenUnsatisfiable != action {
			continue
		}
		b = appendConstraintKey(b, pod, c)
	}
	pl.keyBuf = b
	if cs, ok := pl.parsed[string(b)]; ok { // no allocation for the lookup
		return cs, nil
	}
	cs, err := ParseConstraints(pod, pod.Spec.TopologySpreadConstraints, action)
	if err != nil {
		return nil, err
	}
	if pl.parsed == nil || len(pl.parsed) >= maxDefaults {
		pl.parsed = map[string][]Constraint{}
	}
	pl.parsed[string(b)] = cs
	return cs, nil
}

func appendString(b []byte, s string) []byte {
	return append(append(strconv.AppendInt(b, int64(len(s)), 10), ':'), s...)
}

func appendOptional(b []byte, present bool, v int64) []byte {
	if !present {
		return append(b, '-')
	}
	return strconv.AppendInt(append(b, '+'), v, 10)
}

// appendConstraintKey writes a constraint as parseConstraints keys it.
func appendConstraintKey(b []byte, pod *corev1.Pod, c *corev1.TopologySpreadConstraint) []byte {
	b = append(b, '|')
	b = appendString(b, string(c.WhenUnsatisfiable))
	b = appendString(b, c.TopologyKey)
	b = strconv.AppendInt(append(b, ' '), int64(c.MaxSkew), 10)
	b = appendOptional(b, c.MinDomains != nil, int64(ptrOr(c.MinDomains)))
	for _, p := range []*corev1.NodeInclusionPolicy{c.NodeAffinityPolicy, c.NodeTaintsPolicy} {
		if p == nil {
			b = append(b, '-')
		} else {
			b = appendString(append(b, '+'), string(*p))
		}
	}
	if ls := c.LabelSelector; ls == nil {
		b = append(b, '~')
	} else {
		keys := make([]string, 0, 8)
		for k := range ls.MatchLabels {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = strconv.AppendInt(append(b, '{'), int64(len(keys)), 10)
		for _, k := range keys {
			b = appendString(appendString(b, k), ls.MatchLabels[k])
		}
		b = strconv.AppendInt(append(b, '['), int64(len(ls.MatchExpressions)), 10)
		for _, e := range ls.MatchExpressions {
			b = appendString(appendString(b, e.Key), string(e.Operator))
			b = strconv.AppendInt(append(b, '('), int64(len(e.Values)), 10)
			for _, v := range e.Values {
				b = appendString(b, v)
			}
		}
	}
	b = strconv.AppendInt(append(b, '<'), int64(len(c.MatchLabelKeys)), 10)
	for _, k := range c.MatchLabelKeys {
		b = appendString(b, k)
		v, ok := pod.Labels[k]
		if b = appendOptional(b, ok, 0); ok {
			b = appendString(b, v)
		}
	}
	return b
}

func ptrOr(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// defaultConstraints is kube's buildDefaultConstraints: the system default
// constraints with the pod's default selector (none if nothing selects the
// pod). kube builds them for every pod; here they are built once per
// namespace and selector, as they depend on nothing else (the selector's
// key is its String, which the count queries are keyed by too), and are
// shared read-only by the pods that use them.
func (pl *PodTopologySpread) defaultConstraints(l framework.ClusterLister, pod *corev1.Pod) []Constraint {
	sel, key := l.DefaultSpreadSelector(pod)
	if sel.Empty() {
		return nil
	}
	k := defaultsKey{namespace: pod.Namespace, selector: key}
	if cs, ok := pl.defaults[k]; ok {
		return cs
	}
	cs := make([]Constraint, len(SystemDefaultConstraints))
	for i := range SystemDefaultConstraints {
		cs[i] = newConstraint(pod, &SystemDefaultConstraints[i], sel)
	}
	if pl.defaults == nil || len(pl.defaults) >= maxDefaults {
		pl.defaults = map[defaultsKey][]Constraint{}
	}
	pl.defaults[k] = cs
	return cs
}

// nodeIncluded is kube's matchNodeInclusionPolicies.
func (c *Constraint) nodeIncluded(pod *corev1.Pod, node *corev1.Node, aff *nodeaffinity.RequiredNodeAffinity) bool {
	if c.HonorAffinity && !aff.Match(node) {
		return false
	}
	if c.HonorTaints {
		if _, bad := tainttoleration.UntoleratedTaint(node.Spec.Taints, pod.Spec.Tolerations); bad {
			return false
		}
	}
	return true
}

func hasNodeConstraints(pod *corev1.Pod) bool {
	a := pod.Spec.Affinity
	return len(pod.Spec.NodeSelector) > 0 ||
		a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil
}

func hasAllKeys(nl map[string]string, cs []Constraint) bool {
	for i := range cs {
		if _, ok := nl[cs[i].TopologyKey]; !ok {
			return false
		}
	}
	return true
}

// fastPath reports whether every node with the keys is eligible for every
// constraint, so that the cache's per-domain counts are the answer.
func fastPath(l framework.ClusterLister, pod *corev1.Pod, cs []Constraint) bool {
	all := len(l.NodeInfos())
	nodeCons := hasNodeConstraints(pod)
	for i := range cs {
		if cs[i].HonorTaints || cs[i].HonorAffinity && nodeCons {
			return false
		}
		if _, n := l.Domains(cs[i].TopologyKey); n != all {
			return false
		}
	}
	return true
}

// countMatching counts the pods on a node that a constraint's selector
// matches in the pod's namespace, leaving out terminating pods.
func countMatching(ni *framework.NodeInfo, c *Constraint) int {
	n := 0
	for _, p := range ni.Pods {
		if c.query.Matches(p.Pod) {
			n++
		}
	}
	return n
}

// slowCounts counts per domain node by node: nodes with every key (with
// requireAll; otherwise with the constraint's key) that the constraint's
// inclusion policies admit register their domain.
func slowCounts(l framework.ClusterLister, pod *corev1.Pod, cs []Constraint, requireAll bool, want func(i int, v string) bool) []map[string]int {
	aff := nodeaffinity.GetRequiredNodeAffinity(pod)
	out := make([]map[string]int, len(cs))
	for i := range out {
		out[i] = map[string]int{}
	}
	for _, ni := range l.NodeInfos() {
		node := ni.Node()
		if requireAll && !hasAllKeys(node.Labels, cs) {
			continue
		}
		for i := range cs {
			v, ok := node.Labels[cs[i].TopologyKey]
			if !ok || !cs[i].nodeIncluded(pod, node, &aff) {
				continue
			}
			if want != nil && !want(i, v) {
				continue
			}
			out[i][v] += countMatching(ni, &cs[i])
		}
	}
	return out
}

var preFilterStateKey = framework.NewStateKey("PreFilter" + Name)

type filterConstraint struct {
	Constraint
	counts    *framework.DomainCounts // matching pods per eligible domain (absent: 0)
	minMatch  int
	selfMatch int

	// Set by AddPod and RemovePod (nil until then): the change per domain
	// value on top of counts, which are the cache's live indexes and must
	// not change, and kube's two critical paths over the changed counts.
	delta map[string]int
	paths *criticalPaths
}

type preFilterState struct {
	cs   []filterConstraint
	fast bool // the counts are the cache's (every node eligible)
}

// Clone implements framework.StateData: the counts are shared, the changes
// copied.
func (s *preFilterState) Clone() framework.StateData {
	c := &preFilterState{cs: slices.Clone(s.cs), fast: s.fast}
	for i := range c.cs {
		if p := c.cs[i].paths; p != nil {
			cp := *p
			c.cs[i].paths = &cp
			c.cs[i].delta = maps.Clone(c.cs[i].delta)
		}
	}
	return c
}

// criticalPaths is kube's: the two domains with the fewest matching pods
// (paths[0] always the fewest; paths[1] not always the second fewest once
// updated), and how many domains there are (minDomains compares with it).
type criticalPaths struct {
	p       [2]criticalPath
	domains int
}

type criticalPath struct {
	value string
	num   int
}

// update is kube's criticalPaths.update: a domain's count changed to num.
func (cp *criticalPaths) update(v string, num int) {
	p := &cp.p
	i := -1
	if v == p[0].value {
		i = 0
	} else if v == p[1].value {
		i = 1
	}
	if i >= 0 {
		p[i].num = num
		if p[0].num > p[1].num {
			p[0], p[1] = p[1], p[0]
		}
		return
	}
	if num < p[0].num {
		p[1] = p[0]
		p[0] = criticalPath{v, num}
	} else if num < p[1].num {
		p[1] = criticalPath{v, num}
	}
}

// minMatch is kube's preFilterState.minMatchNum.
func (cp *criticalPaths) minMatch(minDomains int32) int {
	if cp.domains < int(minDomains) {
		return 0
	}
	return cp.p[0].num
}

// initPaths starts the changes of constraint c: its critical paths over
// every eligible domain, visited in value order (kube's order is a map's;
// ties go to the value first in order here).
func (s *preFilterState) initPaths(l framework.ClusterLister, c *filterConstraint) {
	values := make([]string, 0, c.counts.Len())
	for v := range c.counts.All() {
		values = append(values, v)
	}
	if s.fast && l != nil {
		domains, _ := l.Domains(c.TopologyKey)
		for v := range domains {
			if c.counts.Count(v) == 0 {
				values = append(values, v)
			}
		}
	}
	sort.Strings(values)
	cp := &criticalPaths{p: [2]criticalPath{{num: math.MaxInt32}, {num: math.MaxInt32}}, domains: len(values)}
	for _, v := range values {
		cp.update(v, c.counts.Count(v))
	}
	c.paths, c.delta = cp, map[string]int{}
}

// updateWithPod is kube's: the pod p on node counts mult (+1 added, -1
// removed) in the node's domain for each constraint whose selector matches
// it, if it is in the incoming pod's namespace, the node has every
// constraint's key and passes the constraint's node inclusion policies.
func (s *preFilterState) updateWithPod(l framework.ClusterLister, incoming, p *corev1.Pod, node *corev1.Node, mult int) {
	if node == nil || p.Namespace != incoming.Namespace || !hasAllKeys(node.Labels, constraintsOf(s.cs)) {
		return
	}
	aff := nodeaffinity.GetRequiredNodeAffinity(incoming)
	set := labels.Set(p.Labels)
	for i := range s.cs {
		c := &s.cs[i]
		if !c.Selector.Matches(set) || !c.nodeIncluded(incoming, node, &aff) {
			continue
		}
		if c.paths == nil {
			s.initPaths(l, c)
		}
		v := node.Labels[c.TopologyKey]
		c.delta[v] += mult
		c.paths.update(v, c.counts.Count(v)+c.delta[v])
	}
}

func constraintsOf(fcs []filterConstraint) []Constraint {
	out := make([]Constraint, len(fcs))
	for i := range fcs {
		out[i] = fcs[i].Constraint
	}
	return out
}

// PreFilterExtensions implements framework.PreFilterPlugin.
func (pl *PodTopologySpread) PreFilterExtensions() framework.PreFilterExtensions { return pl }

// AddPod implements framework.PreFilterExtensions: the state counts the
// pod as if it ran on the node.
func (*PodTopologySpread) AddPod(state *framework.CycleState, pod, added *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	s, _ := state.Read(preFilterStateKey).(*preFilterState)
	if s == nil {
		return framework.NewStatus(framework.Error, "PreFilter state of "+Name+" missing")
	}
	s.updateWithPod(state.Cluster, pod.Pod, added.Pod, node.Node(), 1)
	return nil
}

// RemovePod implements framework.PreFilterExtensions: the state no longer
// counts the pod on the node.
func (*PodTopologySpread) RemovePod(state *framework.CycleState, pod, removed *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	s, _ := state.Read(preFilterStateKey).(*preFilterState)
	if s == nil {
		return framework.NewStatus(framework.Error, "PreFilter state of "+Name+" missing")
	}
	s.updateWithPod(state.Cluster, pod.Pod, removed.Pod, node.Node(), -1)
	return nil
}

// PreFilter implements framework.PreFilterPlugin: per DoNotSchedule
// constraint, the matching pods per eligible domain and their global
// minimum (0 when fewer domains than minDomains). Skip without such
// constraints.
func (pl *PodTopologySpread) PreFilter(state *framework.CycleState, pi *framework.PodInfo) (*framework.PreFilterResult, *framework.Status) {
	pod := pi.Pod
	if len(pod.Spec.TopologySpreadConstraints) == 0 {
		return nil, statusSkip
	}
	cs, err := pl.parseConstraints(pod, corev1.DoNotSchedule)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	if len(cs) == 0 {
		return nil, statusSkip
	}
	l := state.Cluster
	if l == nil {
		return nil, framework.NewStatus(framework.Error, Name+": no cluster lister")
	}
	s := &preFilterState{cs: make([]filterConstraint, len(cs))}
	if s.fast = fastPath(l, pod, cs); s.fast {
		for i := range cs {
			counts := l.TopologyCounts(&cs[i].query)
			domains, _ := l.Domains(cs[i].TopologyKey)
			s.cs[i] = filterConstraint{Constraint: cs[i], counts: counts, minMatch: minMatch(counts, len(domains), cs[i].MinDomains)}
		}
	} else {
		all := slowCounts(l, pod, cs, true, nil)
		for i := range cs {
			counts := framework.NewDomainCounts(cs[i].TopologyKey, all[i])
			s.cs[i] = filterConstraint{Constraint: cs[i], counts: counts, minMatch: minMatch(counts, len(all[i]), cs[i].MinDomains)}
		}
	}
	for i := range s.cs {
		if s.cs[i].Selector.Matches(labels.Set(pod.Labels)) {
			s.cs[i].selfMatch = 1
		}
	}
	state.Write(preFilterStateKey, s)
	return nil, nil
}

// minMatch is the global minimum of matching pods over the eligible
// domains: counts holds the non-empty ones (or all of them), domains is how
// many there are; fewer than minDomains count as a minimum of 0.
func minMatch(counts *framework.DomainCounts, domains int, minDomains int32) int {
	if domains < int(minDomains) || counts.Len() < domains {
		return 0
	}
	m := math.MaxInt
	for _, n := range counts.All() {
		m = min(m, n)
	}
	if m == math.MaxInt {
		return 0
	}
	return m
}

// Skew is what the filter compares with maxSkew: the matching pods in the
// node's domain, plus selfMatch, minus the global minimum.
func Skew(matchNum, selfMatch, minMatch int) int { return matchNum + selfMatch - minMatch }

// Filter implements framework.FilterPlugin.
func (*PodTopologySpread) Filter(state *framework.CycleState, _ *framework.PodInfo, ni *framework.NodeInfo) *framework.Status {
	s, _ := state.Read(preFilterStateKey).(*preFilterState)
	if s == nil {
		return framework.NewStatus(framework.Error, "PreFilter state of "+Name+" missing")
	}
	for i := range s.cs {
		c := &s.cs[i]
		n, ok := c.counts.ForNode(ni)
		if !ok {
			return statusMissingLabel
		}
		minMatch := c.minMatch
		if c.paths != nil {
			n += c.delta[ni.Node().Labels[c.TopologyKey]]
			minMatch = c.paths.minMatch(c.MinDomains)
		}
		if Skew(n, c.selfMatch, minMatch) > int(c.MaxSkew) {
			return statusSkew
		}
	}
	return nil
}

var preScoreStateKey = framework.NewStateKey("PreScore" + Name)

type scoreConstraint struct {
	Constraint
	counts *framework.DomainCounts
	weight float64
}

type preScoreState struct {
	cs      []scoreConstraint
	ignored map[string]struct{}

	// Scratch space of PreScore, kept for the next cycle.
	sizes  []int
	counts []*framework.DomainCounts
	seen   []bool
	sums   []float64 // ScoreNodes' per-node sums
}

// reset empties the state for a pod with n constraints.
func (s *preScoreState) reset(n int) {
	clear(s.cs) // drop the last pod's selectors and counts
	s.cs = slices.Grow(s.cs[:0], n)[:n]
	s.ignored = nil
	s.sizes = slices.Grow(s.sizes[:0], n)[:n]
	clear(s.sizes)
	s.counts = slices.Grow(s.counts[:0], n)[:n]
	clear(s.counts)
}

// TopologyNormalizingWeight is log(size + 2): the weight of a constraint
// whose key has size domains among the feasible nodes.
func TopologyNormalizingWeight(size int) float64 { return math.Log(float64(size + 2)) }

// ScoreForCount is cnt × weight + (maxSkew − 1).
func ScoreForCount(cnt int64, maxSkew int32, weight float64) float64 {
	return float64(cnt)*weight + float64(maxSkew-1)
}

// PreScore implements framework.PreScorePlugin: the pod's ScheduleAnyway
// constraints, or the system defaults (if the pod declares no constraint
// and a Service or controller selects it); per constraint the domains among
// the feasible nodes and the matching pods in each. Skip without any.
func (pl *PodTopologySpread) PreScore(state *framework.CycleState, pi *framework.PodInfo, filtered []*framework.NodeInfo) *framework.Status {
	pod := pi.Pod
	l := state.Cluster
	if l == nil {
		return framework.NewStatus(framework.Error, Name+": no cluster lister")
	}
	var cs []Constraint
	requireAll := true
	if len(pod.Spec.TopologySpreadConstraints) > 0 {
		var err error
		if cs, err = pl.parseConstraints(pod, corev1.ScheduleAnyway); err != nil {
			return framework.AsStatus(err)
		}
	} else if !pl.NoSystemDefaults {
		requireAll = false
		cs = pl.defaultConstraints(l, pod)
	}
	if len(cs) == 0 {
		return statusSkip
	}
	s := &pl.preScore
	s.reset(len(cs))
	sizes, counts := s.sizes, s.counts
	scored := 0
	if fastPath(l, pod, cs) {
		// Every node has every key: none is ignored, and the domains among
		// the feasible nodes are counted by number.
		scored = len(filtered)
		for i := range cs {
			counts[i] = l.TopologyCounts(&cs[i].query)
			if cs[i].TopologyKey == corev1.LabelHostname {
				continue
			}
			sizes[i] = s.domainsAmong(counts[i], filtered)
		}
	} else {
		values := make([]map[string]struct{}, len(cs))
		for i := range values {
			values[i] = map[string]struct{}{}
		}
		for _, ni := range filtered {
			nl := ni.Node().Labels
			if requireAll && !hasAllKeys(nl, cs) {
				if s.ignored == nil {
					s.ignored = map[string]struct{}{}
				}
				s.ignored[ni.Name()] = struct{}{}
				continue
			}
			scored++
			for i := range cs {
				// Without requireAll (system defaults) a node lacking the key
				// still registers a domain, "", as kube's initPreScoreState does.
				if v, ok := nl[cs[i].TopologyKey]; (ok || !requireAll) && cs[i].TopologyKey != corev1.LabelHostname {
					if _, seen := values[i][v]; !seen {
						values[i][v] = struct{}{}
						sizes[i]++
					}
				}
			}
		}
		all := slowCounts(l, pod, cs, requireAll, func(i int, v string) bool {
			if cs[i].TopologyKey == corev1.LabelHostname {
				return true
			}
			_, ok := values[i][v]
			return ok
		})
		for i := range cs {
			counts[i] = framework.NewDomainCounts(cs[i].TopologyKey, all[i])
		}
	}
	for i := range cs {
		sz := sizes[i]
		if cs[i].TopologyKey == corev1.LabelHostname {
			sz = scored
		}
		s.cs[i] = scoreConstraint{Constraint: cs[i], counts: counts[i], weight: TopologyNormalizingWeight(sz)}
	}
	state.Write(preScoreStateKey, s)
	return nil
}

// domainsAmong counts the distinct domains of the nodes. It stops as soon
// as every domain has been seen: with 3 zones, that is after a few of the
// hundreds of feasible nodes.
func (s *preScoreState) domainsAmong(c *framework.DomainCounts, nodes []*framework.NodeInfo) int {
	if c.NumDomains() > 0 {
		s.seen = slices.Grow(s.seen[:0], c.NumDomains())[:c.NumDomains()]
		seen := s.seen
		clear(seen)
		n := 0
		for _, ni := range nodes {
			if id, ok := c.DomainOf(ni); ok && id >= 0 {
				if !seen[id] {
					seen[id] = true
					n++
				}
				if n == len(seen) {
					return n // no node can add a domain
				}
				continue
			}
			return domainsByLabel(c.Key, nodes)
		}
		return n
	}
	return domainsByLabel(c.Key, nodes)
}

func domainsByLabel(key string, nodes []*framework.NodeInfo) int {
	seen := map[string]struct{}{}
	for _, ni := range nodes {
		if v, ok := ni.Node().Labels[key]; ok {
			seen[v] = struct{}{}
		}
	}
	return len(seen)
}

// Score implements framework.ScorePlugin: Σ over constraints whose key the
// node has of ScoreForCount(matching pods in its domain), rounded; lower is
// better (NormalizeScore reverses it).
func (*PodTopologySpread) Score(state *framework.CycleState, _ *framework.PodInfo, ni *framework.NodeInfo) (int64, *framework.Status) {
	s, _ := state.Read(preScoreStateKey).(*preScoreState)
	if s == nil {
		return 0, statusNoPreScore
	}
	return s.score(ni), nil
}

// ScoreNodes implements framework.NodesScorer: Score on every node, with
// the PreScore state read once.
func (*PodTopologySpread) ScoreNodes(state *framework.CycleState, _ *framework.PodInfo, nodes []*framework.NodeInfo, scores []int64) *framework.Status {
	s, _ := state.Read(preScoreStateKey).(*preScoreState)
	if s == nil {
		if len(nodes) > 0 {
			return statusNoPreScore
		}
		return nil
	}
	if len(s.ignored) > 0 {
		for i, ni := range nodes {
			scores[i] = s.score(ni)
		}
		return nil
	}
	// No node is ignored: sum constraint by constraint, each loop reading
	// one constraint's counts, adding the terms in score's order.
	s.sums = slices.Grow(s.sums[:0], len(nodes))[:len(nodes)]
	sums := s.sums
	clear(sums)
	for ci := range s.cs {
		c := &s.cs[ci]
		counts, maxSkew, weight := c.counts, c.MaxSkew, c.weight
		for i, ni := range nodes {
			if n, ok := counts.ForNode(ni); ok {
				sums[i] += ScoreForCount(int64(n), maxSkew, weight)
			}
		}
	}
	for i, sum := range sums {
		scores[i] = int64(math.Round(sum))
	}
	return nil
}

var statusNoPreScore = framework.NewStatus(framework.Error, "PreScore state of "+Name+" missing")

// score is Score's raw score of one node.
func (s *preScoreState) score(ni *framework.NodeInfo) int64 {
	if isIgnored(s.ignored, ni.Name()) {
		return 0
	}
	var score float64
	for i := range s.cs {
		c := &s.cs[i]
		if n, ok := c.counts.ForNode(ni); ok {
			score += ScoreForCount(int64(n), c.MaxSkew, c.weight)
		}
	}
	return int64(math.Round(score))
}

// ScoreExtensions implements framework.ScorePlugin.
func (pl *PodTopologySpread) ScoreExtensions() framework.ScoreExtensions { return pl }

// NormalizeScore implements framework.ScoreExtensions: nodes without the
// keys get 0; if the highest raw score is 0 every node gets 100; otherwise
// 100 × (max + min − s) / max.
func (*PodTopologySpread) NormalizeScore(state *framework.CycleState, _ *framework.PodInfo, scores framework.NodeScoreList) *framework.Status {
	s, _ := state.Read(preScoreStateKey).(*preScoreState)
	if s == nil {
		return nil
	}
	Normalize(scores, s.ignored)
	return nil
}

// NormalizeNodeScores implements framework.NodesNormalizer: NormalizeScore
// on a plain slice, the ignored nodes found by name only when there are
// any.
func (*PodTopologySpread) NormalizeNodeScores(state *framework.CycleState, _ *framework.PodInfo, nodes []*framework.NodeInfo, scores []int64) *framework.Status {
	s, _ := state.Read(preScoreStateKey).(*preScoreState)
	if s == nil {
		return nil
	}
	var ignored func(i int) bool
	if len(s.ignored) > 0 {
		ignored = func(i int) bool { return isIgnored(s.ignored, nodes[i].Name()) }
	}
	normalize(scores, ignored)
	return nil
}

// isIgnored reports whether node is among the ignored nodes (those lacking
// a key of the pod's own constraints, which score 0). Most pods ignore no
// node, and then the passes over the feasible nodes skip the lookup.
func isIgnored(ignored map[string]struct{}, node string) bool {
	if len(ignored) == 0 {
		return false
	}
	_, ok := ignored[node]
	return ok
}

// Normalize is the plugin's normalisation, exported for tests.
func Normalize(scores framework.NodeScoreList, ignored map[string]struct{}) {
	raw := make([]int64, len(scores))
	for i := range scores {
		raw[i] = scores[i].Score
	}
	var skip func(i int) bool
	if len(ignored) > 0 {
		skip = func(i int) bool { return isIgnored(ignored, scores[i].Name) }
	}
	normalize(raw, skip)
	for i := range scores {
		scores[i].Score = raw[i]
	}
}

// normalize normalises scores in place; ignored (nil when no node is)
// says which scores belong to ignored nodes.
//
// A node's raw score depends only on a few counts (its own matching pods
// and its zone's), so the raw scores of hundreds of nodes take a handful
// of values: when they span fewer values than there are nodes, each value
// is normalised once, into a table, instead of once per node (a division
// each).
func normalize(scores []int64, ignored func(i int) bool) {
	var lo, hi int64 = math.MaxInt64, 0
	for i, s := range scores {
		if ignored != nil && ignored(i) {
			continue
		}
		lo, hi = min(lo, s), max(hi, s)
	}
	scaled := func(s int64) int64 { return framework.MaxNodeScore * (hi + lo - s) / hi }
	var table [64]int64
	useTable := hi != 0 && hi-lo < int64(min(len(table), len(scores)))
	if useTable {
		for v := lo; v <= hi; v++ {
			table[v-lo] = scaled(v)
		}
	}
	for i, s := range scores {
		switch {
		case ignored != nil && ignored(i):
			scores[i] = 0
		case hi == 0:
			scores[i] = framework.MaxNodeScore
		case useTable:
			scores[i] = table[s-lo]
		default:
			scores[i] = scaled(s)
		}
	}
}

// EventsToRegister implements framework.EnqueueExtensions (kube's
// plugin.go): pods added, relabelled or deleted; nodes added, deleted,
// relabelled or tainted.
func (*PodTopologySpread) EventsToRegister() []framework.ClusterEventWithHint {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.Pod, ActionType: framework.Add | framework.UpdatePodLabel | framework.Delete}},
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.Delete | framework.UpdateNodeLabel | framework.UpdateNodeTaint}},
	}
}
