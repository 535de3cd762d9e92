package scheduler

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/scheduler/framework"
	"github.com/kubeloop/kubeloop/engine/sim"
)

// MaxScorePlugins is how many score plugins a NodeRecord can hold.
const MaxScorePlugins = 8

// Explanation limits: the last DefaultAttemptsPerPod attempts of each pod
// are remembered (until the pod is deleted), and per-node detail for the
// most recent DefaultNodeRecords node evaluations cluster-wide. The second
// bound keeps a 5,000-node cluster scheduling 50,000 pods from keeping 25
// million node records: older attempts keep their summary only.
const (
	DefaultAttemptsPerPod = 3
	DefaultNodeRecords    = 1 << 16
)

// NodeRecord is what one attempt did with one node.
type NodeRecord struct {
	Node string
	// Filter is the position (in Decision.Filters) of the filter that
	// rejected the node, or -1 if the node passed every filter.
	Filter int8
	// Scored is set when the node was scored.
	Scored bool
	// Status is the rejecting filter's status.
	Status *framework.Status
	// Raw and Score are each score plugin's raw and normalised score, in
	// Decision.Scorers order.
	Raw   [MaxScorePlugins]int32
	Score [MaxScorePlugins]uint8
}

// Scorer is one score plugin as a decision used it.
type Scorer struct {
	Name    string
	Weight  int64
	Skipped bool // PreScore said Skip for this pod
}

// profileInfo is what a decision needs to know of the profile, shared by
// every decision.
type profileInfo struct {
	filters   []string
	filterIdx []int    // profile index of each filter
	filterPos [64]int8 // profile index -> position among the filters
	scorers   []framework.ScoreEntry
}

// Decision is the record of one scheduling attempt, what `why pod/X`
// explains: the outcome, how many nodes were looked at and why, and (while
// kept) each evaluated node's fate.
type Decision struct {
	Pod     string // namespace/name
	Attempt int
	Time    sim.Tick
	// Node is the chosen node ("" if the attempt failed); Score its total.
	Node  string
	Score int64
	// Ties counts the nodes sharing the top total (the pick among them was
	// uniform, from the scheduler's seeded source).
	Ties int
	// AllNodes is the cluster's node count; Candidates the nodes left after
	// PreFilter; ToFind how many feasible nodes the scan stopped at
	// (percentageOfNodesToScore), Percentage the percentage used (0: all
	// nodes, fewer than 100); Start the index the scan started at.
	AllNodes, Candidates, ToFind int
	Percentage                   int32
	Start                        int
	// Evaluated nodes ran the filters; Feasible passed them; Scored were
	// scored (0 when a single feasible node is taken without scoring).
	Evaluated, Feasible, Scored int
	// Message is the FitError (or error) of a failed attempt.
	Message string
	// Nominated is set when the pod took its nominated node, tried first.
	Nominated bool
	// Preemption describes what DefaultPreemption found and chose, when it
	// ran ("" otherwise).
	Preemption string
	// Filters and Scorers are the profile's, in the order they ran.
	Filters     []string
	SkipFilters []bool
	Scorers     []Scorer
	// Nodes are the per-node records, in evaluation order; nil when no
	// longer kept (see DefaultNodeRecords).
	Nodes []NodeRecord

	prof                  *profileInfo
	nodeNum               int32 // Node's number (see explainStore.nodeNames) if known, else 0
	skipFilter, skipScore framework.PluginSet
	pos                   uint64 // first node record in the ring
	n                     int    // number of node records
	scorePos              uint64 // first score in the score rings
	nScores               int    // number of scores (scorers × scored nodes)
}

// fill sets the exported profile views from the shared profile.
func (d *Decision) fill() {
	p := d.prof
	d.Filters = p.filters
	d.SkipFilters = make([]bool, len(p.filters))
	for i, idx := range p.filterIdx {
		d.SkipFilters[i] = d.skipFilter.Has(idx)
	}
	d.Scorers = make([]Scorer, len(p.scorers))
	for i, e := range p.scorers {
		d.Scorers[i] = Scorer{Name: e.Plugin.Name(), Weight: e.Weight, Skipped: d.skipScore.Has(e.Index)}
	}
}

// nodeRec is a node's fate as the ring keeps it: the node by number (see
// nodeNames), the position of the filter that rejected it (-1 if it
// passed), and that filter's status (nil if it passed).
type nodeRec struct {
	status *framework.Status
	node   int32
	filter int8
}

// explainStore keeps the decisions of each pod and, in two rings shared by
// all pods, the per-node records of recent attempts: one nodeRec per
// evaluated node, and the raw and normalised scores (plugin-major, plugins
// that PreScore skipped left out) of the scored ones. Writing a record
// never allocates; old records are simply overwritten, and a decision whose
// records were overwritten keeps its summary only.
//
// Most pods are bound at their first attempt, so a pod's latest attempt
// is kept on its own (last) and only retried pods have earlier ones.
type explainStore struct {
	// The ring of nodeRecs, by position, is three parallel rings, so that
	// recording a node that passed (most of them) writes 5 bytes and no
	// pointer (no GC write barrier while the collector marks) where a
	// nodeRec is 16: ringStatus is written, and read, only for a node a
	// filter rejected (a node that passed leaves the slot's old status
	// alone, unread).
	ringNode   []int32
	ringFilter []int8
	ringStatus []*framework.Status
	head       uint64 // the position the next node record takes
	raw        []int32
	norm       []uint8
	scoreHead  uint64
	perPod     int
	prof       *profileInfo // the scheduler's one profile, which every decision used
	// last is each pod's latest attempt, by namespace and then name (keyed
	// by its name alone a slot is 24 bytes instead of a podKey's 40), for
	// every pod the cache does not account: while it does, the cache keeps
	// the record (see take), so this map holds the pods waiting to be
	// scheduled and those that finished, not every running pod.
	last    map[string]map[string]*decisionRec
	earlier map[podKey][]decisionRec // attempts before the last, oldest first
	// nodeNames are the names of the nodes listed or chosen, by the number
	// a record keeps (0 is "", no node), and nodeNums their numbers: a
	// name is numbered once, the first time it is seen, and kept for good
	// (a few bytes per node name ever seen, against 12 saved on every
	// pod's decision record and 16 on every node record).
	nodeNames []string
	nodeNums  map[string]int32
	// listNums are the numbers of the nodes of the cache's node list, by
	// position (NodeInfo.Index): a node evaluated leaves its number in the
	// ring, not its name. listed is the list they were made for.
	listNums []int32
	listed   []*framework.NodeInfo
}

// podKey is a pod's namespace and name, the pod object's own strings: a
// key that allocates nothing.
type podKey struct{ namespace, name string }

// decisionRec is a Decision as the store keeps it until `why` asks. Every
// pod keeps one until it is deleted, so it is compact (see TestDecisionRecSize):
//   - no pod name (the key: Decision.Pod is made from it), no profile (the
//     store's) and none of the views that fill makes from the profile;
//   - nothing that can be derived: the number of node records (every
//     evaluated node left one, except the nominated node tried first), of
//     scored nodes (all the feasible ones, when the attempt got as far as
//     picking among several) and of scores (one per scored node and
//     plugin not skipped);
//   - the chosen node by number (see explainStore.nodeNames), not by name:
//     4 bytes instead of a string's 16;
//   - what only a failed attempt has behind one pointer, nil otherwise;
//   - counts as int32: every count, and the index the scan started at, is
//     at most the cluster's node count, which int32 holds with room to
//     spare (kube supports 5,000 nodes and the largest clusters run about
//     100,000, too many for 16 bits); a pod retried every second would
//     take 68 years to overflow attempt.
//     The percentage is at most 100 (New checks it, as kube's validation);
//   - the plugins skipped by position among the profile's filters and
//     score plugins (at most MaxFilterPlugins and MaxScorePlugins, which
//     New checks), not as sets of profile indexes: 5 bytes instead of 16;
//   - the first score's position by its low 32 bits (see scoresFrom).
//
// The first node record's position stays uint64: it counts every node
// evaluated since the start, which a long simulation of a large cluster
// takes past 2^32.
type decisionRec struct {
	time                 sim.Tick
	score                int64
	failure              *failure // nil when the attempt succeeded
	pos                  uint64
	scorePos             uint32
	node                 int32 // the chosen node's number; 0 (named "") if none
	attempt              int32
	allNodes, candidates int32
	toFind, start        int32
	evaluated, feasible  int32
	ties                 int32
	skipFilters          uint32 // bit i: the i-th filter was skipped
	skipScorers          uint8  // bit i: the i-th score plugin was skipped
	percentage           uint8
	nominated            bool
}

// MaxFilterPlugins is how many filter plugins a decision record holds
// (kube's default profile has 13).
const MaxFilterPlugins = 32

// maxNodeRecords bounds Config.NodeRecords so that a record's first score
// position can be kept by its low 32 bits (see scoresFrom).
const maxNodeRecords = 1 << 26

// scoresFrom is the position of a record's first score, from its low 32
// bits: the latest position with those bits. Only a record whose node
// records are still kept reads its scores, and it is the right position
// for such a record: since the record's first score at most
// MaxScorePlugins scores have been stored per node record written (its
// own and later records: only the feasible nodes, which a node record
// each, are scored), so at most 8 × 2^26 < 2^32 of them.
func (x *explainStore) scoresFrom(low uint32) uint64 {
	return x.scoreHead - uint64(uint32(x.scoreHead)-low)
}

// failure is what a failed attempt adds to its record: the FitError's
// message and what preemption found.
type failure struct{ message, preemption string }

func (x *explainStore) compact(d *Decision) decisionRec {
	node := d.nodeNum
	if node == 0 {
		node = x.nodeNumber(d.Node)
	}
	r := decisionRec{time: d.Time, score: d.Score, node: node, pos: d.pos, scorePos: uint32(d.scorePos),
		attempt: int32(d.Attempt), allNodes: int32(d.AllNodes), candidates: int32(d.Candidates),
		toFind: int32(d.ToFind), start: int32(d.Start), evaluated: int32(d.Evaluated), feasible: int32(d.Feasible),
		ties: int32(d.Ties), percentage: uint8(d.Percentage), nominated: d.Nominated}
	for i, idx := range x.prof.filterIdx {
		if d.skipFilter.Has(idx) {
			r.skipFilters |= 1 << i
		}
	}
	for i, e := range x.prof.scorers {
		if d.skipScore.Has(e.Index) {
			r.skipScorers |= 1 << i
		}
	}
	if d.Message != "" || d.Preemption != "" {
		r.failure = &failure{message: d.Message, preemption: d.Preemption}
	}
	if r.scored() != d.Scored {
		panic(fmt.Sprintf("scheduler: decision scored %d of %d feasible nodes, not what its record derives (%d)",
			d.Scored, d.Feasible, r.scored()))
	}
	return r
}

// scored is how many nodes the attempt scored: every feasible node when it
// picked among several, none when it took the only one (or its nominated
// node, or failed).
func (r *decisionRec) scored() int {
	if r.node != 0 && r.feasible > 1 {
		return int(r.feasible)
	}
	return 0
}

// nodeNumber numbers a chosen node's name (0 for "", no node).
func (x *explainStore) nodeNumber(name string) int32 {
	if name == "" {
		return 0
	}
	n, ok := x.nodeNums[name]
	if !ok {
		n = int32(len(x.nodeNames))
		x.nodeNames = append(x.nodeNames, name)
		x.nodeNums[name] = n
	}
	return n
}

// numberNodes makes listNums those of nodes, the cache's node list. The
// cache makes a new list whenever a node comes, goes or changes zone, and
// listed keeps the last one alive, so a list at the same address with the
// same length is the same list.
func (x *explainStore) numberNodes(nodes []*framework.NodeInfo) {
	if len(nodes) == len(x.listed) && (len(nodes) == 0 || &nodes[0] == &x.listed[0]) {
		return
	}
	x.listed = nodes
	x.listNums = x.listNums[:0]
	for _, ni := range nodes {
		x.listNums = append(x.listNums, x.nodeNumber(ni.Name()))
	}
}

// listedNumber is the number of a node of the cache's node list (one the
// attempt evaluated): read by position, not looked up by name.
func (x *explainStore) listedNumber(ni *framework.NodeInfo) int32 { return x.listNums[ni.Index] }

// nodeLog writes node records into the ring for one filter scan, from
// copies of the ring's slices and head: the scan calls the filter plugins
// between two records, and a record written through the store would load
// the store, then its head and slices, again after every node (the calls
// may have written them, as far as the compiler knows). endLog hands the
// head back.
type nodeLog struct {
	node   []int32
	filter []int8
	status []*framework.Status
	nums   []int32 // listNums
	head   uint64
	mask   uint64
}

// startLog starts writing node records at the head of the ring.
func (x *explainStore) startLog() nodeLog {
	return nodeLog{node: x.ringNode, filter: x.ringFilter, status: x.ringStatus, nums: x.listNums,
		head: x.head, mask: uint64(len(x.ringNode) - 1)}
}

// endLog moves the head of the ring past the records l wrote.
func (x *explainStore) endLog(l *nodeLog) { x.head = l.head }

// passed records that a listed node passed every filter.
func (l *nodeLog) passed(ni *framework.NodeInfo) {
	i := l.head & l.mask
	l.node[i], l.filter[i] = l.nums[ni.Index], -1
	l.head++
}

// rejected records that filter (its position among the filters) rejected
// a listed node with st.
func (l *nodeLog) rejected(ni *framework.NodeInfo, filter int8, st *framework.Status) {
	i := l.head & l.mask
	l.node[i], l.filter[i], l.status[i] = l.nums[ni.Index], filter, st
	l.head++
}

// decision is the record as a Decision of the pod key (without the views
// fill makes).
func (x *explainStore) decision(key podKey, r *decisionRec) Decision {
	prof := x.prof
	d := Decision{Pod: key.namespace + "/" + key.name, Attempt: int(r.attempt), Time: r.time, Node: x.nodeNames[r.node],
		Score: r.score, Ties: int(r.ties), AllNodes: int(r.allNodes), Candidates: int(r.candidates), ToFind: int(r.toFind),
		Percentage: int32(r.percentage), Start: int(r.start), Evaluated: int(r.evaluated), Feasible: int(r.feasible),
		Scored: r.scored(), Nominated: r.nominated, prof: prof, pos: r.pos, scorePos: x.scoresFrom(r.scorePos)}
	for i, idx := range prof.filterIdx {
		if r.skipFilters&(1<<i) != 0 {
			d.skipFilter = d.skipFilter.With(idx)
		}
	}
	for i, e := range prof.scorers {
		if r.skipScorers&(1<<i) != 0 {
			d.skipScore = d.skipScore.With(e.Index)
		}
	}
	if r.failure != nil {
		d.Message, d.Preemption = r.failure.message, r.failure.preemption
	}
	// The nominated node is filtered before the scan, without a record.
	if !r.nominated {
		d.n = d.Evaluated
	}
	if d.Scored > 0 {
		for _, e := range prof.scorers {
			if !d.skipScore.Has(e.Index) {
				d.nScores += d.Scored
			}
		}
	}
	return d
}

func newExplainStore(prof *profileInfo, records, perPod int) *explainStore {
	size := 1
	for size < records {
		size <<= 1
	}
	return &explainStore{ringNode: make([]int32, size), ringFilter: make([]int8, size), ringStatus: make([]*framework.Status, size),
		raw: make([]int32, size*4), norm: make([]uint8, size*4),
		perPod: perPod, prof: prof, last: map[string]map[string]*decisionRec{}, earlier: map[podKey][]decisionRec{},
		nodeNames: []string{""}, nodeNums: map[string]int32{}}
}

// at reads the node record at a position.
func (x *explainStore) at(pos uint64) nodeRec {
	i := pos & uint64(len(x.ringNode)-1)
	r := nodeRec{node: x.ringNode[i], filter: x.ringFilter[i]}
	if r.filter >= 0 {
		r.status = x.ringStatus[i]
	}
	return r
}

// putScores appends one plugin's raw and normalised scores (norm is empty
// for a plugin that does not normalise: its raw scores are normalised).
// They go in at most two runs, up to the end of the rings and on from
// their start, each a plain loop over slices of one length (no position to
// wrap per score).
func (x *explainStore) putScores(raw, norm []int64) {
	for len(raw) > 0 {
		at := int(x.scoreHead & uint64(len(x.raw)-1))
		dst := x.raw[at:min(at+len(raw), len(x.raw))]
		dstNorm, src := x.norm[at:at+len(dst)], raw[:len(dst)]
		if len(norm) == 0 {
			for i := range dst {
				dst[i] = clamp32(src[i])
				dstNorm[i] = uint8(src[i])
			}
		} else {
			srcNorm := norm[:len(dst)]
			for i := range dst {
				dst[i] = clamp32(src[i])
				dstNorm[i] = uint8(srcNorm[i])
			}
			norm = norm[len(dst):]
		}
		raw = raw[len(dst):]
		x.scoreHead += uint64(len(dst))
	}
}

func (x *explainStore) kept(d *Decision) bool {
	return d.n <= len(x.ringNode) && x.head-d.pos <= uint64(len(x.ringNode)) &&
		d.nScores <= len(x.raw) && x.scoreHead-d.scorePos <= uint64(len(x.raw))
}

// add records an attempt to schedule pod.
func (x *explainStore) add(pod *corev1.Pod, d Decision) {
	byName := x.last[pod.Namespace]
	if byName == nil {
		byName = map[string]*decisionRec{}
		x.last[pod.Namespace] = byName
	}
	r := byName[pod.Name]
	switch {
	case r == nil:
		r = new(decisionRec)
		byName[pod.Name] = r
	case x.perPod > 1: // the last attempt becomes an earlier one
		k := podKey{pod.Namespace, pod.Name}
		e := x.earlier[k]
		if len(e) >= x.perPod-1 {
			copy(e, e[1:])
			e = e[:len(e)-1]
		}
		x.earlier[k] = append(e, *r)
	}
	*r = x.compact(&d)
}

// take removes the pod's latest attempt from the store and returns it (nil
// if it has none), for the cache to keep while it accounts the pod; when
// it no longer does, restore gives it back. The namespace's map stays,
// even empty: its next pods to schedule will need it (made anew every
// time a namespace's waiting pods are all bound, maps cost an allocation
// or two per pod).
func (x *explainStore) take(pod *corev1.Pod) *decisionRec {
	byName := x.last[pod.Namespace]
	r := byName[pod.Name]
	if r != nil {
		delete(byName, pod.Name)
	}
	return r
}

// restore gives back a latest attempt that take took (nothing if r is nil).
func (x *explainStore) restore(pod *corev1.Pod, r *decisionRec) {
	if r == nil {
		return
	}
	byName := x.last[pod.Namespace]
	if byName == nil {
		byName = map[string]*decisionRec{}
		x.last[pod.Namespace] = byName
	}
	if byName[pod.Name] == nil {
		byName[pod.Name] = r
	}
}

func (x *explainStore) forget(pod *corev1.Pod) {
	if byName := x.last[pod.Namespace]; byName != nil {
		delete(byName, pod.Name)
		if len(byName) == 0 {
			delete(x.last, pod.Namespace)
		}
	}
	delete(x.earlier, podKey{pod.Namespace, pod.Name})
}

// explain returns copies of a pod's decisions with the node records still
// kept filled in; accounted is its latest attempt if the cache keeps it.
func (x *explainStore) explain(key podKey, accounted *decisionRec) []Decision {
	last := x.last[key.namespace][key.name]
	if last == nil {
		last = accounted
	}
	if last == nil {
		return []Decision{}
	}
	earlier := x.earlier[key]
	out := make([]Decision, 0, len(earlier)+1)
	for i := range earlier {
		out = append(out, x.explainOne(key, &earlier[i]))
	}
	return append(out, x.explainOne(key, last))
}

// explainOne is one record as a Decision, with the views of the profile
// and, while still kept, its node records.
func (x *explainStore) explainOne(key podKey, r *decisionRec) Decision {
	d := x.decision(key, r)
	d.fill()
	if x.kept(&d) {
		d.Nodes = make([]NodeRecord, d.n)
		scored := 0
		mask := uint64(len(x.raw) - 1)
		for j := range d.Nodes {
			r := x.at(d.pos + uint64(j))
			d.Nodes[j] = NodeRecord{Node: x.nodeNames[r.node], Filter: r.filter, Status: r.status}
			if r.filter >= 0 || d.Scored == 0 {
				continue
			}
			nr := &d.Nodes[j]
			nr.Scored = true
			k := 0 // the scores of skipped plugins are not stored: they are 0
			for p := range d.Scorers {
				if d.Scorers[p].Skipped {
					continue
				}
				at := (d.scorePos + uint64(k*d.Scored+scored)) & mask
				nr.Raw[p], nr.Score[p] = x.raw[at], x.norm[at]
				k++
			}
			scored++
		}
	}
	return d
}

// String is the decision in one line.
func (d *Decision) String() string {
	if d.Node == "" {
		return fmt.Sprintf("attempt %d at %s: pod %s not scheduled: %s", d.Attempt, d.Time, d.Pod, d.Message)
	}
	return fmt.Sprintf("attempt %d at %s: pod %s bound to %s (%s)", d.Attempt, d.Time, d.Pod, d.Node, d.Rank())
}

// Rank says how the chosen node compared: "score 496, highest of 3".
func (d *Decision) Rank() string { return string(d.appendRank(nil)) }

// appendRank appends Rank to b (every bind's trace message has it).
func (d *Decision) appendRank(b []byte) []byte {
	switch {
	case d.Nominated:
		return append(b, "its nominated node, tried first"...)
	case d.Scored == 0:
		return append(b, "the only feasible node, not scored"...)
	}
	b = append(b, "score "...)
	b = strconv.AppendInt(b, d.Score, 10)
	if d.Ties > 1 {
		b = append(b, ", tied with "...)
		if d.Ties > 2 {
			b = strconv.AppendInt(b, int64(d.Ties-1), 10)
			b = append(b, " other nodes"...)
		} else {
			b = append(b, "1 other node"...)
		}
		b = append(b, " at the top of "...)
		b = strconv.AppendInt(b, int64(d.Scored), 10)
		return append(b, "; picked at random"...)
	}
	b = append(b, ", highest of "...)
	return strconv.AppendInt(b, int64(d.Scored), 10)
}

// Scope explains how many nodes the attempt looked at, and why.
func (d *Decision) Scope() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d nodes in the cluster", d.AllNodes)
	if d.Candidates != d.AllNodes {
		fmt.Fprintf(&b, ", %d left by PreFilter", d.Candidates)
	}
	switch {
	case d.AllNodes == 0:
		return b.String()
	case d.Percentage == 0:
		fmt.Fprintf(&b, "; fewer than 100, so every node is checked")
	default:
		fmt.Fprintf(&b, "; percentageOfNodesToScore %d%%: stop after %d feasible nodes, scanning from node #%d", d.Percentage, d.ToFind, d.Start)
	}
	fmt.Fprintf(&b, "; %d evaluated, %d feasible, %d scored", d.Evaluated, d.Feasible, d.Scored)
	return b.String()
}

// Describe renders the decision for a learner: the outcome, the scope, a
// table of nodes × filters (who rejected each node, and why) and a table of
// nodes × score plugins (raw → normalised × weight, and the total).
func (d *Decision) Describe() string {
	s := d.describe() + d.Preemption
	// The tables pad every cell; drop the padding at line ends.
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

func (d *Decision) describe() string {
	var b strings.Builder
	b.WriteString(d.String())
	b.WriteString("\n  " + d.Scope() + "\n")
	if d.Nodes == nil {
		if d.n > 0 {
			fmt.Fprintf(&b, "  (per-node detail no longer kept: kubeloop keeps it for the most recent %d node evaluations)\n", DefaultNodeRecords)
		}
		return b.String()
	}
	if len(d.Nodes) == 0 {
		return b.String()
	}
	// Plugins with nothing to check for this pod (no node selector, no
	// affinity terms...) are named once instead of filling a column with
	// "skip": the tables stay narrow enough to read in a terminal.
	var skipped []string
	filters := make([]int, 0, len(d.Filters))
	for i, name := range d.Filters {
		if d.SkipFilters[i] {
			skipped = append(skipped, name)
			continue
		}
		filters = append(filters, i)
	}
	b.WriteString("  filters, in the order they run (a node stops at the first that rejects it):\n")
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	header := make([]string, len(filters))
	for j, i := range filters {
		header[j] = d.Filters[i]
	}
	fmt.Fprintf(tw, "    NODE\t%s\n", strings.Join(header, "\t"))
	for _, r := range d.Nodes {
		cells := make([]string, len(filters))
		for j, i := range filters {
			switch {
			case r.Filter < 0 || i < int(r.Filter):
				cells[j] = "pass"
			case i == int(r.Filter):
				cells[j] = r.Status.Message()
			default:
				cells[j] = "-"
			}
		}
		fmt.Fprintf(tw, "    %s\t%s\n", r.Node, strings.Join(cells, "\t"))
	}
	tw.Flush()
	if len(skipped) > 0 {
		fmt.Fprintf(&b, "    skipped, nothing in this pod for them to check: %s\n", strings.Join(skipped, ", "))
	}
	if d.Scored == 0 {
		if d.Node != "" {
			b.WriteString("  one feasible node: taken without scoring, as kube-scheduler does\n")
		}
		return b.String()
	}
	b.WriteString("  scores (raw → normalised ×weight):\n")
	tw = tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	skipped = skipped[:0]
	var names []string
	for _, s := range d.Scorers {
		if s.Skipped {
			skipped = append(skipped, s.Name)
			continue
		}
		names = append(names, s.Name)
	}
	fmt.Fprintf(tw, "    NODE\t%s\tTOTAL\t\n", strings.Join(names, "\t"))
	for _, r := range d.Nodes {
		if !r.Scored {
			continue
		}
		cells := make([]string, 0, len(names))
		var total int64
		for i, s := range d.Scorers {
			if s.Skipped {
				continue
			}
			cells = append(cells, strconv.Itoa(int(r.Raw[i]))+" → "+strconv.Itoa(int(r.Score[i]))+" ×"+strconv.FormatInt(s.Weight, 10))
			total += int64(r.Score[i]) * s.Weight
		}
		mark := ""
		if r.Node == d.Node {
			mark = "← chosen"
		}
		fmt.Fprintf(tw, "    %s\t%s\t%d\t%s\n", r.Node, strings.Join(cells, "\t"), total, mark)
	}
	tw.Flush()
	if len(skipped) > 0 {
		fmt.Fprintf(&b, "    not scored for this pod: %s\n", strings.Join(skipped, ", "))
	}
	return b.String()
}
