// Package workload is kubeloop's model of what runs in a container: no
// process is ever started, so this package says what one would have done.
//
// A Registry is the simulated container registry: a catalogue of common
// public images (nginx, redis, postgres, busybox, agnhost, hpa-example, ...)
// with their real compressed sizes, how long their process takes to start
// serving, the ports it listens on, the lines it prints, and how it reacts
// to being stopped. Lessons and learners add their own images to it. An
// image that is not in the registry fails to pull with the container
// runtime's own words, as in a real cluster.
//
// Image references are parsed and normalised as the kubelet and containerd
// do (docker/distribution's reference grammar): "nginx" is
// "docker.io/library/nginx:latest", a digest pins a manifest, and the
// default imagePullPolicy follows from the tag.
//
// Behavior says what an image's process does: how it stops (its stop
// signal, whether it ignores SIGTERM, how long a clean shutdown takes),
// whether it exits or crashes by itself, how its HTTP health endpoint
// answers over time (agnhost liveness: 200 for 10 s, then 500), which
// paths it serves, and how much memory it uses. Modes select an image's
// sub-command by the container's first argument (agnhost liveness).
//
// A Process is one run of a container: the kubelet starts it, steps it on
// virtual time (Next, Step), probes it (Probe: HTTP, TCP, gRPC and exec
// checks with the prober's own failure messages), stops or kills it, and
// reads what it printed (Logs). A container whose command or args run a
// shell or a busybox applet runs them in engine/workload/shell, against
// its own filesystem, so `sh -c "touch /tmp/healthy; sleep 30; ..."`
// and an exec probe `cat /tmp/healthy` behave as in the Kubernetes
// documentation. A command the image does not have fails to start (exit
// code 128, StartError) in runc's words; another program of a server image
// (`nginx -g 'daemon off;'`) behaves as the image's server but prints
// nothing, since kubeloop cannot know what it would print.
package workload
