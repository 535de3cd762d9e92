package podtopologyspread

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestParseConstraintsCache checks that the cached parse is ParseConstraints'
// for every variation of what it reads, and that different inputs never
// share a key.
func TestParseConstraintsCache(t *testing.T) {
	one, honor, ignore := int32(1), corev1.NodeInclusionPolicyHonor, corev1.NodeInclusionPolicyIgnore
	base := func() corev1.TopologySpreadConstraint {
		return corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}
	}
	variants := []func(c *corev1.TopologySpreadConstraint, p *corev1.Pod){
		func(c *corev1.TopologySpreadConstraint, p *corev1.Pod) {},
		func(c *corev1.TopologySpreadConstraint, p *corev1.Pod) { p.Namespace = "other" },
		func(c *corev1.TopologySpreadConstraint, p *corev1.Pod) { c.MaxSkew = 2 },
		func(c *corev1.TopologySpreadConstraint, p *corev1.Pod) { c.TopologyKey = corev1.LabelHostname },
		func(c *corev1.TopologySpreadConstraint, p *corev1.Pod) { c.WhenUnsatisfiable = corev1.ScheduleAnyway },
		func(c *corev1.TopologySpreadConstraint, p *corev1.Pod) { c.MinDomains = &one },
		func(c *corev1.TopologySpreadConstraint, p *corev1.Pod) { c.NodeAffinityPolicy = &ignore },
		func(c *corev1.TopologySpreadConstraint, p *corev1.Pod) { c.NodeAffinityPolicy = &honor },
		func(c *corev1.TopologySpreadConstraint, p *corev1.Pod) { c.NodeTaintsPolicy = &honor },
		func(c *corev1.TopologySpreadConstraint, p *corev1.Pod) { c.LabelSelector = nil },
		func(c *corev1.TopologySpreadConstraint, p *corev1.Pod) { c.LabelSelector = &metav1.LabelSelector{} },
		func(c *corev1.TopologySpreadConstraint, p *corev1.Pod) { c.LabelSelector.MatchLabels["app"] = "db" },
		func(c *corev1.TopologySpreadConstraint, p *corev1.Pod) { c.LabelSelector.MatchLabels["tier"] = "a" },
		func(c *corev1.TopologySpreadConstraint, p *corev1.Pod) {
			c.LabelSelector.MatchLabels = map[string]string{"app": "web,tier=a"} // not valid, but not the same key
		},
		func(c *corev1.TopologySpreadConstraint, p *corev1.Pod) {
			c.LabelSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"a", "b"}}}
		},
		func(c *corev1.TopologySpreadConstraint, p *corev1.Pod) {
			c.LabelSelector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"a", "b"}}}
		},
		func(c *corev1.TopologySpreadConstraint, p *corev1.Pod) { c.MatchLabelKeys = []string{"hash"} },
		func(c *corev1.TopologySpreadConstraint, p *corev1.Pod) {
			c.MatchLabelKeys = []string{"hash"}
			p.Labels["hash"] = "1"
		},
		func(c *corev1.TopologySpreadConstraint, p *corev1.Pod) {
			c.MatchLabelKeys = []string{"hash"}
			p.Labels["hash"] = "2"
		},
		func(c *corev1.TopologySpreadConstraint, p *corev1.Pod) { p.Labels["hash"] = "2" }, // not a matchLabelKey: same as the first
	}
	pl := &PodTopologySpread{}
	parsedAs := map[string]string{} // key -> what it parsed to
	for i, v := range variants {
		c := base()
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprint("p", i), Labels: map[string]string{"app": "web"}}}
		v(&c, p)
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{c, base()}
		for _, action := range []corev1.UnsatisfiableConstraintAction{corev1.DoNotSchedule, corev1.ScheduleAnyway} {
			for range 2 { // a miss, then a hit
				got, err := pl.parseConstraints(p, action)
				want, werr := ParseConstraints(p, p.Spec.TopologySpreadConstraints, action)
				if fmt.Sprint(err) != fmt.Sprint(werr) {
					t.Fatalf("variant %d: %v, want %v", i, err, werr)
				}
				g, w := describe(got), describe(want)
				if werr != nil {
					w = werr.Error()
				}
				if g != w && werr == nil {
					t.Errorf("variant %d %s: cached %s, parsed %s", i, action, g, w)
				}
				key := string(pl.keyBuf)
				if prev, ok := parsedAs[key]; ok && prev != w {
					t.Errorf("variant %d %s: key %q parsed to %s before, now %s", i, action, key, prev, w)
				}
				parsedAs[key] = w
			}
		}
	}
	if len(parsedAs) < len(variants) {
		t.Errorf("%d keys for %d variants", len(parsedAs), len(variants))
	}
}

func describe(cs []Constraint) string {
	s := ""
	for _, c := range cs {
		s += fmt.Sprintf("{%d %s %d %s %v %v %q}", c.MaxSkew, c.TopologyKey, c.MinDomains, c.Selector, c.HonorAffinity, c.HonorTaints, c.query.Key)
	}
	return s
}
