// Package printers prints Kubernetes objects the way kubectl does: get's
// tables, -o json, -o yaml and -o name, and describe. It is pure: functions
// from k8s.io/api objects, the virtual now and the related objects a caller
// passes in, to text. Nothing here reads the clock or the store.
package printers
