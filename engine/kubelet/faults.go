package kubelet

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// Faults a learner injects into containers (`kill`, `break`, `heal`).
// They act on the simulated process through its kubelet, as the real
// faults would act on the process on the node; the control plane only
// learns of them from what the kubelet then reports. Each takes the trace
// step of the learner's command as its cause.

// KillExitCode is the exit code `kill` gives by default: a process killed
// by SIGKILL (signal 9) exits with 128 + 9 = 137, as `kill -9` gives.
const KillExitCode = 137

// findContainer finds a pod's running container on its kubelet. An empty
// container name means the pod's only (or first) container, as kubectl
// exec picks the default container.
func (m *Manager) findContainer(namespace, pod, container string) (*Kubelet, *podState, *ctr, error) {
	obj, err := m.env.Store.Get(kinds.Pod, namespace, pod)
	if err != nil {
		return nil, nil, nil, err
	}
	po := obj.(*corev1.Pod)
	if container == "" && len(po.Spec.Containers) > 0 {
		container = po.Spec.Containers[0].Name
	}
	found := false
	for _, c := range po.Spec.Containers {
		found = found || c.Name == container
	}
	if !found {
		return nil, nil, nil, apierrors.NewBadRequest(fmt.Sprintf("container %s is not valid for pod %s", container, pod))
	}
	notRunning := apierrors.NewBadRequest(fmt.Sprintf("container %q in pod %q is not running", container, pod))
	k := m.kubelets[po.Spec.NodeName]
	if po.Spec.NodeName == "" || k == nil {
		return nil, nil, nil, notRunning
	}
	p := k.pod(namespace, pod)
	if p == nil || p.terminating {
		return nil, nil, nil, notRunning
	}
	for i := range p.ctrs {
		c := &p.ctrs[i]
		if c.spec.Name == container {
			if c.stage != stageRunning || c.proc == nil {
				return nil, nil, nil, notRunning
			}
			return k, p, c, nil
		}
	}
	return nil, nil, nil, notRunning
}

// Kill makes a container's process die at once with exitCode (137 is
// SIGKILL), as `kill pod/NAME [-c C] [--exit-code N]` does. The kubelet
// sees the exit and restarts the container as restartPolicy says.
func (m *Manager) Kill(cause uint64, namespace, pod, container string, exitCode int32) error {
	k, p, c, err := m.findContainer(namespace, pod, container)
	if err != nil {
		return err
	}
	c.proc.Kill(k.now(), exitCode)
	k.processExited(p, c, cause)
	return nil
}

// Break makes a container's health endpoint for one probe type fail
// (HTTP 500, TCP refused, exec exit 1), as `break pod/NAME liveness`
// does, until Heal or until the container is restarted (a new process
// starts healthy). probe is "liveness", "readiness" or "startup".
func (m *Manager) Break(cause uint64, namespace, pod, container, probe string) error {
	return m.setBroken(cause, namespace, pod, container, probe, true)
}

// Heal undoes Break; an empty probe heals every probe type.
func (m *Manager) Heal(cause uint64, namespace, pod, container, probe string) error {
	return m.setBroken(cause, namespace, pod, container, probe, false)
}

func (m *Manager) setBroken(cause uint64, namespace, pod, container, probe string, broken bool) error {
	kindsToSet := []probeKind{liveness, readiness, startup}
	if probe != "" {
		i, ok := ParseProbeKind(probe)
		if !ok {
			return fmt.Errorf("unknown probe type %q: use liveness, readiness or startup", probe)
		}
		kindsToSet = []probeKind{probeKind(i)}
	}
	k, p, c, err := m.findContainer(namespace, pod, container)
	if err != nil {
		return err
	}
	for _, kind := range kindsToSet {
		if c.peek().broken[kind] == broken {
			if probe != "" {
				state := "already failing"
				if !broken {
					state = "not broken"
				}
				return fmt.Errorf("the %s endpoint of container %s in pod %s is %s", lower(kindNames[kind]), c.spec.Name, pod, state)
			}
			continue
		}
		c.life().broken[kind] = broken
		name := lower(kindNames[kind])
		var msg, why string
		switch {
		case broken && c.more.probes[kind] == nil:
			msg = fmt.Sprintf("the %s endpoint of container %s now fails, but the container has no %s probe: nothing checks it", name, c.spec.Name, name)
			why = whyNoProbe
		case broken:
			msg = fmt.Sprintf("the %s endpoint of container %s now fails", name, c.spec.Name)
			why = whyBroken
		default:
			msg = fmt.Sprintf("the %s endpoint of container %s answers again", name, c.spec.Name)
			why = whyHealed
		}
		c.more.brokeSeq[kind] = k.maintain(p, cause, msg, why)
	}
	k.pokeProbes(p, c)
	return nil
}
