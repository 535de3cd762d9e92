package kubelet

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/workload"
)

// LogLine is one line a container printed, with when it printed it.
type LogLine struct {
	Time sim.Tick
	Text string
}

// Logs is what `kubectl logs` reads through the API server from the pod's
// kubelet: the lines the container's simulated process has printed so far.
// container may be empty for a pod with one container. previous asks for
// the last terminated instance; containers are not restarted yet (the
// Maintain issue adds restarts), so there is none. Errors carry the API
// server's and the kubelet's wording.
func (m *Manager) Logs(namespace, pod, container string, previous bool) ([]LogLine, error) {
	obj, err := m.env.Store.Get(kinds.Pod, namespace, pod)
	if err != nil {
		return nil, err
	}
	po := obj.(*corev1.Pod)
	if container == "" {
		if len(po.Spec.Containers) != 1 {
			names := make([]string, len(po.Spec.Containers))
			for i, c := range po.Spec.Containers {
				names[i] = c.Name
			}
			return nil, apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s, choose one of: %v", pod, names))
		}
		container = po.Spec.Containers[0].Name
	}
	found := false
	for _, c := range po.Spec.Containers {
		found = found || c.Name == container
	}
	if !found {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("container %s is not valid for pod %s", container, pod))
	}
	if po.Spec.NodeName == "" {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("pod %s does not have a host assigned", pod))
	}
	var c *ctr
	var p *podState
	if k := m.kubelets[po.Spec.NodeName]; k != nil {
		if p = k.pods[kinds.Pod.Key(namespace, pod)]; p != nil {
			for _, x := range p.ctrs {
				if x.spec.Name == container {
					c = x
				}
			}
		}
	}
	if previous {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("previous terminated container %q in pod %q not found", container, pod))
	}
	if c == nil || c.stage < stageRunning {
		reason := ReasonContainerCreating
		if c != nil && c.reason != "" {
			reason = c.reason
		}
		switch reason {
		case ReasonErrImagePull:
			reason = "image can't be pulled"
		case ReasonImagePullBackOff:
			reason = "trying and failing to pull image"
		}
		return nil, apierrors.NewBadRequest(fmt.Sprintf("container %q in pod %q is waiting to start: %s", container, pod, reason))
	}
	return c.logs(m.env.Loop.Now(), p.ip, pod), nil
}

// logs renders what the container printed up to now: the image's start-up
// lines, and its shutdown lines once stopped. A container whose spec
// overrides the image's command or arguments runs something else, which
// prints nothing until the Maintain issue simulates commands.
func (c *ctr) logs(now sim.Tick, ip, hostname string) []LogLine {
	if len(c.spec.Command) > 0 || len(c.spec.Args) > 0 {
		return nil
	}
	var out []LogLine
	emit := func(from, until sim.Tick, lines []workload.LogLine) {
		for _, l := range lines {
			t := from + l.After
			if t > until {
				break
			}
			out = append(out, LogLine{Time: t, Text: workload.Render(l.Text, t, ip, hostname)})
		}
	}
	end := now
	if c.stage >= stageStopping {
		end = min(now, c.stoppedAt)
	}
	emit(c.startedAt, end, c.img.Logs)
	if c.stage >= stageStopping {
		end = now
		if c.stage == stageExited {
			end = min(now, c.finishedAt)
		}
		emit(c.stoppedAt, end, c.img.Behavior.StopLogs)
	}
	return out
}

// FormatLogs prints log lines as `kubectl logs` does, with --timestamps
// prefixing each with its RFC 3339 time.
func FormatLogs(lines []LogLine, timestamps bool) string {
	var b strings.Builder
	for _, l := range lines {
		if timestamps {
			b.WriteString(l.Time.Time().Format("2006-01-02T15:04:05.000000000Z07:00"))
			b.WriteByte(' ')
		}
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	return b.String()
}
