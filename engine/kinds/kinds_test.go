package kinds

import "testing"

// SameLabels is Semantic.DeepEqual of two label maps: nil and empty
// alike, and the same map equal to itself without reading it.
func TestSameLabels(t *testing.T) {
	shared := map[string]string{"app": "web", "pod-template-hash": "5d8f9c7b6"}
	for _, c := range []struct {
		name string
		a, b map[string]string
		want bool
	}{
		{"both nil", nil, nil, true},
		{"nil and empty", nil, map[string]string{}, true},
		{"one map", shared, shared, true},
		{"equal maps", shared, map[string]string{"app": "web", "pod-template-hash": "5d8f9c7b6"}, true},
		{"a value changed", shared, map[string]string{"app": "api", "pod-template-hash": "5d8f9c7b6"}, false},
		{"a label more", shared, map[string]string{"app": "web", "pod-template-hash": "5d8f9c7b6", "tier": "front"}, false},
		{"nil and some", nil, shared, false},
	} {
		if got := SameLabels(c.a, c.b); got != c.want {
			t.Errorf("%s: SameLabels = %v; want %v", c.name, got, c.want)
		}
		if got := SameLabels(c.b, c.a); got != c.want {
			t.Errorf("%s, swapped: SameLabels = %v; want %v", c.name, got, c.want)
		}
	}
}
