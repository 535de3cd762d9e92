package controller

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubeloop/kubeloop/engine/apiserver"
	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/record"
	"github.com/kubeloop/kubeloop/engine/sim"
)

// Every controller of kube-controller-manager records its Events through
// its own client-go broadcaster, whose EventCorrelator stands between the
// controller and the API server (tools/record/events_cache.go):
//
//   - The aggregator: once one recorder has said ten different things of
//     the same reason about one object within ten minutes (a ReplicaSet's
//     "Created pod: web-x2k4q", "Created pod: web-7f9zt", ...), the tenth
//     and every later one go into a single Event whose message reads
//     "(combined from similar events): " and the latest one, and whose
//     count grows.
//   - The spam filter: a recorder may write about one object 25 times,
//     then once every five minutes (a token bucket). What it drops is
//     still counted, so the next write carries the whole count.
//
// So a ReplicaSet scaled from 0 to 150 leaves nine "Created pod" Events
// and one combined Event of count 16: the 25 writes the filter let
// through. The other 125 pods were created all the same; only their
// Events were dropped, which is why Events are no audit log.
//
// The correlator's caches keep 4,096 entries each, least recently used
// first out, as client-go's.

const (
	aggregateMaxEvents = 10              // client-go's defaultAggregateMaxEvents
	aggregateInterval  = 10 * sim.Minute // defaultAggregateIntervalInSeconds
	lruCacheEntries    = 4096            // maxLruCacheEntries, of each of the correlator's caches

	combinedPrefix = "(combined from similar events): " // EventAggregatorByReasonMessageFunc
)

// objectKey is what getSpamKey says of an Event's object (its recorder
// being the correlator's own).
type objectKey struct {
	kind            *kinds.Kind // its Kind and apiVersion
	namespace, name string
	uid             types.UID
}

// aggregateKey is EventAggregatorByReasonFunc's key: the object, the type
// and the reason.
type aggregateKey struct {
	obj         objectKey
	typ, reason string
}

// aggregateRecord is the messages seen of one aggregateKey, and when the
// last was.
type aggregateRecord struct {
	messages []string // in the order first seen; at most aggregateMaxEvents
	last     sim.Tick
}

// eventKey is the logger's key of an Event: getEventKey (the object,
// type, reason and message) for one not combined, the aggregate key for a
// combined one.
type eventKey struct {
	aggregateKey
	message  string
	combined bool
}

// observation is the logger's record of an Event (eventLog): its name,
// first time and count, whether or not the spam filter let it out.
type observation struct {
	name  string
	first sim.Tick
	count int32
}

// correlator is one recorder's EventCorrelator.
type correlator struct {
	aggregates lru[aggregateKey, aggregateRecord]
	observed   lru[eventKey, observation]
	spam       lru[objectKey, sim.Tick] // each bucket's theoretical arrival time (see allow)
}

// event records an Event about obj through c: it may be combined with
// similar ones, or dropped by the spam filter.
func (c *correlator) event(api *apiserver.Server, a apiserver.Actor, now sim.Tick, source string, obj kinds.Object, eventType, reason, message string) {
	k := kinds.Of(obj)
	ok := objectKey{kind: k, namespace: obj.GetNamespace(), name: obj.GetName(), uid: obj.GetUID()}
	ak := aggregateKey{obj: ok, typ: eventType, reason: reason}

	// EventAggregate.
	// The records are changed in place in their caches (see lru.ref): a
	// new one is the zero record.
	rec := c.aggregates.ref(ak)
	if now-rec.last > aggregateInterval {
		*rec = aggregateRecord{}
	}
	if !slices.Contains(rec.messages, message) {
		rec.messages = append(rec.messages, message)
	}
	rec.last = now
	key := eventKey{aggregateKey: ak, message: message}
	if n := len(rec.messages); n >= aggregateMaxEvents {
		// client-go pops any one message (a set's); kubeloop the oldest.
		// The rest move down in place: the list stays in the array it
		// has, where reslicing past the oldest would make every append
		// after the tenth grow a new one.
		copy(rec.messages, rec.messages[1:])
		rec.messages[n-1] = ""
		rec.messages = rec.messages[:n-1]
		key.message, key.combined = "", true
	}

	// eventObserve: a repeat takes the earlier Event's name and first
	// time, and counts one more.
	o := c.observed.ref(key)
	if o.count == 0 { // not seen
		*o = observation{name: api.EventName(obj.GetName()), first: now}
	}
	o.count++

	if c.allow(ok, now) { // the spam filter
		if key.combined {
			// Made only for an Event the filter lets out: of a
			// ReplicaSet's 150 "Created pod" Events, 141 are combined
			// and 125 of those dropped.
			message = combinedPrefix + message
		}
		api.RecordObservedEvent(a, corev1.EventSource{Component: source}, obj, o.name, eventType, reason, message, o.count, o.first)
	}
}

// allow is the spam filter for obj (see record.Allow), its bucket kept in
// an LRU cache as client-go keeps it.
func (c *correlator) allow(obj objectKey, now sim.Tick) bool {
	return record.Allow(c.spam.ref(obj), now)
}

// lru is a least-recently-used cache of lruCacheEntries, as groupcache's
// lru.Cache that client-go's correlator uses: a get or add moves an entry
// to the front; an add past the bound evicts the back.
//
// The order is a ring through the entries themselves, with root as its
// sentinel, rather than a container/list of boxed entries: one allocation
// for a new key instead of two, and no type assertion on each use. Most
// keys are new (every "Created pod" message is its own Event key). The
// ring points at root, so an lru must not be copied once used: a
// correlator, which holds three, is kept by pointer.
type lru[K comparable, V any] struct {
	root lruEntry[K, V] // root.next is the most recent, root.prev the least
	at   map[K]*lruEntry[K, V]
}

type lruEntry[K comparable, V any] struct {
	prev, next *lruEntry[K, V]
	key        K
	val        V
}

func (c *lru[K, V]) get(k K) (V, bool) {
	if e, ok := c.at[k]; ok {
		c.toFront(e)
		return e.val, true
	}
	var zero V
	return zero, false
}

func (c *lru[K, V]) add(k K, v V) {
	if c.at == nil {
		c.at = map[K]*lruEntry[K, V]{}
		c.root.prev, c.root.next = &c.root, &c.root
	}
	if e, ok := c.at[k]; ok {
		c.toFront(e)
		e.val = v
		return
	}
	e := &lruEntry[K, V]{key: k, val: v}
	c.link(e)
	c.at[k] = e
	if len(c.at) > lruCacheEntries {
		old := c.root.prev
		c.unlink(old)
		delete(c.at, old.key)
	}
}

// ref is the value of k, in place, as a get that adds the zero value if k
// is missing: one lookup for a read-modify-write.
func (c *lru[K, V]) ref(k K) *V {
	if e, ok := c.at[k]; ok {
		c.toFront(e)
		return &e.val
	}
	var zero V
	c.add(k, zero)
	return &c.root.next.val
}

// len is the number of entries cached.
func (c *lru[K, V]) len() int { return len(c.at) }

func (c *lru[K, V]) toFront(e *lruEntry[K, V]) {
	if c.root.next != e {
		c.unlink(e)
		c.link(e)
	}
}

// link puts e at the front.
func (c *lru[K, V]) link(e *lruEntry[K, V]) {
	e.prev, e.next = &c.root, c.root.next
	c.root.next.prev = e
	c.root.next = e
}

func (c *lru[K, V]) unlink(e *lruEntry[K, V]) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil // an evicted entry keeps nothing alive
}
