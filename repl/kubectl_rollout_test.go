package repl

import (
	"bytes"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubeloop/kubeloop/engine/controller"
)

// TestDeploymentStatus walks kubectl's DeploymentStatusViewer branches in
// their order of precedence.
func TestDeploymentStatus(t *testing.T) {
	r := int32(4)
	progressing := func(reason string) []appsv1.DeploymentCondition {
		return []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Reason: reason}}
	}
	for _, tc := range []struct {
		name     string
		gen      int64
		st       appsv1.DeploymentStatus
		revision int64
		want     string
		done     bool
		err      string
	}{
		{name: "not observed", gen: 2, st: appsv1.DeploymentStatus{ObservedGeneration: 1},
			want: "Waiting for deployment spec update to be observed...\n"},
		{name: "deadline", gen: 1, st: appsv1.DeploymentStatus{ObservedGeneration: 1, UpdatedReplicas: 1, Conditions: progressing(controller.TimedOutReason)},
			err: `error: deployment "api" exceeded its progress deadline`},
		{name: "updating", gen: 1, st: appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 5, UpdatedReplicas: 2},
			want: "Waiting for deployment \"api\" rollout to finish: 2 out of 4 new replicas have been updated...\n"},
		{name: "old pending", gen: 1, st: appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 5, UpdatedReplicas: 4},
			want: "Waiting for deployment \"api\" rollout to finish: 1 old replicas are pending termination...\n"},
		{name: "available", gen: 1, st: appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 4, UpdatedReplicas: 4, AvailableReplicas: 3},
			want: "Waiting for deployment \"api\" rollout to finish: 3 of 4 updated replicas are available...\n"},
		{name: "done", gen: 1, st: appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 4, UpdatedReplicas: 4, AvailableReplicas: 4},
			want: "deployment \"api\" successfully rolled out\n", done: true},
		{name: "other revision", gen: 1, revision: 2, st: appsv1.DeploymentStatus{ObservedGeneration: 1},
			err: "error: desired revision (2) is different from the running revision (3)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "api", Generation: tc.gen,
				Annotations: map[string]string{controller.RevisionAnnotation: "3"}},
				Spec: appsv1.DeploymentSpec{Replicas: &r}, Status: tc.st}
			got, done, err := deploymentStatus(d, tc.revision)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v; want %s", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want || done != tc.done {
				t.Errorf("= %q, %v, %v; want %q, %v", got, done, err, tc.want, tc.done)
			}
		})
	}
}

// TestRolloutBadInput checks the usage errors of rollout, worded as
// kubectl's.
func TestRolloutBadInput(t *testing.T) {
	var out bytes.Buffer
	s := NewSession(&out, &out, Config{})
	_ = s.Exec("create deployment api --image=nginx:1.27\n")
	for line, want := range map[string]string{
		"rollout frobnicate deployment/api\n":             "unknown command \"frobnicate\" for \"kubectl rollout\"\nusage: " + commands["rollout"].Usage + "\n",
		"rollout status deployment/api --to-revision=1\n": "unknown flag: --to-revision\nusage: " + commands["rollout"].Usage + "\n",
		"rollout history deployment/api --revision=-1\n":  "error: revision must be a positive integer: -1\n",
		"rollout undo deployment/api --to-revision=-1\n":  "error: unable to find specified revision -1 in history\n",
		"rollout undo deployment/api\n":                   "error: no rollout history found for deployment \"api\"\n",
		"rollout pause pod/nope\n":                        "Error from server (NotFound): pods \"nope\" not found\n",
		"rollout status deployment/api --timeout=x\n":     "invalid argument \"x\" for \"--timeout\" flag: time: invalid duration \"x\"\nusage: " + commands["rollout"].Usage + "\n",
	} {
		out.Reset()
		_ = s.Exec(line)
		if out.String() != want {
			t.Errorf("%s printed\n%s\nwant\n%s", line, out.String(), want)
		}
	}
}

// TestRolloutCompletion offers the subcommands, then the Deployments.
func TestRolloutCompletion(t *testing.T) {
	var out bytes.Buffer
	s := NewSession(&out, &out, Config{})
	_ = s.Exec("create deployment api --image=nginx:1.27\n")
	if got, _ := s.Complete("rollout re"); !reflect.DeepEqual(got, []string{"restart", "resume"}) {
		t.Errorf("Complete(rollout re) = %q", got)
	}
	if got, _ := s.Complete("rollout undo dep"); !reflect.DeepEqual(got, []string{"deployment/api"}) {
		t.Errorf("Complete(rollout undo dep) = %q", got)
	}
}
