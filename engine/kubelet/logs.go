package kubelet

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
)

// LogLine is one line a container printed, with when it printed it.
type LogLine struct {
	Time sim.Tick
	Text string
}

// Logs is what `kubectl logs` reads through the API server from the pod's
// kubelet: the lines the container's simulated process has printed so far
// (the last instance's, while it waits to restart). container may be empty
// for a pod with one container. previous asks for the instance before the
// current one (`logs --previous`), kept when the container restarts.
// Errors carry the API server's and the kubelet's wording.
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
		if p = k.pod(namespace, pod); p != nil {
			for i := range p.ctrs {
				x := &p.ctrs[i]
				if x.spec.Name == container {
					c = x
				}
			}
		}
	}
	now := m.env.Loop.Now()
	if previous {
		// kubectl logs --previous reads lastState's container.
		more := &noMore // its exits
		if c != nil {
			more = c.peek()
		}
		switch {
		case c == nil || more.last == nil || c.stage == stageExited && more.reason != ReasonCrashLoopBackOff && more.prevLast == nil:
			return nil, apierrors.NewBadRequest(fmt.Sprintf("previous terminated container %q in pod %q not found", container, pod))
		case c.stage == stageRunning || c.stage == stageStopping || c.stage == stageExited && more.reason != ReasonCrashLoopBackOff:
			return more.prevLogs, nil // the instance before the current one
		}
		return c.logs(now), nil // waiting to restart: lastState is the instance that just ended
	}
	if c != nil && c.proc != nil {
		// Running, or ended: its logs stay readable until the next
		// instance starts (lastState's container while it waits).
		return c.logs(now), nil
	}
	if c == nil || c.proc == nil && c.stage < stageRunning {
		reason := ReasonContainerCreating
		if c != nil && c.peek().reason != "" {
			reason = c.peek().reason
		}
		switch reason {
		case ReasonErrImagePull:
			reason = "image can't be pulled"
		case ReasonImagePullBackOff:
			reason = "trying and failing to pull image"
		}
		return nil, apierrors.NewBadRequest(fmt.Sprintf("container %q in pod %q is waiting to start: %s", container, pod, reason))
	}
	return c.logs(now), nil
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
