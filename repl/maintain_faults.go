package repl

// Faults a learner injects into containers: kill, break and heal. They are
// simulation commands, recorded in the trace as the learner's command,
// that act on the simulated process through its node's kubelet
// (kubelet.Manager.Kill, Break, Heal); Kubernetes then notices only what
// its kubelet and probes notice.

import (
	"fmt"
	"strings"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/kubelet"
)

func init() {
	register(&Command{
		Name:  "kill",
		Usage: "kill pod/NAME [-c CONTAINER] [--exit-code N]",
		Short: "make a container's process die (a crash)",
		Long: `kill makes the main process of a pod's container die at once, as a crash or
` + "`kill -9`" + ` inside the container would. The default exit code is 137 (128 + 9,
SIGKILL), what a killed process reports; --exit-code sets another (0 is a
clean exit). Kubernetes notices through the kubelet: the container
terminates with that exit code (reason Error, or Completed for 0) and is
restarted as the pod's restartPolicy says (Always: always; OnFailure:
after a non-zero exit; Never: never), behind the crash-loop back-off (the
first restart is immediate, then 10 s, 20 s, 40 s, ... up to 5 min).
Without -c the pod's first container is killed.`,
		Example: "kill pod/web\nkill pod/web -c api --exit-code 1",
		Group:   GroupPlayground,
		Flags: []Flag{{Name: "container", Short: "c", Value: "CONTAINER", Usage: "the container to kill (default: the first)"},
			{Name: "exit-code", Value: "N", Usage: "the exit code of the dead process (default 137, as SIGKILL gives)"},
			FlagNamespace},
		Run: runKill,
	})
	for _, c := range []struct {
		name, short, long, example string
	}{
		{"break", "make a container's health endpoint fail", `break makes the endpoint that one of a container's probes checks fail: an
HTTP probe gets 500, a TCP probe is refused, an exec probe's command exits 1,
a gRPC probe hears NOT_SERVING. The kubelet notices at the probe's next
period and acts after failureThreshold failures in a row: a liveness (or
startup) probe kills and restarts the container, a readiness probe marks it
not ready, so the pod leaves its Services' endpoints (it is never restarted
for that). A restarted container starts healthy; heal undoes break.`,
			"break pod/web liveness\nbreak pod/web readiness -c api"},
		{"heal", "make a broken health endpoint answer again", `heal undoes break: the container's endpoint for the given probe (or for
every probe, without one) answers again, and the kubelet notices at the
probe's next period (a readiness probe after successThreshold successes).`,
			"heal pod/web readiness\nheal pod/web"},
	} {
		name := c.name
		usage := name + " pod/NAME liveness|readiness|startup [-c CONTAINER]"
		if name == "heal" {
			usage = name + " pod/NAME [liveness|readiness|startup] [-c CONTAINER]"
		}
		register(&Command{
			Name:    name,
			Usage:   usage,
			Short:   c.short,
			Long:    c.long,
			Example: c.example,
			Group:   GroupPlayground,
			Flags: []Flag{{Name: "container", Short: "c", Value: "CONTAINER", Usage: "the container (default: the first)"},
				FlagNamespace},
			Run: func(s *Session, args []string, _ string) error { return runBreak(s, args, name) },
		})
	}
}

// faultPod reads pod/NAME (or a bare NAME) and checks that the pod exists,
// with kubectl's NotFound when it does not.
func faultPod(s *Session, arg, ns string) (string, error) {
	kindName, name, slash := strings.Cut(arg, "/")
	if !slash {
		kindName, name = "pod", arg
	}
	k, err := lookupKind(kindName)
	if err != nil {
		return "", err
	}
	if k != kinds.Pod {
		return "", kerrorf("%s works on pods, not %s", s.cmd.Name, qualifiedResource(k))
	}
	if name == "" {
		return "", usagef("expected pod/NAME")
	}
	if _, ok := s.Eng.Store.Lookup(kinds.Pod, ns, name); !ok {
		return "", kubectlError(notFound(kinds.Pod, name))
	}
	return name, nil
}

func runKill(s *Session, args []string, _ string) error {
	f, err := s.Parse(args)
	if err != nil {
		return err
	}
	if len(f.Args) != 1 {
		return usagef("kill needs one pod/NAME")
	}
	code := kubelet.KillExitCode
	if f.Changed("exit-code") {
		n, err := f.Int("exit-code")
		if err != nil {
			return err
		}
		if n < 0 || n > 255 {
			return kerrorf("--exit-code must be between 0 and 255, got %d", n)
		}
		code = n
	}
	ns := namespaceFlag(s, f)
	name, err := faultPod(s, f.Args[0], ns)
	if err != nil {
		return err
	}
	container := f.String("container")
	if err := s.Eng.Kubelets().Kill(s.Actor().Cause, ns, name, container, int32(code)); err != nil {
		return kubectlError(err)
	}
	fmt.Fprintf(s.Out, "pod/%s killed: its container's process exited with code %d\n", name, code)
	return nil
}

func runBreak(s *Session, args []string, verb string) error {
	f, err := s.Parse(args)
	if err != nil {
		return err
	}
	probe := ""
	switch {
	case verb == "break" && len(f.Args) != 2:
		return usagef("break needs pod/NAME and a probe type: liveness, readiness or startup")
	case verb == "heal" && (len(f.Args) < 1 || len(f.Args) > 2):
		return usagef("heal needs pod/NAME and, optionally, a probe type")
	case len(f.Args) == 2:
		probe = strings.ToLower(f.Args[1])
		if _, ok := kubelet.ParseProbeKind(probe); !ok {
			return usagef("unknown probe type %q: use liveness, readiness or startup", f.Args[1])
		}
	}
	ns := namespaceFlag(s, f)
	name, err := faultPod(s, f.Args[0], ns)
	if err != nil {
		return err
	}
	m := s.Eng.Kubelets()
	op := m.Break
	if verb == "heal" {
		op = m.Heal
	}
	if err := op(s.Actor().Cause, ns, name, f.String("container"), probe); err != nil {
		return kubectlError(err)
	}
	what := "every health endpoint"
	if probe != "" {
		what = "the " + probe + " endpoint"
	}
	if verb == "break" {
		fmt.Fprintf(s.Out, "pod/%s: %s now fails\n", name, what)
	} else {
		fmt.Fprintf(s.Out, "pod/%s: %s answers again\n", name, what)
	}
	return nil
}
