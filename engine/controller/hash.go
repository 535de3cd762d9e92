package controller

import (
	"encoding/binary"
	"hash/fnv"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/dump"
	"k8s.io/apimachinery/pkg/util/rand"
)

// ComputeHash is the pod-template-hash of a Deployment's pod template, as
// kube-controller-manager computes it (pkg/controller/controller_utils.go
// ComputeHash with pkg/util/hash DeepHashObject): FNV-32a over the template
// printed by go-spew with the hash configuration of apimachinery's
// dump.ForHash (sorted map keys, no methods, "%#v"), followed, if the
// Deployment has had a name collision, by collisionCount as 8 little-endian
// bytes; the decimal sum is then mapped into the consonant-and-digit
// alphabet by rand.SafeEncodeString ("7d6d974dbf").
//
// The template must be the defaulted one the API server stored. It is
// hashed as the controller sees it after the watch delivered it in
// protobuf, where an empty list or map arrives as nil: a manifest's `env:
// []` and a missing env hash the same, as in a real cluster. Like the real
// hash, the result depends on the k8s.io/api version's fields; this is the
// 1.34 hash.
func ComputeHash(template *corev1.PodTemplateSpec, collisionCount *int32) string {
	t := asWatched(template)
	h := fnv.New32a()
	h.Write([]byte(dump.ForHash(t)))
	if collisionCount != nil {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint32(b, uint32(*collisionCount))
		h.Write(b)
	}
	return rand.SafeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10))
}

// asWatched returns the template as a protobuf round trip delivers it to a
// controller.
func asWatched(t *corev1.PodTemplateSpec) *corev1.PodTemplateSpec {
	b, err := t.Marshal()
	if err != nil {
		panic("controller: marshalling pod template: " + err.Error())
	}
	out := &corev1.PodTemplateSpec{}
	if err := out.Unmarshal(b); err != nil {
		panic("controller: unmarshalling pod template: " + err.Error())
	}
	return out
}
