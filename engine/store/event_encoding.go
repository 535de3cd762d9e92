package store

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// An Event repeats itself. The recorder names it after its object (the
// object's name, a dot, the time in hex), puts it in its object's
// namespace, stamps the same time three times (created, first seen, last
// seen) and names its reporter and its host twice; its uid and its
// object's are UUIDs, 36 characters of hex for 16 bytes. Six Events a
// pod, each kept for an hour, make Events most of what etcd holds in a
// busy cluster.
//
// So before encoding an Event the store takes out what the rest of it
// says again, and puts it back on decode: a flag in the blob's header byte
// for each, and the part that is not repeated (the uids' 16 bytes) in a
// few bytes kept before the protobuf encoding. What is left is still the
// Event's protobuf encoding, of an Event with those fields empty; an
// Event that does not repeat itself keeps its fields. VerifyEncoding
// checks every Event a test writes, as every other kind.
//
// The bytes kept first are the Event's etcd key, whole: the store's map
// and the API server's TTL queue find an Event by it, and history reads
// it back. The Event's name and namespace are read back from it, and so
// is its object's name (the name's part before its last dot, client-go's
// naming) and namespace when they repeat them, and its creationTimestamp
// when it is the time the name says (see nameTime). An Event about an
// object often names it in its message as well ("Successfully assigned
// default/web-1 to node-7", "Created pod: web-5d8f9c7b6-x2k4q"): 20 to
// 30 bytes that a delta against another object's Event keeps mostly as
// they are. So when the object's name is the key's, the message is kept
// without its first mention of it, and where it stood is kept after the
// key (see messageAt).
//
// Only the key's field, its length, stays ahead of the body (see
// blob.bodyAt); the key and the rest of the bytes kept start the body, so
// that an Event kept as a delta against another Event of its reason and
// workload keeps of its key only what differs: the pod's generated suffix
// and the last digits of the time, about 15 bytes of 66. Reading the key
// of such an Event rebuilds its body; the map does so only for a key
// whose hash matches, and an Event kept whole, a reference, still gives
// its key as a substring of its bytes.

// The flags of an Event's header byte (bit 0 says whether it carried its
// TypeMeta, as for every kind).
const (
	evNamespace   = 1 << (iota + 1) // involvedObject.namespace is the key's namespace
	evName                          // involvedObject.name is the key's name up to its last "."; a uvarint after the key says where the message named it
	evUID                           // metadata.uid is a UUID: its 16 bytes are kept
	evInvolvedUID                   // involvedObject.uid is a UUID: its 16 bytes are kept
	evFirst                         // firstTimestamp is creationTimestamp
	evLast                          // lastTimestamp is firstTimestamp
	evReporting                     // reportingComponent is source.component, and reportingInstance source.host
)

// elided is what stripEvent took out of an Event, to put back after
// encoding it.
type elided struct {
	namespace, name, involvedNS, involvedName, uid, involvedUID, reporting, instance string
	message                                                                          string // whole, if it was kept without involvedName
	created, first, last                                                             metav1.Time
	namedTime                                                                        bool // created was taken out (see nameTime)
}

// stripEvent empties the fields of ev that the rest of it repeats, appends
// to extra what restoring them needs (first the key's field, then the
// key, which prefix, its kind's etcd prefix, begins; none if its
// namespace would not read back), and returns the header flags and what
// it took out (see restore). involved is the Event's object's uid, read
// by the caller (see involvedUID), if isUUID; if uidInBase, the Event's
// base keeps it (see involvedCache), and extra does not.
func stripEvent(ev *corev1.Event, prefix string, extra []byte, involved [16]byte, isUUID, uidInBase bool) (byte, []byte, elided) {
	var flags byte
	var was elided
	if strings.IndexByte(ev.Namespace, '/') >= 0 {
		extra = append(extra, 0) // no key
	} else {
		// One uvarint says how long the key is and whether the Event's
		// creationTimestamp is the time its name says (see nameTime): 1 +
		// the length of "namespace/name", shifted left once, and the flag
		// in bit 0 (the header byte has no bit left). The namespace ends
		// at the key's first "/" after the prefix, as it holds none
		// (checked above). A pod's Event's "namespace/name" is under 63
		// bytes, so this is one byte.
		field := uint64(len(ev.Namespace)+1+len(ev.Name)+1) << 1
		// Compared as values, zone included, as the times below.
		if t, ok := nameTime(ev.Name); ok && ev.CreationTimestamp.Time == t {
			field |= 1
			was.namedTime = true
		}
		extra = binary.AppendUvarint(extra, field)
		extra = append(append(append(append(append(extra, prefix...), '/'), ev.Namespace...), '/'), ev.Name...)
		if ev.InvolvedObject.Namespace == ev.Namespace {
			flags |= evNamespace
			was.involvedNS, ev.InvolvedObject.Namespace = ev.InvolvedObject.Namespace, ""
		}
		if i := strings.LastIndexByte(ev.Name, '.'); i >= 0 && ev.Name[:i] == ev.InvolvedObject.Name {
			flags |= evName
			was.involvedName, ev.InvolvedObject.Name = ev.InvolvedObject.Name, ""
			at := -1 // where the message names the object
			if was.involvedName != "" {
				at = strings.Index(ev.Message, was.involvedName)
			}
			if at >= 0 {
				was.message = ev.Message
				ev.Message = ev.Message[:at] + ev.Message[at+len(was.involvedName):]
			}
			extra = binary.AppendUvarint(extra, uint64(at+1)) // see messageAt
		}
		was.namespace, was.name = ev.Namespace, ev.Name
		ev.Namespace, ev.Name = "", ""
	}
	if u, ok := parseUUID(string(ev.UID)); ok {
		flags |= evUID
		extra = append(extra, u[:]...)
		was.uid, ev.UID = string(ev.UID), ""
	}
	if isUUID {
		flags |= evInvolvedUID
		if !uidInBase {
			extra = append(extra, involved[:]...)
		}
		was.involvedUID, ev.InvolvedObject.UID = string(ev.InvolvedObject.UID), ""
	}
	// Times compare as values, zone included, so that the copy put back
	// is the same time in the same zone.
	first := ev.FirstTimestamp
	if !first.IsZero() && first.Time == ev.CreationTimestamp.Time {
		flags |= evFirst
		was.first, ev.FirstTimestamp = first, metav1.Time{}
	}
	if !ev.LastTimestamp.IsZero() && ev.LastTimestamp.Time == first.Time {
		flags |= evLast
		was.last, ev.LastTimestamp = ev.LastTimestamp, metav1.Time{}
	}
	if r, i := ev.ReportingController, ev.ReportingInstance; r != "" && r == ev.Source.Component && i == ev.Source.Host {
		flags |= evReporting
		was.reporting, was.instance = r, i
		ev.ReportingController, ev.ReportingInstance = "", ""
	}
	if was.namedTime { // last: evFirst compared firstTimestamp with it
		was.created, ev.CreationTimestamp = ev.CreationTimestamp, metav1.Time{}
	}
	return flags, extra, was
}

// A pod's Events (Scheduled, Pulling, Pulled, Created, Started) all name
// it by its uid, 16 bytes that a delta against another pod's Event keeps
// as they are. So the first Event about an object that keeps its uid
// whole is remembered by that uid, and a later Event about the object
// takes it as its base: it keeps the uid only there, and its delta
// stays short. (An Event's base is nothing else: Events keep no spec or
// metadata apart.) Only an Event that keeps its key may share its uid, so
// that its versions read back wherever they lie.
//
// What remembers them is a cache, not a map: a table of slots picked by
// the uid's bits (uids are random), each holding the last uid put there
// and its Event, overwritten by the next. A lookup reads one slot, where
// a map of 65,536 uids cost a hash and three cache misses (0.3 CPU-s at
// 1000x150). An Event whose uid's slot another took keeps its uid, as it
// would without the cache. The table starts small and doubles while it
// fills, up to maxInvolvedSlots (1.5 MB).
const maxInvolvedSlots = 1 << 16

// involvedCache is that cache.
type involvedCache struct {
	slots []involvedSlot // a power of two of them
	puts  int            // since the table last doubled
}

type involvedSlot struct {
	uid [16]byte
	b   *blob
}

// slot is u's slot.
func (c *involvedCache) slot(u [16]byte) *involvedSlot {
	h := binary.LittleEndian.Uint64(u[:8]) ^ binary.LittleEndian.Uint64(u[8:])
	h *= 0x9e3779b97f4a7c15
	return &c.slots[h>>(64-bits.TrailingZeros(uint(len(c.slots))))]
}

// get is the remembered Event that keeps uid u, or nil.
func (c *involvedCache) get(u [16]byte) *blob {
	if len(c.slots) == 0 {
		return nil
	}
	if sl := c.slot(u); sl.b != nil && sl.uid == u {
		return sl.b
	}
	return nil
}

// put remembers b, an Event's version that keeps its object's uid u. The
// table doubles once it has taken twice as many puts as it has slots.
func (c *involvedCache) put(u [16]byte, b *blob) {
	switch {
	case len(c.slots) == 0:
		c.slots = make([]involvedSlot, 1<<10)
	case c.puts >= 2*len(c.slots) && len(c.slots) < maxInvolvedSlots:
		old := c.slots
		c.slots, c.puts = make([]involvedSlot, 2*len(old)), 0
		for _, sl := range old {
			if sl.b != nil {
				*c.slot(sl.uid) = sl
			}
		}
	}
	*c.slot(u) = involvedSlot{u, b}
	c.puts++
}

// involvedUID is ev's object's uid, whether it is a UUID, and whether
// ev's version may share it with another Event about its object: only one
// that keeps its key (see stripEvent).
func involvedUID(ev *corev1.Event) (u [16]byte, isUUID, mayShare bool) {
	u, isUUID = parseUUID(string(ev.InvolvedObject.UID))
	return u, isUUID, isUUID && strings.IndexByte(ev.Namespace, '/') < 0
}

// keptInvolvedUID is the 16 bytes of its object's uid that b, an Event's
// version another takes as its base, keeps.
func (b *blob) keptInvolvedUID() string {
	field, at := b.keyField()
	body := b.data[at:]
	if b.ref != nil {
		body = string(b.body(kinds.Event, nil))
	}
	flags := b.data[0]
	n := eventExtraLen(flags, field, false, body)
	if flags&evInvolvedUID == 0 || b.base != nil {
		panic("store: an Event's base keeps no uid of its object")
	}
	return body[n-16 : n]
}

// nameTime is the time an Event's name says it was made, to the
// millisecond: client-go's recorder names an Event after its object, a
// dot and the time in hex nanoseconds, and kubeloop's API server counts
// the Events of a millisecond in its nanoseconds (see the apiserver's
// eventName) and stamps the Event's creationTimestamp with that
// millisecond. So a recorded Event's creationTimestamp need not be kept:
// 7 bytes of protobuf and times, most of them a delta's literals, that
// its name says again. false if the name does not end in hex (a name
// anyone else chose); the caller then compares the time it gives with
// the Event's, and keeps the Event's unless they are equal.
func nameTime(name string) (time.Time, bool) {
	i := strings.LastIndexByte(name, '.')
	hex := name[i+1:] // all of it if there is no dot
	if len(hex) == 0 || len(hex) > 16 {
		return time.Time{}, false
	}
	var u uint64
	for j := 0; j < len(hex); j++ {
		d := hexValue[hex[j]]
		if d > 0xf {
			return time.Time{}, false
		}
		u = u<<4 | uint64(d)
	}
	ns := int64(u)
	if ns < 0 {
		return time.Time{}, false // past 2262
	}
	return time.Unix(0, ns-ns%1e6).UTC(), true
}

// restore gives ev back what stripEvent took out of it.
func (was *elided) restore(ev *corev1.Event, flags byte) {
	if was.namespace != "" || was.name != "" {
		ev.Namespace, ev.Name = was.namespace, was.name
	}
	if was.namedTime {
		ev.CreationTimestamp = was.created
	}
	if flags&evNamespace != 0 {
		ev.InvolvedObject.Namespace = was.involvedNS
	}
	if flags&evName != 0 {
		ev.InvolvedObject.Name = was.involvedName
	}
	if was.message != "" {
		ev.Message = was.message
	}
	if flags&evUID != 0 {
		ev.UID = types.UID(was.uid)
	}
	if flags&evInvolvedUID != 0 {
		ev.InvolvedObject.UID = types.UID(was.involvedUID)
	}
	if flags&evFirst != 0 {
		ev.FirstTimestamp = was.first
	}
	if flags&evLast != 0 {
		ev.LastTimestamp = was.last
	}
	if flags&evReporting != 0 {
		ev.ReportingController, ev.ReportingInstance = was.reporting, was.instance
	}
}

// workload is the workload that an object named name belongs to, as its
// name says: the name without its last generated part, after its last
// "-" (a pod "web-5d8f9c7b6-x2k4q" is its ReplicaSet's "web-5d8f9c7b6",
// which is its Deployment's "web"), or the whole name if it has no "-".
// It only groups Events for their references (see refKey): a name cut
// where no suffix was generated costs a reference set, not a wrong
// object.
func workload(name string) string {
	if i := strings.LastIndexByte(name, '-'); i >= 0 {
		return name[:i]
	}
	return name
}

// eventKeyLen is the length of the key an Event keeps, from its key
// field: a uvarint, 0 for no key, else 1 + the length of "namespace/name"
// shifted left once (bit 0 is a flag, see stripEvent). The key, kept first
// in the Event's body, is prefix/namespace/name.
func eventKeyLen(field uint64) int { return len(eventPrefix) + 1 + int(field>>1-1) }

// splitEventKey is the namespace and name in an Event's key; the
// namespace ends at the first "/" after the prefix, as it holds none (see
// stripEvent).
func splitEventKey(key string) (namespace, name string) {
	nsName := key[len(eventPrefix)+1:]
	i := strings.IndexByte(nsName, '/')
	return nsName[:i], nsName[i+1:]
}

// eventExtraLen is the length of the bytes stripEvent kept after the key
// field, at the start of body: the key, if field says it keeps one, where
// the message named its object, and the uids (its object's unless its
// base keeps it).
func eventExtraLen[T string | []byte](flags byte, field uint64, uidInBase bool, body T) int {
	n := 0
	if field != 0 {
		n = eventKeyLen(field)
	}
	_, n = messageAt(flags, body, n)
	if flags&evUID != 0 {
		n += 16
	}
	if flags&evInvolvedUID != 0 && !uidInBase {
		n += 16
	}
	return n
}

// messageAt reads, at n in extra (where the key ends), where an Event's
// message named its object: 1 + the offset in the message kept, 0 if it
// did not or the Event keeps its object's name (no evName flag: then
// nothing is kept). end is where what follows starts.
func messageAt[T string | []byte](flags byte, extra T, n int) (at uint64, end int) {
	if flags&evName == 0 {
		return 0, n
	}
	at, a := uvarint(extra[n:])
	return at, n + a
}

// eventPrefix is where etcd keeps Events.
var eventPrefix = kinds.Event.EtcdPrefix

// unstripEvent fills in, on an Event decoded from a blob, the fields
// stripEvent emptied, from the rest of it, its key field, the kept bytes
// extra and, if its base keeps it, its object's uid's 16 bytes
// (involvedUID; "" if extra has them). Its times must already be whole
// (restoreTimes).
func unstripEvent(ev *corev1.Event, flags byte, field uint64, extra, involvedUID string) {
	ok, n := field != 0, 0
	var ns, name string
	if ok {
		n = eventKeyLen(field)
		ns, name = splitEventKey(extra[:n])
	}
	namedTime := field&1 != 0
	at, n := messageAt(flags, extra, n)
	extra = extra[n:]
	if ok {
		ev.Namespace, ev.Name = ns, name
		if namedTime {
			ev.CreationTimestamp.Time, _ = nameTime(name) // before evFirst copies it
		}
		if flags&evNamespace != 0 {
			ev.InvolvedObject.Namespace = ns
		}
		if flags&evName != 0 {
			object := name[:strings.LastIndexByte(name, '.')]
			ev.InvolvedObject.Name = object
			if at > 0 {
				ev.Message = ev.Message[:at-1] + object + ev.Message[at-1:]
			}
		}
	}
	if flags&evUID != 0 {
		ev.UID = types.UID(formatUUID(extra[:16]))
		extra = extra[16:]
	}
	if flags&evInvolvedUID != 0 {
		if involvedUID == "" {
			involvedUID = extra[:16]
		}
		ev.InvolvedObject.UID = types.UID(formatUUID(involvedUID))
	}
	if flags&evFirst != 0 {
		ev.FirstTimestamp = ev.CreationTimestamp
	}
	if flags&evLast != 0 {
		ev.LastTimestamp = ev.FirstTimestamp
	}
	if flags&evReporting != 0 {
		ev.ReportingController, ev.ReportingInstance = ev.Source.Component, ev.Source.Host
	}
}

// parseUUID reads a UUID in its canonical form (lowercase hex, dashes
// after 8, 12, 16 and 20 digits), the form every uid kubeloop makes has:
// an Event's uids (see stripEvent), or one in what a delta appends (see
// appendLiteral, which tries it at every byte: the dashes are checked
// first, so that most bytes are rejected at once). It reads the digits
// through a table, without a branch per digit.
func parseUUID[T string | []byte](s T) (u [16]byte, ok bool) {
	if len(s) != uuidLen || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, false
	}
	var bad byte
	for j, i := range uuidDigits {
		hi, lo := hexValue[s[i]], hexValue[s[i+1]]
		bad |= hi | lo
		u[j] = hi<<4 | lo&0xf
	}
	return u, bad&0xf0 == 0
}

// uuidDigits is where each byte's two hex digits start in a UUID.
var uuidDigits = [16]uint8{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}

// hexValue is the value of each lowercase hex digit; 0xff for any other
// byte.
var hexValue = func() (t [256]byte) {
	for c := range t {
		t[c] = unhex(byte(c))
	}
	return t
}()

// unhex is the value of a lowercase hex digit, or 0xff.
func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return 0xff
}

// appendUUID appends the canonical form of the UUID whose 16 bytes are u.
func appendUUID(dst []byte, u string) []byte {
	const digits = "0123456789abcdef"
	for i := range 16 {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, digits[u[i]>>4], digits[u[i]&0xf])
	}
	return dst
}

// formatUUID is the canonical form of the UUID whose 16 bytes are u.
func formatUUID(u string) string {
	var out [uuidLen]byte
	return string(appendUUID(out[:0], u))
}
