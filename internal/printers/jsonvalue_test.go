package printers

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/randfill"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// roundTrip is the reference ToJSONValue must match: what the API server's
// bytes decode to.
func roundTrip(t testing.TB, obj kinds.Object) map[string]any {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	k := kinds.Of(obj)
	m["apiVersion"], m["kind"] = k.APIVersion(), k.Kind
	return m
}

// filler fills API objects with random but valid-to-marshal values: the
// API machinery types get values their MarshalJSON accepts.
func filler(seed int64) *randfill.Filler {
	return randfill.NewWithSeed(seed).NilChance(0.3).NumElements(0, 3).MaxDepth(12).Funcs(
		func(q *resource.Quantity, c randfill.Continue) {
			qs := []string{"100m", "1", "1.5", "64Mi", "1Gi", "0", "2k", "1e3", "500M"}
			*q = resource.MustParse(qs[c.Intn(len(qs))])
		},
		func(is *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*is = intstr.FromInt32(c.Int31n(65536))
			} else {
				*is = intstr.FromString(c.String(8))
			}
		},
		func(tm *metav1.Time, c randfill.Continue) {
			if c.Bool() {
				*tm = metav1.Time{}
				return
			}
			*tm = metav1.NewTime(time.Unix(c.Int63n(4e9), 0))
		},
		func(tm *metav1.MicroTime, c randfill.Continue) {
			if c.Bool() {
				*tm = metav1.MicroTime{}
				return
			}
			*tm = metav1.NewMicroTime(time.Unix(c.Int63n(4e9), c.Int63n(1e9)))
		},
		func(f *metav1.FieldsV1, c randfill.Continue) { *f = metav1.FieldsV1{Raw: []byte(`{"f:metadata":{}}`)} },
		func(ms *[]metav1.ManagedFieldsEntry, c randfill.Continue) { *ms = nil },
	)
}

func TestToJSONValueMatchesRoundTrip(t *testing.T) {
	for seed := int64(0); seed < 40; seed++ {
		f := filler(seed)
		objs := []kinds.Object{
			&corev1.Pod{}, &corev1.Node{}, &corev1.Service{}, &corev1.Namespace{}, &corev1.Event{},
			&appsv1.Deployment{}, &appsv1.ReplicaSet{}, &discoveryv1.EndpointSlice{},
			&coordinationv1.Lease{}, &autoscalingv2.HorizontalPodAutoscaler{},
		}
		for _, o := range objs {
			f.Fill(o)
			got, want := ToJSONValue(o), roundTrip(t, o)
			if !reflect.DeepEqual(got, want) {
				gb, _ := json.MarshalIndent(got, "", " ")
				wb, _ := json.MarshalIndent(want, "", " ")
				t.Fatalf("seed %d %T: ToJSONValue differs from the JSON round trip\ngot:  %s\nwant: %s", seed, o, gb, wb)
			}
		}
	}
}

func TestToJSONValueSetsTypeMeta(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	got := ToJSONValue(pod)
	if got["apiVersion"] != "v1" || got["kind"] != "Pod" {
		t.Errorf("ToJSONValue(pod) apiVersion, kind = %v, %v; want v1, Pod", got["apiVersion"], got["kind"])
	}
	// apimachinery 0.34 tags creationTimestamp omitzero: an API server of
	// that version leaves an unset one out (older ones sent null).
	md := got["metadata"].(map[string]any)
	if v, ok := md["creationTimestamp"]; ok {
		t.Errorf("metadata.creationTimestamp = %v; want it absent", v)
	}
}

func TestJSONCache(t *testing.T) {
	var c JSONCache
	p1 := makePod("a").rv("1").obj()
	p2 := makePod("b").rv("1").obj()
	v1 := c.Value(p1)
	if got := c.Value(p1); fmt.Sprintf("%p", got) != fmt.Sprintf("%p", v1) {
		t.Errorf("second Value(p1) was converted again; want the cached map")
	}
	c.Sweep()
	c.Value(p2)
	c.Sweep()
	if c.Len() != 1 {
		t.Errorf("after a round without p1, Len() = %d; want 1", c.Len())
	}
	p2b := p2.DeepCopy()
	p2b.ResourceVersion = "2"
	p2b.Labels = map[string]string{"x": "y"}
	if got := c.Value(p2b)["metadata"].(map[string]any)["labels"]; got == nil {
		t.Errorf("Value of an updated object returned the stale shape")
	}
}

func BenchmarkToJSONValue10kPods(b *testing.B) {
	pods := benchPods(10000)
	reportCPU(b, func() { _ = ToJSONValues(pods) })
}

func BenchmarkJSONRoundTrip10kPods(b *testing.B) {
	pods := benchPods(10000)
	reportCPU(b, func() {
		for _, p := range pods {
			_ = roundTrip(b, p)
		}
	})
}

func BenchmarkJSONCache10kPodsOneChanged(b *testing.B) {
	pods := benchPods(10000)
	var c JSONCache
	c.Values(pods)
	c.Sweep()
	i := 0
	reportCPU(b, func() {
		p := pods[i%len(pods)].(*corev1.Pod).DeepCopy()
		p.ResourceVersion = fmt.Sprint(i + 100)
		pods[i%len(pods)] = p
		i++
		_ = c.Values(pods)
		c.Sweep()
	})
}
