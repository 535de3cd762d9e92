// Package nodename is the NodeName plugin: a pod that names a node
// (spec.nodeName) fits only that node. kube-scheduler never queues such
// pods (they are already bound); the filter matters where other code runs
// the filters, as the kubelet's admission does.
package nodename
