package store

import (
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// indexModel is what an index should hold, kept the simplest way: every
// current object by key, and for each index and value the keys filed
// under it, as a sorted slice.
type indexModel struct {
	k       *kinds.Kind
	objs    map[string]Object
	indexes map[string]IndexFunc
	sets    map[string]map[string][]string // index name -> value -> sorted keys
}

func newIndexModel(k *kinds.Kind) *indexModel {
	return &indexModel{k: k, objs: map[string]Object{}, indexes: map[string]IndexFunc{}, sets: map[string]map[string][]string{}}
}

// addIndex files every object under a new index.
func (m *indexModel) addIndex(name string, fn IndexFunc) {
	m.indexes[name] = fn
	m.sets[name] = map[string][]string{}
	for key, o := range m.objs {
		m.file(name, key, o)
	}
}

func (m *indexModel) file(name, key string, o Object) {
	for _, v := range m.indexes[name](o) {
		keys := m.sets[name][v]
		if i, found := slices.BinarySearch(keys, key); !found {
			m.sets[name][v] = slices.Insert(keys, i, key)
		}
	}
}

func (m *indexModel) unfile(name, key string, o Object) {
	for _, v := range m.indexes[name](o) {
		keys := m.sets[name][v]
		if i, found := slices.BinarySearch(keys, key); found {
			m.sets[name][v] = slices.Delete(keys, i, i+1)
		}
	}
}

// put makes o the object at key (nil: deleted).
func (m *indexModel) put(key string, o Object) {
	for name := range m.indexes {
		if old := m.objs[key]; old != nil {
			m.unfile(name, key, old)
		}
		if o != nil {
			m.file(name, key, o)
		}
	}
	if o == nil {
		delete(m.objs, key)
	} else {
		m.objs[key] = o
	}
}

// values is every value index name has held, sorted.
func (m *indexModel) values(name string) []string {
	out := make([]string, 0, len(m.sets[name]))
	for v := range m.sets[name] {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// check compares what s files under value in index name with the model:
// the count, ByIndexShared and ByIndex, in key order, and for a kind kept
// typed the current objects themselves.
func (m *indexModel) check(t *testing.T, s *Store, name, value, when string) {
	t.Helper()
	want := m.sets[name][value]
	if got := s.CountByIndex(m.k, name, value); got != len(want) {
		t.Fatalf("%s: CountByIndex(%s, %q) = %d; want %d", when, name, value, got, len(want))
	}
	shared := s.ByIndexShared(m.k, name, value)
	copied := s.ByIndex(m.k, name, value)
	for _, got := range [][]Object{shared, copied} {
		ok := len(got) == len(want)
		for i := 0; ok && i < len(got); i++ {
			if keptAtRest(m.k) { // decoded anew: the current version, by its revision
				ok = m.k.Key(got[i].GetNamespace(), got[i].GetName()) == want[i] &&
					got[i].GetResourceVersion() == m.objs[want[i]].GetResourceVersion()
			} else {
				ok = got[i] == m.objs[want[i]]
			}
		}
		if !ok {
			keys := make([]string, len(got))
			for i, o := range got {
				keys[i] = m.k.Key(o.GetNamespace(), o.GetName())
			}
			t.Fatalf("%s: index %s, value %q holds (or not the current versions of)\n %v\nwant\n %v", when, name, value, keys, want)
		}
	}
	if len(shared) > 0 && &shared[0] == &copied[0] {
		t.Fatalf("%s: ByIndex handed out the index's own slice", when)
	}
	if set := s.index(m.k, name).byVal[value]; set != nil {
		if err := checkRuns(set.objs, int(set.n)); err != nil && !keptAtRest(m.k) {
			t.Fatalf("%s: index %s, value %q: %v", when, name, value, err)
		}
		if err := checkRuns(set.vers, int(set.n)); err != nil && keptAtRest(m.k) {
			t.Fatalf("%s: index %s, value %q: %v", when, name, value, err)
		}
	}
}

// checkRuns checks the shape of a set's runs: n members in all, none
// empty and none longer than indexRunMax.
func checkRuns[T any](rs runs[T], n int) error {
	total := 0
	for r, run := range rs {
		if len(run) == 0 || len(run) > indexRunMax {
			return fmt.Errorf("run %d of %d holds %d members; want 1 to %d", r, len(rs), len(run), indexRunMax)
		}
		total += len(run)
	}
	if total != n {
		return fmt.Errorf("runs hold %d members; the set counts %d", total, n)
	}
	return nil
}

// checkAll checks every value of every index, and that values no object
// is filed under are empty.
func (m *indexModel) checkAll(t *testing.T, s *Store, gone []string, when string) {
	t.Helper()
	for _, name := range slices.Sorted(maps.Keys(m.indexes)) {
		for _, v := range m.values(name) {
			m.check(t, s, name, v, when)
		}
		for _, v := range gone {
			m.check(t, s, name, v, when)
		}
	}
}

// indexOp is one random write of the model tests: a create, a delete, an
// update that refiles the object, or one that leaves its index values
// alone (a status update, the common case).
type indexOp struct {
	s *Store
	m *indexModel
	r *rand.Rand

	names      int      // objects are named o0 ... o<names-1>
	namespaces []string // for a namespaced kind
	values     int      // index values are v0 ... v<values-1>
	make       func(ns, name string, vals []string) Object
}

// run does one write and returns the key it wrote and the values that
// object was and is filed under.
func (op *indexOp) run(t *testing.T, step int) (key string, touched []string) {
	t.Helper()
	r := op.r
	ns := ""
	if op.m.k.Namespaced {
		ns = op.namespaces[r.Intn(len(op.namespaces))]
	}
	name := "o" + strconv.Itoa(r.Intn(op.names))
	key = op.m.k.Key(ns, name)
	vals := func() []string {
		n := r.Intn(4) // 0 to 3 values, sometimes the same one twice
		out := make([]string, n)
		for i := range out {
			out[i] = "v" + strconv.Itoa(r.Intn(op.values))
		}
		return out
	}
	old := op.m.objs[key]
	var err error
	switch {
	case old == nil:
		o := op.make(ns, name, vals())
		_, err = op.s.Create(o, uint64(step))
		op.m.put(key, o)
	case r.Intn(6) == 0:
		_, _, err = op.s.Delete(op.m.k, ns, name, "", uint64(step))
		op.m.put(key, nil)
	default:
		v := valuesOf(old)
		if r.Intn(3) == 0 {
			v = vals()
		}
		o := op.make(ns, name, v)
		o.SetResourceVersion(old.GetResourceVersion())
		_, err = op.s.Update(o, uint64(step))
		op.m.put(key, o)
	}
	if err != nil {
		t.Fatalf("step %d: %v", step, err)
	}
	touched = valuesOf(old)
	if o := op.m.objs[key]; o != nil {
		touched = append(touched, valuesOf(o)...)
	}
	return key, touched
}

// valuesOf is the index values a test object carries, in an annotation
// (every kind has one), comma-separated in the order given.
func valuesOf(o Object) []string {
	if o == nil {
		return nil
	}
	v := o.GetAnnotations()["values"]
	if v == "" {
		return nil
	}
	return strings.Split(v, ",")
}

func valuesAnnotation(vals []string) map[string]string {
	return map[string]string{"values": strings.Join(vals, ",")}
}

// testIndexes are the model tests' indexes: one with an object's values
// as given (some repeated), one that files it under its first value only
// (a node name), one under nothing or its namespace (an orphan index).
func testIndexes() map[string]IndexFunc {
	return map[string]IndexFunc{
		"values": valuesOf,
		"first": func(o Object) []string {
			if v := valuesOf(o); len(v) > 0 {
				return v[:1]
			}
			return nil
		},
		"orphan": func(o Object) []string {
			if len(valuesOf(o)) == 0 {
				return []string{"ns:" + o.GetNamespace()}
			}
			return nil
		},
	}
}

func podWithValues(ns, name string, vals []string) Object {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: valuesAnnotation(vals)}}
}

func nodeWithValues(_, name string, vals []string) Object {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: valuesAnnotation(vals)}}
}

func eventWithValues(ns, name string, vals []string) Object {
	return &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: valuesAnnotation(vals)},
		Reason: "Test"}
}

// TestIndexMatchesModel drives indexes through seeded random writes and
// checks them against indexModel after every write: for pods, for a kind
// without namespaces (nodes), and for Events, kept at rest. Namespaces
// "a", "a-x" and "a.b" sort differently as pairs than as keys ("a-x/..."
// sorts before "a/..."), which an index sorting by anything but the key
// would get wrong. Some indexes are added before the objects exist and
// some after, which files the objects already there. Sets are split into
// runs of 512 (pods-many has sets of about a thousand); the cases with
// runs lowered split and join runs all the time.
func TestIndexMatchesModel(t *testing.T) {
	for _, tc := range []struct {
		name  string
		k     *kinds.Kind
		make  func(ns, name string, vals []string) Object
		names int
		steps int
		runs  int // indexRunMax; 0 leaves it
	}{
		{"pods", kinds.Pod, podWithValues, 60, 3000, 0},
		{"pods-runs-of-2", kinds.Pod, podWithValues, 60, 3000, 2},
		{"pods-runs-of-3", kinds.Pod, podWithValues, 60, 3000, 3},
		{"pods-runs-of-8", kinds.Pod, podWithValues, 60, 3000, 8},
		{"pods-many", kinds.Pod, podWithValues, 1500, 6000, 0},
		{"nodes-runs-of-4", kinds.Node, nodeWithValues, 60, 2000, 4},
		{"events-runs-of-4", kinds.Event, eventWithValues, 60, 1500, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, m, add := newIndexedStore(t, tc.k, tc.runs)
			add("values")
			add("first")
			op := &indexOp{s: s, m: m, r: rand.New(rand.NewSource(1)), names: tc.names,
				namespaces: []string{"a", "a-x", "a.b", "b"}, values: 5, make: tc.make}
			gone := []string{"v5", "nope"}
			for step := range tc.steps {
				if step == tc.steps/3 {
					add("orphan")
					m.checkAll(t, s, gone, "after AddIndex")
				}
				key, touched := op.run(t, step)
				when := fmt.Sprintf("step %d (%s)", step, key)
				for _, v := range touched {
					m.check(t, s, "values", v, when)
					m.check(t, s, "first", v, when)
				}
				if step > tc.steps/3 {
					for _, ns := range op.namespaces {
						m.check(t, s, "orphan", "ns:"+ns, when)
					}
				}
				if step%500 == 0 {
					m.checkAll(t, s, gone, when)
				}
			}
			m.checkAll(t, s, gone, "at the end")
		})
	}
}

// newIndexedStore is an empty store and its model for kind k, with
// indexRunMax set to runs for the test (0 leaves it), and add, which gives
// both the test index of that name (testIndexes).
func newIndexedStore(t *testing.T, k *kinds.Kind, runs int) (*Store, *indexModel, func(name string)) {
	if runs != 0 {
		was := indexRunMax
		t.Cleanup(func() { indexRunMax = was })
		indexRunMax = runs
	}
	indexes := testIndexes()
	s, m := New(), newIndexModel(k)
	return s, m, func(name string) {
		s.AddIndex(k, name, indexes[name])
		m.addIndex(name, indexes[name])
	}
}

// TestIndexUnreadSets is TestIndexMatchesModel with the sets left unread
// for long stretches: a set nobody has read takes its members as they
// come (indexSet.unordered), and is put in key order only when read, or
// once it fills a run. Between reads, objects are created, refiled,
// updated in place and deleted, values repeated; then every set must
// read back as the model's, in key order.
func TestIndexUnreadSets(t *testing.T) {
	for _, tc := range []struct {
		name  string
		k     *kinds.Kind
		make  func(ns, name string, vals []string) Object
		names int
		runs  int // indexRunMax; 0 leaves it
	}{
		{"pods", kinds.Pod, podWithValues, 200, 0},
		{"pods-runs-of-4", kinds.Pod, podWithValues, 200, 4},
		{"pods-many", kinds.Pod, podWithValues, 3000, 0},
		{"nodes", kinds.Node, nodeWithValues, 200, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, m, add := newIndexedStore(t, tc.k, tc.runs)
			for _, name := range []string{"values", "first", "orphan"} {
				add(name)
			}
			op := &indexOp{s: s, m: m, r: rand.New(rand.NewSource(3)), names: tc.names,
				namespaces: []string{"a", "a-x", "a.b", "b"}, values: 7, make: tc.make}
			for round := range 8 {
				for step := range 250 * (round + 1) {
					op.run(t, step)
					if step%50 == 0 {
						for _, name := range []string{"values", "first", "orphan"} {
							for _, v := range m.values(name) {
								if got, want := s.CountByIndex(tc.k, name, v), len(m.sets[name][v]); got != want {
									t.Fatalf("round %d, step %d: CountByIndex(%s, %q) = %d; want %d", round, step, name, v, got, want)
								}
							}
						}
					}
				}
				m.checkAll(t, s, []string{"nope"}, fmt.Sprintf("after round %d", round))
			}
		})
	}
}

// TestIndexMatchesModelLarge is TestIndexMatchesModel at the size of the
// benchmark cluster: 150,000 pods, filed under 1,000 owners of 150 and 30
// nodes of 5,000, then moved, updated, deleted and created at random. It
// checks the counts of every node after every write, and the members of
// the sets written now and then. With -short it runs at a tenth of the
// size, on 3 nodes, so that a node's set still spans several runs.
func TestIndexMatchesModelLarge(t *testing.T) {
	pods, owners, nodes, steps := 150_000, 1000, 30, 30_000
	if testing.Short() {
		pods, owners, nodes, steps = 15_000, 100, 3, 3_000
	}
	indexes := map[string]IndexFunc{
		"owner": func(o Object) []string { return valuesOf(o)[:1] },
		"node":  func(o Object) []string { return valuesOf(o)[1:] },
	}
	s := New()
	m := newIndexModel(kinds.Pod)
	s.AddIndex(kinds.Pod, "owner", indexes["owner"])
	m.addIndex("owner", indexes["owner"])
	r := rand.New(rand.NewSource(2))
	node := func() string { return "node-" + strconv.Itoa(r.Intn(nodes)) }
	keys := make([]string, pods) // a pool to draw the objects to write from
	for i := range pods {
		owner := "rs" + strconv.Itoa(i%owners)
		p := podWithValues("default", fmt.Sprintf("%s-%08x", owner, r.Uint32()), []string{owner, node()})
		if _, err := s.Create(p, 0); err != nil {
			t.Fatal(err)
		}
		keys[i] = m.k.Key("default", p.GetName())
		m.put(keys[i], p)
	}
	s.AddIndex(kinds.Pod, "node", indexes["node"]) // files every pod at once
	m.addIndex("node", indexes["node"])
	m.checkAll(t, s, nil, "after creating")
	for step := range steps {
		at := r.Intn(len(keys))
		old := m.objs[keys[at]]
		ns, name, vals := old.GetNamespace(), old.GetName(), valuesOf(old)
		var p Object
		var err error
		switch r.Intn(4) {
		case 0: // delete it, and create another in its place
			if _, _, err = s.Delete(kinds.Pod, ns, name, "", 0); err == nil {
				m.put(keys[at], nil)
				p = podWithValues(ns, fmt.Sprintf("%s-%08x", vals[0], r.Uint32()), []string{vals[0], node()})
				_, err = s.Create(p, 0)
				keys[at] = m.k.Key(ns, p.GetName())
			}
		case 1: // move it to another node
			p = podWithValues(ns, name, []string{vals[0], node()})
			_, err = s.Update(p, 0)
		default: // a status update
			p = podWithValues(ns, name, vals)
			_, err = s.Update(p, 0)
		}
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		m.put(keys[at], p)
		for i := range nodes {
			v := "node-" + strconv.Itoa(i)
			if got, want := s.CountByIndex(kinds.Pod, "node", v), len(m.sets["node"][v]); got != want {
				t.Fatalf("step %d: CountByIndex(node, %s) = %d; want %d", step, v, got, want)
			}
		}
		if step%100 == 0 {
			when := fmt.Sprintf("step %d", step)
			for _, v := range append(vals, valuesOf(p)...) {
				m.check(t, s, "owner", v, when)
				m.check(t, s, "node", v, when)
			}
		}
	}
	m.checkAll(t, s, nil, "at the end")
}

func TestCmpNamespacedKey(t *testing.T) {
	for _, tc := range []struct {
		ns, name, rel string
		want          int
	}{
		{"a", "b", "a/b", 0},
		{"a", "b", "a/c", -1},
		{"a", "c", "a/b", 1},
		{"a", "b", "a-x/b", 1}, // '/' sorts after '-'
		{"a-x", "b", "a/b", -1},
		{"a", "b", "a.b/a", 1}, // and after '.'
		{"ab", "c", "a/c", 1},
		{"a", "c", "ab/c", -1},
		{"a", "b", "a", 1},
		{"a", "", "a/", 0},
		{"abc", "d", "ab", 1},
		{"ab", "d", "abc/d", -1},
		{"", "b", "/b", 0},
	} {
		o := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: tc.ns, Name: tc.name}}
		if got := cmpNamespacedKey(o, []byte(tc.rel)); got != tc.want {
			t.Errorf("cmpNamespacedKey(%s/%s, %q) = %d; want %d", tc.ns, tc.name, tc.rel, got, tc.want)
		}
		if want := strings.Compare(tc.ns+"/"+tc.name, tc.rel); want != tc.want {
			t.Errorf("table: %s/%s against %q should be %d", tc.ns, tc.name, tc.rel, want)
		}
	}
}

// ByIndexShared is read in the controllers' hottest loops: once a set has
// been read, reading it again allocates nothing, whatever its size, and a
// write that leaves its members alone (a status update) keeps it so.
func TestByIndexSharedDoesNotAllocate(t *testing.T) {
	for _, n := range []int{1, 150, 5000} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			s := New()
			s.AddIndex(kinds.Pod, "values", valuesOf)
			for i := range n {
				s.Create(podWithValues("default", "p"+strconv.Itoa(i), []string{"v"}), 0)
			}
			s.ByIndexShared(kinds.Pod, "values", "v")
			if allocs := testing.AllocsPerRun(100, func() { s.ByIndexShared(kinds.Pod, "values", "v") }); allocs != 0 {
				t.Errorf("ByIndexShared of %d: %.1f allocations a call; want 0", n, allocs)
			}
			cur, _ := s.Lookup(kinds.Pod, "default", "p0")
			upd := podWithValues("default", "p0", []string{"v"})
			upd.SetResourceVersion(cur.GetResourceVersion())
			s.Update(upd, 0)
			if allocs := testing.AllocsPerRun(100, func() { s.ByIndexShared(kinds.Pod, "values", "v") }); allocs != 0 {
				t.Errorf("ByIndexShared of %d after a status update: %.1f allocations a call; want 0", n, allocs)
			}
			if got := s.ByIndexShared(kinds.Pod, "values", "v"); got[0] != upd {
				t.Errorf("ByIndexShared of %d after an update: not the updated pod", n)
			}
		})
	}
}

// TestIndexOf checks indexOf against slices.Index, which it stands for:
// identity, not equality, for pods and for other kinds.
func TestIndexOf(t *testing.T) {
	a, b, twin := &corev1.Pod{}, &corev1.Pod{}, &corev1.Pod{}
	n := &corev1.Node{}
	run := []Object{a, n, b}
	for _, old := range []Object{a, b, n, twin, &corev1.Node{}} {
		if got, want := indexOf(run, old), slices.Index(run, old); got != want {
			t.Errorf("indexOf(run, %p) = %d; want %d", old, got, want)
		}
	}
}

// compareKey is strings.Compare of a string and a key's bytes.
func TestCompareKey(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"", ""}, {"", "a"}, {"a", ""}, {"a", "a"}, {"a", "b"}, {"b", "a"},
		{"/registry/pods/default/a", "/registry/pods/default/ab"},
		{"/registry/pods/default/ab", "/registry/pods/default/a"},
		{"/registry/pods/default/a-1", "/registry/pods/default/a/1"},
		{"\xff", "\x00"},
	} {
		if got, want := compareKey(tc.a, []byte(tc.b)), strings.Compare(tc.a, tc.b); got != want {
			t.Errorf("compareKey(%q, %q) = %d; want %d", tc.a, tc.b, got, want)
		}
	}
}
