package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// TestTypedMapMatchesAMap drives typedMap and a plain map with the same
// random creates, writes and deletes of pods in namespaces whose names
// are prefixes of each other, and of nodes (no namespace), with hashes
// narrowed to a few bits so that most keys collide, and to none, so that
// all do.
func TestTypedMapMatchesAMap(t *testing.T) {
	for _, mask := range []uint64{^uint64(0), 0xf, 0x1, 0} {
		t.Run(fmt.Sprintf("mask %#x", mask), func(t *testing.T) {
			defer func(m uint64) { hashMask = m }(hashMask)
			hashMask = mask
			rnd := rand.New(rand.NewPCG(2, mask))
			for _, k := range []*kinds.Kind{kinds.Pod, kinds.Node} {
				m := typedMap{k: k}
				want := map[string]Object{}
				for step := range 4000 {
					ns, name := []string{"a", "a-b", "ab"}[rnd.IntN(3)], fmt.Sprintf("p%d", rnd.IntN(300))
					o := k.New()
					o.SetName(name)
					if k.Namespaced {
						o.SetNamespace(ns)
					}
					key := k.Key(o.GetNamespace(), name)
					_, there := want[key]
					switch op := rnd.IntN(10); {
					case op < 6 && !there:
						m.add([]byte(key), o)
						want[key] = o
					case op < 6:
						m.put([]byte(key), o)
						want[key] = o
					default:
						m.del([]byte(key))
						delete(want, key)
					}
					for _, probe := range []string{key, key + "x", key[:len(key)-1]} {
						got, ok := getTyped(&m, []byte(probe))
						if w, wok := want[probe]; got != w || ok != wok {
							t.Fatalf("%s step %d: get(%s) = %v, %v; want %v", k.Kind, step, probe, got, ok, wok)
						}
					}
					if m.len() != len(want) {
						t.Fatalf("%s step %d: len %d; want %d", k.Kind, step, m.len(), len(want))
					}
					checkTable(t, &m.t)
				}
			}
		})
	}
}

// keyIs tells an object's key from every other, by each of its parts.
func TestKeyIs(t *testing.T) {
	p := kinds.Pod.New().(*corev1.Pod)
	p.Namespace, p.Name = "default", "web-1"
	n := kinds.Node.New().(*corev1.Node)
	n.Name = "n1"
	for _, c := range []struct {
		k   *kinds.Kind
		key string
		o   Object
		is  bool
	}{
		{kinds.Pod, "/registry/pods/default/web-1", p, true},
		{kinds.Pod, "/registry/pods/default/web-2", p, false},
		{kinds.Pod, "/registry/pods/defaulx/web-1", p, false},
		{kinds.Pod, "/registry/pods/default-web-1", p, false},
		{kinds.Pod, "/registry/pods/default/web-1x", p, false},
		{kinds.Pod, "/registry/podz/default/web-1", p, false},
		{kinds.Pod, "/registry/pods-default/web-1", p, false},
		{kinds.Pod, "", p, false},
		{kinds.Node, "/registry/minions/n1", n, true},
		{kinds.Node, "/registry/minions/n2", n, false},
		{kinds.Node, "/registry/minions//n1", n, false},
	} {
		if got := keyIs(c.k, c.key, c.o); got != c.is {
			t.Errorf("keyIs(%q, %s/%s) = %v; want %v", c.key, c.o.GetNamespace(), c.o.GetName(), got, c.is)
		}
		if got := keyIs(c.k, []byte(c.key), c.o); got != c.is {
			t.Errorf("keyIs([]byte %q) = %v; want %v", c.key, got, c.is)
		}
	}
}

// List gives objects in key order, "a-b/x" before "a/x" as etcd's range
// reads do, and a namespace's alone, for kinds kept typed and at rest.
func TestListInKeyOrder(t *testing.T) {
	s := New()
	var want []string
	for _, ns := range []string{"ab", "a", "a-b", "b"} {
		for _, name := range []string{"y", "x"} {
			p := typedPod(name)
			p.Namespace = ns
			if _, err := s.Create(p, 0); err != nil {
				t.Fatal(err)
			}
			ev := recorded()
			ev.Namespace, ev.Name = ns, name+".1816687ec0570295"
			if _, err := s.Create(ev, 0); err != nil {
				t.Fatal(err)
			}
			want = append(want, ns+"/"+name)
		}
	}
	slices.Sort(want)
	names := func(objs []Object) (out []string) {
		for _, o := range objs {
			n := o.GetName()
			if i := len(n) - len(".1816687ec0570295"); i > 0 {
				n = n[:i]
			}
			out = append(out, o.GetNamespace()+"/"+n)
		}
		return out
	}
	for _, k := range []*kinds.Kind{kinds.Pod, kinds.Event} {
		if got := names(s.List(k, "")); !slices.Equal(got, want) {
			t.Errorf("List(%s) = %v; want %v", k.Kind, got, want)
		}
		if got := names(s.List(k, "a")); !slices.Equal(got, []string{"a/x", "a/y"}) {
			t.Errorf("List(%s, a) = %v", k.Kind, got)
		}
		if got := s.List(k, "c"); len(got) != 0 {
			t.Errorf("List(%s, c) = %v", k.Kind, names(got))
		}
	}
}

// cmpObjectNames orders names as their keys' strings order, over every
// pair of namespaces and names of up to two bytes of "-./0a" (and none).
func TestCmpObjectNames(t *testing.T) {
	var parts []string
	alphabet := "-./0a"
	parts = append(parts, "")
	for i := range alphabet {
		parts = append(parts, alphabet[i:i+1])
		for j := range alphabet {
			parts = append(parts, alphabet[i:i+1]+alphabet[j:j+1])
		}
	}
	sign := func(c int) int { return min(max(c, -1), 1) }
	for _, ans := range parts {
		for _, bns := range parts {
			for _, an := range parts[:7] {
				for _, bn := range parts[:7] {
					a, b := objectName{ans, an}, objectName{bns, bn}
					want := sign(strings.Compare(ans+"/"+an, bns+"/"+bn))
					if got := sign(cmpObjectNames(a, b)); got != want {
						t.Fatalf("cmpObjectNames(%q, %q) = %d; want %d", a, b, got, want)
					}
				}
			}
		}
	}
}

// List reads the current objects, not those of the last time it sorted:
// a write after a List shows in the next.
func TestListAfterAWrite(t *testing.T) {
	s := New()
	for _, name := range []string{"a", "b"} {
		if _, err := s.Create(typedPod(name), 0); err != nil {
			t.Fatal(err)
		}
	}
	_ = s.List(kinds.Pod, "default")
	o, _ := s.Get(kinds.Pod, "default", "b")
	next := o.(*corev1.Pod).DeepCopy()
	next.Spec.NodeName = "n1"
	if _, err := s.Update(next, 0); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"", "default"} {
		if got := s.List(kinds.Pod, ns); len(got) != 2 || got[1] != Object(next) {
			t.Errorf("List(%q) after a write = %v; want the written pod last", ns, got)
		}
	}
	// Creates that grow the table, and deletes, move objects between
	// slots: the next List sorts again.
	for i := range 40 {
		if _, err := s.Create(typedPod("c"+strconv.Itoa(i)), 0); err != nil {
			t.Fatal(err)
		}
		_ = s.List(kinds.Pod, "")
	}
	if _, _, err := s.Delete(kinds.Pod, "default", "a", "", 0); err != nil {
		t.Fatal(err)
	}
	got := s.List(kinds.Pod, "default")
	if len(got) != 41 || got[0] != Object(next) {
		t.Fatalf("List after creates and a delete has %d pods, first %s", len(got), got[0].GetName())
	}
	for i := 1; i < len(got); i++ {
		if got[i-1].GetName() >= got[i].GetName() {
			t.Errorf("List after creates and a delete: %s before %s", got[i-1].GetName(), got[i].GetName())
		}
	}
}

// List of Events reads their current versions: an Event written after a
// List shows its new version in the next.
func TestListEventsAfterAWrite(t *testing.T) {
	s := New()
	for _, name := range []string{"a.1", "b.1"} {
		ev := recorded()
		ev.Name = name
		if _, err := s.Create(ev, 0); err != nil {
			t.Fatal(err)
		}
	}
	_ = s.List(kinds.Event, "default")
	o, _ := s.Get(kinds.Event, "default", "b.1")
	next := o.(*corev1.Event)
	next.Count = 7
	if _, err := s.Update(next, 0); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"", "default"} {
		got := s.List(kinds.Event, ns)
		if len(got) != 2 || got[1].(*corev1.Event).Count != 7 {
			t.Errorf("List(%q) after a write does not hold the written Event's count", ns)
		}
	}
}
