// Package printers prints Kubernetes objects the way kubectl does: get's
// tables, -o json, -o yaml and -o name, and describe; and it gives objects
// their Kubernetes JSON shape for kubeloop's expressions.
//
// It is pure: functions from k8s.io/api objects, the virtual now (a
// time.Time passed in, never the wall clock) and the related objects a
// caller hands over, to text. Nothing here reads the store or the clock,
// and the same inputs always give the same bytes.
//
// # API
//
//	PrintTable(w, kind, objs, Options{Wide, ShowLabels, AllNamespaces, NoHeaders, WithKind, Now}) error
//	    kubectl get's table for objects of one kind, in the order given
//	    (kubectl shows the API server's order: namespace, then name). Writes
//	    nothing for no objects; the caller prints NoResourcesFound to stderr.
//	NoResourcesFound(kind, namespace, allNamespaces) string
//	    "No resources found in default namespace." or "No resources found".
//	HasTable(kind) bool
//	PodStatus(pod) string, NodeStatus(node) string
//	    the STATUS cells of get pods and get nodes.
//
//	PrintObject(w, format, objs, isList) error
//	    -o json, -o yaml or -o name; one object by itself when !isList and
//	    there is exactly one, else a v1 List.
//	ResourceName(obj) string, KindPrefix(kind) string
//	    "deployment.apps/api", "deployment.apps/".
//	MarshalJSON(v), MarshalYAML(v), ListValue(items)
//	    kubectl's encoders for JSON values, and its List wrapper.
//
//	Describe(w, obj, DescribeContext{Now, Events, Pods, ReplicaSets, EndpointSlices, Leases}) error
//	    kubectl describe; the context holds candidates, and Describe keeps
//	    what kubectl's own queries would return for obj.
//	HasDescriber(kind) bool, DescribeProbe(probe) string
//
//	ToJSONValue(obj) map[string]any, ToJSONValues(objs) []any
//	    the object as json.Unmarshal of the API server's bytes gives it.
//	JSONCache{}: Value(obj), Values(objs), Sweep(), Len()
//	    the same, converting each unchanged store object only once.
//
// # Faithfulness
//
// Table cells follow k/k pkg/printers/internalversion/printers.go, which the
// API server runs for kubectl (always with wide cells; kubectl then drops
// the priority-1 columns), laid out with cli-runtime's tabwriter settings.
// describe follows k8s.io/kubectl pkg/describe/describe.go through the same
// tabwriter. JSON is kubectl's (sorted keys, four spaces, HTML escaped);
// YAML goes through go.yaml.in/yaml/v2, the encoder kubectl itself uses.
// The golden files in testdata are checked byte for byte against the real
// kubectl by TestAgainstKubectl when it is installed. Known differences:
// describe prints times in UTC (kubectl uses the local zone); describe's
// volume section knows the sources kubeloop pods use (hostPath, emptyDir,
// configMap, secret, persistentVolumeClaim, downwardAPI, projected) and
// prints kubectl's "<unknown>" for the others; kinds without a dedicated
// describer (Event, Lease) get kubectl's generic describer.
package printers
