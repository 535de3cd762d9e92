// Package trace records what the control plane and the nodes did, one event
// per action, in the order they happened: who acted (component), where
// (control-plane or node lane), in which column of the classic picture
// (Declare, Schedule, Run, Maintain), on what object, what caused it (the
// sequence number of the event that led to it) and why Kubernetes does this
// step at all (a one-sentence annotation for a learner).
//
// The trace is a bounded ring: a cluster of 100,000 pods must not keep every
// step forever. Events are addressed by their sequence number, which never
// repeats; an event that has left the ring is reported as dropped, not
// silently skipped.
package trace

import (
	"encoding/json"
	"strconv"

	"github.com/kubeloop/kubeloop/engine/sim"
)

// Column is one of the four columns of the classic picture of Kubernetes.
type Column uint8

// The four columns, read left to right.
const (
	Declare Column = iota + 1
	Schedule
	Run
	Maintain
)

// Columns lists the columns in reading order.
var Columns = []Column{Declare, Schedule, Run, Maintain}

func (c Column) String() string {
	switch c {
	case Declare:
		return "Declare"
	case Schedule:
		return "Schedule"
	case Run:
		return "Run"
	case Maintain:
		return "Maintain"
	}
	return "Column(" + strconv.Itoa(int(c)) + ")"
}

// ParseColumn reads a column name, case-insensitively.
func ParseColumn(s string) (Column, bool) {
	for _, c := range Columns {
		if equalFold(c.String(), s) {
			return c, true
		}
	}
	return 0, false
}

// Lane is the row of the picture: the control plane decides, the nodes do.
type Lane uint8

// The two lanes.
const (
	ControlPlane Lane = iota + 1
	NodeLane
)

func (l Lane) String() string {
	switch l {
	case ControlPlane:
		return "control-plane"
	case NodeLane:
		return "node"
	}
	return "Lane(" + strconv.Itoa(int(l)) + ")"
}

// Event is one step in the trace.
type Event struct {
	T         sim.Tick
	Seq       uint64
	Component string // "apiserver", "etcd", "scheduler", "replicaset-controller", "kubelet/n2", "user"
	Lane      Lane
	Column    Column
	Namespace string // the object's namespace, "" for cluster-scoped objects
	Object    string // "pod/api-7d9f8c6b5-x2k4q"; "" when the step is about no one object
	Message   string // what happened, in Kubernetes' words
	Cause     uint64 // Seq of the event that led to this one; 0 for a learner's command
	Rev       int64  // the store revision this step wrote, 0 if it wrote nothing
	Why       string // one true sentence on why Kubernetes takes this step
}

// jsonEvent fixes the field order and names of `trace -o json`.
type jsonEvent struct {
	T         float64 `json:"t"`
	Seq       uint64  `json:"seq"`
	Component string  `json:"component"`
	Column    string  `json:"column"`
	Lane      string  `json:"lane"`
	Namespace string  `json:"namespace,omitempty"`
	Object    string  `json:"object"`
	Message   string  `json:"message"`
	Cause     uint64  `json:"cause"`
	Rev       int64   `json:"rev,omitempty"`
	Why       string  `json:"why,omitempty"`
}

// MarshalJSON gives the contract's shape: t (virtual seconds), seq,
// component, column, lane, object, message, cause.
func (e Event) MarshalJSON() ([]byte, error) {
	return json.Marshal(jsonEvent{
		T: float64(e.T) / float64(sim.Second), Seq: e.Seq, Component: e.Component,
		Column: e.Column.String(), Lane: e.Lane.String(), Namespace: e.Namespace, Object: e.Object,
		Message: e.Message, Cause: e.Cause, Rev: e.Rev, Why: e.Why,
	})
}

// DefaultCapacity is how many events a trace keeps unless told otherwise:
// enough for every lesson and a long session, bounded for big clusters.
const DefaultCapacity = 200_000

// chunkBits sizes the ring's chunks: 4,096 events each.
const chunkBits = 12

// Trace is the bounded, ordered record of events.
type Trace struct {
	clock interface{ Now() sim.Tick }
	// The ring is stored in fixed-size chunks, allocated as it fills, so
	// that growing it never copies or re-zeroes what it holds (a large
	// cluster records hundreds of thousands of events).
	chunks  [][]slot
	size    int    // slots in use: grows up to max, then the ring wraps
	max     int    // capacity
	start   int    // slot of the oldest kept event
	n       int    // number of kept events
	nextSeq uint64 // the Seq the next event gets

	// The component, namespace and why of an event come from small sets
	// that repeat from step to step, so a slot keeps each as a number in
	// these tables. A table only grows when it meets a string it has not
	// seen, and stops at maxNames.
	components, namespaces, whys names
	// spilled holds, by seq, the kept events that have a field their slot
	// cannot hold: a string a full table had no room for, a revision or a
	// distance to the cause beyond 32 bits. An entry leaves when its slot
	// is reused, so it is bounded by the ring.
	spilled map[uint64]spill
}

// slot is how the ring keeps one event: 56 bytes, where an Event takes 120,
// and two pointers for the garbage collector to follow instead of five. A
// large cluster keeps DefaultCapacity of them. The Seq is not kept: it
// follows from the slot's place in the ring.
type slot struct {
	t       sim.Tick
	object  string
	message string
	// rev is the revision, or spilled32. The store makes one revision a
	// write, so a revision needs more than 32 bits only after four
	// billion writes.
	rev uint32
	// cause is how many events back the cause is (0 for none), or
	// spilled32: a step's cause is an earlier step still being worked
	// on, never four billion steps back in practice.
	cause     uint32
	component uint16 // index in Trace.components, or spilled
	namespace uint16 // index in Trace.namespaces, or spilled
	why       uint16 // index in Trace.whys, or spilled
	lane      Lane
	column    Column
}

// spilled is the name number of a string that is kept in Trace.spilled;
// spilled32 marks a revision or cause kept there.
const (
	spilled   = 1<<16 - 1
	spilled32 = 1<<32 - 1
)

// maxNames is how many strings a names table holds: every number but
// spilled.
const maxNames = spilled

// spill is what an event's slot could not hold. Only the fields the slot
// marks spilled are read.
type spill struct {
	component, namespace, why string
	rev                       int64
	cause                     uint64
}

// narrowRev is rev as a slot keeps it.
func narrowRev(rev int64) uint32 {
	if rev < 0 || rev >= spilled32 {
		return spilled32
	}
	return uint32(rev)
}

// narrowCause is cause, the cause of event seq, as its slot keeps it.
func narrowCause(seq, cause uint64) uint32 {
	if cause == 0 {
		return 0
	}
	if cause >= seq || seq-cause >= spilled32 {
		return spilled32
	}
	return uint32(seq - cause)
}

// spills reports whether slot s keeps a field in Trace.spilled.
func (s *slot) spills() bool {
	return s.component == spilled || s.namespace == spilled || s.why == spilled ||
		s.rev == spilled32 || s.cause == spilled32
}

// names numbers distinct strings in the order they are first met, which
// the order of the steps decides.
type names struct {
	list []string
	ids  map[string]uint16
	// seen remembers, for each hint slot (see hintSlot), the number of the
	// last string looked up there, plus one. Callers pass the same strings
	// step after step (a component's name, a why), and comparing a string
	// with itself costs nothing, where the map hashes it all and reads a
	// cold group. The slot comes from a string's length and a few of its
	// bytes (see hintSlot), so that the names of 5,000 kubelets, all as
	// long as each other, mostly find their own.
	seen *[hintSlots]uint16
}

// hintSlots is the number of a names table's hints, 16 KB of them.
const (
	hintBits  = 13
	hintSlots = 1 << hintBits
)

// hintSlot is s's slot in a names table's hints: a hash of its length,
// its first byte and its last four (where the names a table holds
// differ: a node's number, a pod's generated suffix).
func hintSlot(s string) int {
	n := len(s)
	h := uint64(n)
	switch {
	case n >= 4:
		h |= uint64(s[0])<<8 | uint64(s[n-4])<<16 | uint64(s[n-3])<<24 | uint64(s[n-2])<<32 | uint64(s[n-1])<<40
	case n > 0:
		h |= uint64(s[0])<<8 | uint64(s[n-1])<<16 | uint64(s[n/2])<<24
	}
	h *= 0x9e3779b97f4a7c15
	h ^= h >> 32
	return int(h * 0xbf58476d1ce4e5b9 >> (64 - hintBits))
}

// id returns s's number, adding s if it is new, or spilled if s is new and
// the table is full.
func (n *names) id(s string) uint16 {
	if n.seen == nil {
		n.seen = new([hintSlots]uint16)
	}
	hint := &n.seen[hintSlot(s)]
	if *hint != 0 && n.list[*hint-1] == s {
		return *hint - 1
	}
	if id, ok := n.ids[s]; ok {
		*hint = id + 1
		return id
	}
	if len(n.list) == maxNames {
		return spilled
	}
	if n.ids == nil {
		n.ids = make(map[string]uint16)
	}
	id := uint16(len(n.list))
	n.list = append(n.list, s)
	n.ids[s] = id
	*hint = id + 1
	return id
}

// name returns the string numbered id; spill is used for spilled.
func (n *names) name(id uint16, spill string) string {
	if id == spilled {
		return spill
	}
	return n.list[id]
}

func (t *Trace) slot(i int) *slot {
	return &t.chunks[i>>chunkBits][i&(1<<chunkBits-1)]
}

// New returns an empty trace that stamps events with clock's time and keeps
// at most capacity of them (DefaultCapacity if capacity <= 0).
func New(clock interface{ Now() sim.Tick }, capacity int) *Trace {
	if capacity <= 0 {
		capacity = DefaultCapacity
	}
	return &Trace{clock: clock, max: capacity, nextSeq: 1}
}

// Record stamps e with the current time and the next sequence number, keeps
// it, and returns the sequence number (for use as a cause).
func (t *Trace) Record(e Event) uint64 {
	return t.record(e, t.components.id(e.Component))
}

// A Source is a component's name as one trace numbers it (see
// Trace.Source).
type Source struct {
	t    *Trace // the trace that numbered it: the number means nothing to another
	name string
	id   uint16
}

// Source numbers a component's name now, for a component that records
// many steps (a kubelet): RecordFrom then need not look the name up at
// each. Looking it up reads the name's bytes, and a kubelet's name is
// one of 5,000 in a large cluster, cold when its kubelet next acts.
func (t *Trace) Source(component string) Source {
	return Source{t, component, t.components.id(component)}
}

// Name is the component's name.
func (s Source) Name() string { return s.name }

// RecordFrom is Record for a step of src's component (e.Component is
// src's name).
func (t *Trace) RecordFrom(src Source, e Event) uint64 {
	if src.t != t {
		panic("trace: RecordFrom with another trace's Source")
	}
	e.Component = src.name
	return t.record(e, src.id)
}

// record is Record with e's component numbered.
func (t *Trace) record(e Event, component uint16) uint64 {
	seq := t.nextSeq
	t.nextSeq++
	var s *slot
	if t.size < t.max {
		if t.size>>chunkBits == len(t.chunks) {
			t.chunks = append(t.chunks, make([]slot, min(1<<chunkBits, t.max-t.size)))
		}
		s = t.slot(t.size) // still growing: start stays 0
		t.size++
		t.n++
	} else {
		s = t.slot(t.start) // full: overwrite the oldest
		t.start = (t.start + 1) % t.size
		if len(t.spilled) > 0 {
			delete(t.spilled, seq-uint64(t.size))
		}
	}
	*s = slot{t: t.clock.Now(), object: e.Object, message: e.Message,
		rev: narrowRev(e.Rev), cause: narrowCause(seq, e.Cause),
		component: component, namespace: t.namespaces.id(e.Namespace), why: t.whys.id(e.Why),
		lane: e.Lane, column: e.Column}
	if s.spills() {
		t.spill(seq, spill{e.Component, e.Namespace, e.Why, e.Rev, e.Cause})
	}
	return seq
}

// spill keeps sp as what event seq's slot could not hold.
func (t *Trace) spill(seq uint64, sp spill) {
	if t.spilled == nil {
		t.spilled = make(map[uint64]spill)
	}
	t.spilled[seq] = sp
}

// SetRev records the store revision that event seq's step wrote.
func (t *Trace) SetRev(seq uint64, rev int64) {
	s := t.ptr(seq)
	if s == nil {
		return
	}
	if s.rev = narrowRev(rev); s.rev == spilled32 {
		sp := t.spilled[seq]
		sp.rev = rev
		t.spill(seq, sp)
	}
}

// Amend fills in what event seq could only learn from its own write, such
// as the name the API server generated for a created object: a non-empty
// object or message replaces the recorded one. Amending an event that has
// left the ring does nothing.
func (t *Trace) Amend(seq uint64, object, message string) {
	s := t.ptr(seq)
	if s == nil {
		return
	}
	if object != "" {
		s.object = object
	}
	if message != "" {
		s.message = message
	}
}

// NextSeq is the sequence number the next event will get.
func (t *Trace) NextSeq() uint64 { return t.nextSeq }

// FirstSeq is the sequence number of the oldest event still kept (NextSeq if
// the trace is empty).
func (t *Trace) FirstSeq() uint64 { return t.nextSeq - uint64(t.n) }

// Len is the number of events kept.
func (t *Trace) Len() int { return t.n }

// Dropped is the number of events that left the ring.
func (t *Trace) Dropped() uint64 { return t.FirstSeq() - 1 }

// Get returns the event with sequence number seq, if it is still kept.
func (t *Trace) Get(seq uint64) (Event, bool) {
	if s := t.ptr(seq); s != nil {
		return t.event(seq, s), true
	}
	return Event{}, false
}

func (t *Trace) ptr(seq uint64) *slot {
	first := t.FirstSeq()
	if seq < first || seq >= t.nextSeq {
		return nil
	}
	return t.slot((t.start + int(seq-first)) % t.size)
}

// event gives back the Event that slot s keeps as event seq.
func (t *Trace) event(seq uint64, s *slot) Event {
	var sp spill
	if s.spills() {
		sp = t.spilled[seq]
	}
	e := Event{T: s.t, Seq: seq, Component: t.components.name(s.component, sp.component), Lane: s.lane,
		Column: s.column, Namespace: t.namespaces.name(s.namespace, sp.namespace), Object: s.object,
		Message: s.message, Cause: sp.cause, Rev: sp.rev, Why: t.whys.name(s.why, sp.why)}
	if s.rev != spilled32 {
		e.Rev = int64(s.rev)
	}
	switch s.cause {
	case 0:
		e.Cause = 0
	case spilled32:
	default:
		e.Cause = seq - uint64(s.cause)
	}
	return e
}

// Since returns the kept events with Seq >= seq, oldest first.
func (t *Trace) Since(seq uint64) []Event {
	first := t.FirstSeq()
	if seq < first {
		seq = first
	}
	out := make([]Event, 0, int(t.nextSeq-seq))
	for s := seq; s < t.nextSeq; s++ {
		out = append(out, t.event(s, t.ptr(s)))
	}
	return out
}

// All returns every kept event, oldest first.
func (t *Trace) All() []Event { return t.Since(0) }

// Chain follows causes back from seq to the learner's command that started
// it, returning the events newest first. It stops early where an event has
// left the ring.
func (t *Trace) Chain(seq uint64) []Event {
	var out []Event
	for seq != 0 {
		e, ok := t.Get(seq)
		if !ok {
			break
		}
		out = append(out, e)
		if e.Cause >= e.Seq {
			panic("trace: event " + strconv.FormatUint(e.Seq, 10) + " caused by a later event")
		}
		seq = e.Cause
	}
	return out
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
