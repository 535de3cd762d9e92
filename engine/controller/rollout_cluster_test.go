package controller_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubeloop/kubeloop/engine"
	"github.com/kubeloop/kubeloop/engine/controller"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/repl"
)

// TestRolloutCluster replays testdata/cluster/*.txt against a whole
// cluster (scheduler, kubelets, the simulated registry), driven through the
// REPL, and checks the rollout invariants after every settled instant of
// every `watch`. Regenerate with `go test ./engine/controller -run
// RolloutCluster -rewrite`, and read every changed line before committing.
//
// Commands:
//
//	kubectl                   each input line is a REPL line; prints what it printed
//	watch NAME D              advance D of virtual time, checking the invariants
//	                          after every settled instant; print a line whenever
//	                          the Deployment's pods or its Progressing condition change
func TestRolloutCluster(t *testing.T) {
	datadriven.Walk(t, "testdata/cluster", func(t *testing.T, path string) {
		var out bytes.Buffer
		s := repl.NewSession(&out, &out, repl.Config{})
		// One watch per Deployment for the whole file, so that the
		// availability floor, armed once all replicas were available,
		// stays armed across commands.
		watches := map[string]*rolloutWatch{}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "kubectl":
				out.Reset()
				_ = s.Exec(d.Input + "\n")
				return out.String()
			case "watch":
				if len(d.CmdArgs) != 2 {
					t.Fatalf("%s: watch NAME DURATION", d.Pos)
				}
				dur, err := time.ParseDuration(d.CmdArgs[1].Key)
				if err != nil {
					t.Fatalf("%s: %v", d.Pos, err)
				}
				w := watches[d.CmdArgs[0].Key]
				if w == nil {
					w = newRolloutWatch(s.Eng, "default", d.CmdArgs[0].Key)
					watches[d.CmdArgs[0].Key] = w
				}
				w.out.Reset()
				w.maxPods, w.minAvail = 0, 1<<30
				w.advance(sim.FromDuration(dur))
				if len(w.violations) > 0 {
					t.Errorf("%s: %s", d.Pos, strings.Join(w.violations, "\n"))
					w.violations = nil
				}
				return w.out.String()
			}
			t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
			return ""
		})
	})
}

// rolloutWatch checks a Deployment's pods against the bounds Kubernetes
// promises (k8s-facts §3.2–3.4) after every settled instant:
//
//   - RollingUpdate: at most replicas + maxSurge pods that are not
//     terminating, and, once that many were available at this size, at
//     least replicas - maxUnavailable available pods;
//   - Recreate: no pod of the new ReplicaSet while any old pod is still
//     there, terminating or not.
type rolloutWatch struct {
	e        *engine.Engine
	ns, name string
	out      bytes.Buffer
	last     string
	lastCond string
	// armed: replicas - maxUnavailable pods were available once at this
	// size, so the availability floor applies from then on.
	armed      bool
	replicas   int32
	maxPods    int32
	minAvail   int32
	violations []string
}

func newRolloutWatch(e *engine.Engine, ns, name string) *rolloutWatch {
	return &rolloutWatch{e: e, ns: ns, name: name, minAvail: 1 << 30}
}

func (w *rolloutWatch) advance(d sim.Tick) {
	dep := w.deployment()
	if dep != nil {
		r := *dep.Spec.Replicas
		if dep.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
			fmt.Fprintf(&w.out, "bounds: Recreate, no new pod while an old one is there\n")
		} else {
			fmt.Fprintf(&w.out, "bounds: at most %d pods (%d + maxSurge %d), at least %d available (%d - maxUnavailable %d)\n",
				r+controller.MaxSurge(dep), r, controller.MaxSurge(dep), r-controller.MaxUnavailable(dep), r, controller.MaxUnavailable(dep))
		}
	}
	w.e.AdvanceUntil(func() bool { w.check(); return false }, d)
	switch {
	case dep == nil:
	case dep.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType:
		fmt.Fprintf(&w.out, "observed: at most %d pods\n", w.maxPods)
	case w.armed:
		fmt.Fprintf(&w.out, "observed: at most %d pods, at least %d available\n", w.maxPods, w.minAvail)
	default:
		fmt.Fprintf(&w.out, "observed: at most %d pods (fewer than replicas - maxUnavailable available so far)\n", w.maxPods)
	}
}

func (w *rolloutWatch) deployment() *appsv1.Deployment {
	o, ok := w.e.Store.Lookup(kinds.Deployment, w.ns, w.name)
	if !ok {
		return nil
	}
	return o.(*appsv1.Deployment)
}

type podCounts struct {
	pods, ready, available, terminating int32
}

func (w *rolloutWatch) check() {
	dep := w.deployment()
	if dep == nil {
		return
	}
	now := w.e.Now()
	mnow := metav1.NewTime(now.Time())
	var rss []*appsv1.ReplicaSet
	for _, o := range w.e.Store.List(kinds.ReplicaSet, w.ns) {
		if ref := metav1.GetControllerOfNoCopy(o); ref != nil && ref.UID == dep.UID {
			rss = append(rss, o.(*appsv1.ReplicaSet))
		}
	}
	newRS := controller.FindNewReplicaSet(dep, rss)
	var newC, oldC podCounts
	for _, o := range w.e.Store.List(kinds.Pod, w.ns) {
		p := o.(*corev1.Pod)
		ref := metav1.GetControllerOfNoCopy(p)
		if ref == nil {
			continue
		}
		owned, isNew := false, false
		for _, rs := range rss {
			if rs.UID == ref.UID {
				owned, isNew = true, newRS != nil && rs.UID == newRS.UID
			}
		}
		if !owned || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		c := &oldC
		if isNew {
			c = &newC
		}
		switch {
		case p.DeletionTimestamp != nil:
			c.terminating++
		default:
			c.pods++
			if controller.IsPodReady(p) {
				c.ready++
			}
			if controller.IsPodAvailable(p, dep.Spec.MinReadySeconds, mnow) {
				c.available++
			}
		}
	}
	r := *dep.Spec.Replicas
	pods, avail := newC.pods+oldC.pods, newC.available+oldC.available
	if r != w.replicas {
		// A scale is not a rollout: the floor for the new size applies
		// once it has been reached.
		w.replicas, w.armed = r, false
	}
	if avail >= r-controller.MaxUnavailable(dep) {
		w.armed = true
	}
	if dep.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		if newC.pods+newC.terminating > 0 && oldC.pods+oldC.terminating > 0 {
			w.violations = append(w.violations, fmt.Sprintf("%s: Recreate runs %d new pods beside %d old ones", now, newC.pods, oldC.pods+oldC.terminating))
		}
	} else {
		if most := r + controller.MaxSurge(dep); pods > most {
			w.violations = append(w.violations, fmt.Sprintf("%s: %d pods > replicas + maxSurge = %d", now, pods, most))
		}
		if least := r - controller.MaxUnavailable(dep); w.armed && avail < least {
			w.violations = append(w.violations, fmt.Sprintf("%s: %d available < replicas - maxUnavailable = %d", now, avail, least))
		}
	}
	w.maxPods = max(w.maxPods, pods)
	if w.armed {
		w.minAvail = min(w.minAvail, avail)
	}

	newName := "-"
	if newRS != nil {
		newName = newRS.Name
	}
	line := fmt.Sprintf("pods %d, available %d | new %s: %d pods, %d ready, %d available | old: %d pods, %d available",
		pods, avail, newName, newC.pods, newC.ready, newC.available, oldC.pods, oldC.available)
	if t := newC.terminating + oldC.terminating; t > 0 {
		line += fmt.Sprintf(" | terminating %d", t)
	}
	if line != w.last {
		fmt.Fprintf(&w.out, "%s %s\n", now, line)
		w.last = line
	}
	if c := controller.GetDeploymentCondition(dep.Status, appsv1.DeploymentProgressing); c != nil {
		cond := fmt.Sprintf("Progressing=%s %s: %s", c.Status, c.Reason, c.Message)
		if cond != w.lastCond {
			fmt.Fprintf(&w.out, "%s %s\n", now, cond)
			w.lastCond = cond
		}
	}
}

// TestRollingUpdateBounds rolls a new image out over a table of sizes and
// strategies and checks, after every settled instant, that a rolling
// update never runs more than replicas + maxSurge pods nor has fewer than
// replicas - maxUnavailable available, and that it finishes.
func TestRollingUpdateBounds(t *testing.T) {
	for _, tc := range []struct {
		replicas           int32
		surge, unavailable string
		minReady           int32
	}{
		{10, "25%", "25%", 0},
		{10, "25%", "25%", 5},
		{10, "0", "1", 0},
		{10, "1", "0", 0},
		{10, "30%", "0", 0},
		{7, "0", "30%", 0},
		{4, "50%", "50%", 0},
		{5, "100%", "0", 0},
		{3, "1", "0", 0},
		{1, "25%", "25%", 0},
		{1, "0", "1", 0},
		{3, "0", "25%", 0}, // 25% of 3 rounds down to 0 and maxSurge is 0: maxUnavailable becomes 1
	} {
		name := fmt.Sprintf("%d/%s/%s/minReady=%d", tc.replicas, tc.surge, tc.unavailable, tc.minReady)
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			s := repl.NewSession(&out, &out, repl.Config{})
			r := tc.replicas
			surge, unavailable := intstr.Parse(tc.surge), intstr.Parse(tc.unavailable)
			d := &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
				ObjectMeta: metav1.ObjectMeta{Name: "api"},
				Spec: appsv1.DeploymentSpec{Replicas: &r, MinReadySeconds: tc.minReady,
					Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "api"}},
					Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
						RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable}},
					Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "api"}},
						Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "api", Image: "nginx:1.27"}}}}}}
			if _, err := s.Eng.API.Create(s.Eng.Command("apply -f api.yaml"), d); err != nil {
				t.Fatal(err)
			}
			w := newRolloutWatch(s.Eng, "default", "api")
			w.advance(2 * sim.Minute)
			if dep := w.deployment(); !controller.DeploymentComplete(dep, &dep.Status) {
				t.Fatalf("the first rollout did not finish:\n%s", w.out.String())
			}
			out.Reset()
			if err := s.Exec("set image deployment/api api=nginx:1.28\n"); err != nil {
				t.Fatal(out.String())
			}
			w.advance(10 * sim.Minute)
			for _, v := range w.violations {
				t.Error(v)
			}
			dep := w.deployment()
			if !controller.DeploymentComplete(dep, &dep.Status) {
				t.Errorf("rollout not complete after 10 minutes:\n%s", w.out.String())
			}
			if surge := controller.MaxSurge(dep); surge > 0 && w.maxPods != r+surge {
				t.Errorf("at most %d pods during the rollout; a rolling update uses its whole surge, %d", w.maxPods, r+surge)
			}
		})
	}
}
