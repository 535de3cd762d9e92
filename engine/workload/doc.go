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
// Behavior is deliberately open: the Maintain issue adds exits, crashes,
// probe answers, memory use and load to it; the kubelet asks the image what
// its process does instead of hard-coding it.
package workload
