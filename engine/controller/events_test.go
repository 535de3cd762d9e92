package controller

import (
	"fmt"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
)

// TestCorrelator: a recorder's tenth different message of one reason about
// one object within ten minutes starts a combined Event; the spam filter
// lets 25 writes out, then one every five minutes, each carrying the
// count of everything observed; ten quiet minutes start aggregation anew.
func TestCorrelator(t *testing.T) {
	f := newFixture(t)
	rs := f.create(&appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}}}}})
	c := &correlator{}
	n := 0
	created := func(at sim.Tick, k int) {
		f.env.Loop.SetNow(at)
		for range k {
			n++
			c.event(f.env.API, setup, at, "replicaset-controller", rs, corev1.EventTypeNormal, "SuccessfulCreate",
				fmt.Sprintf("Created pod: web-%03d", n))
		}
	}
	events := func() (individual []string, combined []*corev1.Event) {
		for _, o := range f.env.Store.List(kinds.Event, "default") {
			ev := o.(*corev1.Event)
			if strings.HasPrefix(ev.Message, combinedPrefix) {
				combined = append(combined, ev)
			} else {
				individual = append(individual, ev.Message)
			}
		}
		return individual, combined
	}

	created(0, 30)
	individual, combined := events()
	if len(individual) != 9 || individual[8] != "Created pod: web-009" {
		t.Errorf("individual Events = %q; want web-001 to web-009", individual)
	}
	if len(combined) != 1 || combined[0].Count != 16 || combined[0].Message != combinedPrefix+"Created pod: web-025" {
		t.Fatalf("combined Events = %+v; want one, count 16, the 25th message", combined)
	}
	name := combined[0].Name

	// Five minutes on, one token is back: the next write carries the five
	// the filter dropped.
	created(5*sim.Minute, 2)
	_, combined = events()
	if len(combined) != 1 || combined[0].Name != name || combined[0].Count != 22 ||
		combined[0].Message != combinedPrefix+"Created pod: web-031" || sim.FromTime(combined[0].LastTimestamp.Time) != 5*sim.Minute {
		t.Errorf("after 5m: %+v; want count 22 of web-031, the 32nd dropped", combined)
	}

	// Over ten minutes after the last one, aggregation starts over, but the
	// spam filter has only two tokens back.
	created(15*sim.Minute+1, 3)
	individual, _ = events()
	if len(individual) != 11 || individual[10] != "Created pod: web-034" {
		t.Errorf("individual Events = %q; want web-033 and web-034 added", individual)
	}
}

// TestLRU: the least recently used entry goes first, and a get counts as
// a use.
func TestLRU(t *testing.T) {
	var c lru[int, string]
	for i := range lruCacheEntries {
		c.add(i, fmt.Sprint(i))
	}
	c.get(0)                      // 0 is now the most recent; 1 the least
	c.add(lruCacheEntries, "new") // evicts 1
	if _, ok := c.get(1); ok {
		t.Error("1 is still cached")
	}
	for _, k := range []int{0, 2, lruCacheEntries} {
		if _, ok := c.get(k); !ok {
			t.Errorf("%d was evicted", k)
		}
	}
	if c.len() != lruCacheEntries || len(c.at) != lruCacheEntries {
		t.Errorf("%d entries, %d keys; want %d", c.len(), len(c.at), lruCacheEntries)
	}
}
