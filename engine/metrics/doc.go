// Package metrics is kubeloop's metrics-server: the component that serves
// the resource metrics API (metrics.k8s.io/v1beta1 PodMetrics and
// NodeMetrics) that `kubectl top` and the HorizontalPodAutoscaler read.
//
// A real metrics-server scrapes every kubelet's /metrics/resource endpoint
// once per --metric-resolution (15 s by default) and turns the cumulative
// CPU counters of two consecutive scrapes into a rate; memory is the
// working set at the scrape. This Server scrapes the simulated cluster on
// the same 15 s timer, starting 15 s after the cluster starts, so that the
// API has nothing to serve before the first scrape ("metrics not available
// yet", as after installing metrics-server). A container's usage comes from
// the workload model (engine/workload's load.go): its image's idle baseline
// plus its share of its Deployment's demand, capped at its limit. Besides
// the demand set with `load`, a running pod whose command is a wget or curl
// loop against a Service (the walkthrough's busybox load generator) adds
// workload.LoadGeneratorCPU to that Service's ready endpoints.
//
// Simplifications, said here rather than silently:
//
//   - Usage is the model's value at the scrape instant, not an average of
//     the window; the window reported is the resolution (15 s).
//   - A pod has metrics once all its containers were already running at the
//     previous scrape (two points make a rate), which is about when a real
//     metrics-server first reports a new pod.
//   - Node usage is the sum of its pods' usage plus a fixed overhead for the
//     system daemons (kubelet, container runtime, kernel).
//   - The demand share goes to a pod's first container; others idle.
//
// The Server is not a reactor: it writes nothing and records nothing in the
// trace (metrics-server writes nothing to etcd either). It is deterministic:
// a scrape is a function of the store and the load table at that instant.
package metrics
