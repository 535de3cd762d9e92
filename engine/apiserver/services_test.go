package apiserver

import (
	"math/rand"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// qosClassMaps is QOSClass as first written, with maps, as k/k's
// ComputePodQOS is: the reference the allocation-free QOSClass must agree
// with.
func qosClassMaps(spec *corev1.PodSpec) corev1.PodQOSClass {
	requests, limits := corev1.ResourceList{}, corev1.ResourceList{}
	guaranteed := true
	all := append(append([]corev1.Container(nil), spec.InitContainers...), spec.Containers...)
	for _, c := range all {
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			if q, ok := c.Resources.Requests[name]; ok && !q.IsZero() {
				sum := requests[name]
				sum.Add(q)
				requests[name] = sum
			}
			if q, ok := c.Resources.Limits[name]; ok && !q.IsZero() {
				sum := limits[name]
				sum.Add(q)
				limits[name] = sum
			} else {
				guaranteed = false
			}
		}
	}
	if len(requests) == 0 && len(limits) == 0 {
		return corev1.PodQOSBestEffort
	}
	if guaranteed {
		for name, r := range requests {
			if l, ok := limits[name]; !ok || l.Cmp(r) != 0 {
				guaranteed = false
			}
		}
	}
	if guaranteed && len(requests) == len(limits) {
		return corev1.PodQOSGuaranteed
	}
	return corev1.PodQOSBurstable
}

func TestQOSClass(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	names := []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage}
	values := []string{"0", "100m", "0.1", "1", "500Mi", "1Gi"}
	list := func() corev1.ResourceList {
		if r.Intn(4) == 0 {
			return nil
		}
		l := corev1.ResourceList{}
		for _, n := range names {
			if r.Intn(3) > 0 {
				l[n] = resource.MustParse(values[r.Intn(len(values))])
			}
		}
		return l
	}
	containers := func(max int) []corev1.Container {
		var cs []corev1.Container
		for range r.Intn(max + 1) {
			cs = append(cs, corev1.Container{Resources: corev1.ResourceRequirements{Requests: list(), Limits: list()}})
		}
		return cs
	}
	seen := map[corev1.PodQOSClass]int{}
	for range 20000 {
		spec := &corev1.PodSpec{InitContainers: containers(1), Containers: containers(3)}
		if r.Intn(2) == 0 { // requests equal to limits, as defaulting makes them
			for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
				for i := range cs {
					cs[i].Resources.Requests = cs[i].Resources.Limits
				}
			}
		}
		got, want := QOSClass(spec), qosClassMaps(spec)
		if got != want {
			t.Fatalf("QOSClass(%+v) = %s; want %s", spec, got, want)
		}
		seen[got]++
	}
	for _, c := range []corev1.PodQOSClass{corev1.PodQOSBestEffort, corev1.PodQOSBurstable, corev1.PodQOSGuaranteed} {
		if seen[c] < 500 {
			t.Errorf("only %d %s pods: the inputs must exercise every class (%v)", seen[c], c, seen)
		}
	}
}
