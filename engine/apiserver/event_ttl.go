package apiserver

import (
	"strconv"
	"strings"

	"github.com/kubeloop/kubeloop/engine/kinds"
	"github.com/kubeloop/kubeloop/engine/sim"
	"github.com/kubeloop/kubeloop/engine/store"
	"github.com/kubeloop/kubeloop/engine/trace"
)

// EventTTL is kube-apiserver's --event-ttl: etcd keeps an Event for an hour
// after its last write, then its lease expires and the key is gone. So
// `kubectl get events` shows only the last hour or so, and a long-lived
// cluster does not fill etcd with them.
//
// As in kube-apiserver's lease manager (storage/etcd3/lease_manager.go),
// writes share etcd leases: a lease is granted for the TTL plus the reuse
// duration (5% of the TTL, at most --lease-reuse-duration-seconds, 60 s),
// and later writes attach to it while it still outlives their TTL and
// expires within their TTL plus the reuse duration, up to
// --lease-max-object-count (1,000) keys. So an Event goes between one hour
// and one hour and a minute after its last write, together with the others
// of its lease.
const EventTTL = sim.Hour

// Lease sharing (kube-apiserver's defaults).
const (
	leaseReuseDuration  = sim.Minute // min(5% of the TTL, 60 s)
	leaseMaxObjectCount = 1000
)

// eventLease is one Event write waiting for its TTL to run out: the
// version it wrote, which knows its key and revision. A later write renews
// the Event, and the lease finds its version no longer current.
//
// Holding the version rather than its key and revision takes 8 bytes a
// write instead of 24. It keeps the version alive for its lease's hour:
// the Event's current version and its first (whose bytes hold the key
// every write names it by) live that long anyway; a renewed Event's
// versions in between, which etcd would drop at the next compaction, are
// few, since the recorders' spam filter lets an object's Events be
// written 25 times and then once every five minutes.
type eventLease struct {
	v store.Version
}

// eventLeases are the Event writes in the order they happened, so in the
// order their TTLs run out, with the one timer that expires the oldest.
// Writes that share an etcd lease follow each other in the queue, so the
// lease's expiry is kept once for them all (leases), not once a write.
type eventLeases struct {
	queue  eventQueue
	leases []leaseRun // the runs of queued writes on one lease, oldest first
	timer  *sim.Timer
	// The lease writes attach to, while it can be reused.
	expires  sim.Tick
	attached int
}

// leaseRun is n consecutive queued writes on the lease that expires at.
type leaseRun struct {
	at sim.Tick
	n  int
}

// lastExpiry is when the newest queued write's lease expires.
func (l *eventLeases) lastExpiry() sim.Tick { return l.leases[len(l.leases)-1].at }

// eventQueue is a FIFO queue of Event writes kept in fixed-size blocks.
// Every Event write is queued and none leaves for an hour, so the queue
// only grows during a rollout; in one slice, each time it outgrew its
// array append would copy it all into a new one 1.25 times the size, and
// the copies would add up to four times what the queue holds. Blocks are
// allocated once each and dropped when their last write has expired.
type eventQueue struct {
	blocks [][]eventLease // blocks[0][head:] and the later blocks are queued
	head   int
}

const eventQueueBlock = 512

func (q *eventQueue) push(e eventLease) {
	if n := len(q.blocks); n == 0 || len(q.blocks[n-1]) == eventQueueBlock {
		q.blocks = append(q.blocks, make([]eventLease, 0, eventQueueBlock))
	}
	last := &q.blocks[len(q.blocks)-1]
	*last = append(*last, e)
}

// front is the oldest queued write, nil if none is.
func (q *eventQueue) front() *eventLease {
	if len(q.blocks) == 0 || q.head == len(q.blocks[0]) {
		return nil
	}
	return &q.blocks[0][q.head]
}

// pop drops the oldest queued write.
func (q *eventQueue) pop() {
	q.blocks[0][q.head] = eventLease{}
	q.head++
	if q.head == eventQueueBlock {
		q.blocks[0] = nil
		q.blocks = q.blocks[1:]
		q.head = 0
	}
}

// noteEventWrite gives the Event written at revision rev its hour.
func (s *Server) noteEventWrite(rev int64) {
	v, ok := s.store.VersionAt(rev)
	if !ok {
		panic("apiserver: an Event write just made is not in etcd's history")
	}
	s.noteEventVersion(v)
}

// noteEventVersion queues the Event write v on its lease.
func (s *Server) noteEventVersion(v store.Version) {
	l := &s.eventLeases
	now := s.clock.Now()
	valid := now+EventTTL < l.expires
	sufficient := now+EventTTL+leaseReuseDuration > l.expires
	if !valid || !sufficient || l.attached > leaseMaxObjectCount {
		l.expires, l.attached = now+EventTTL+leaseReuseDuration, 0 // a new lease
	}
	l.attached++
	l.queue.push(eventLease{v: v})
	if n := len(l.leases); n > 0 && l.leases[n-1].at == l.expires {
		l.leases[n-1].n++
	} else {
		l.leases = append(l.leases, leaseRun{at: l.expires, n: 1})
	}
	if !l.timer.Pending() {
		l.timer = s.clock.At(l.leases[0].at, "event TTL", s.expireEvents)
	}
}

// expireEvents deletes the Events whose last write is EventTTL old, as
// etcd does when their lease expires: no API request, no admission, one
// trace step for all of them.
func (s *Server) expireEvents() {
	l := &s.eventLeases
	now := s.clock.Now()
	var due []eventLease
	for len(l.leases) > 0 && l.leases[0].at <= now {
		e := *l.queue.front()
		l.queue.pop()
		if l.leases[0].n--; l.leases[0].n == 0 {
			l.leases[0] = leaseRun{}
			l.leases = l.leases[1:]
		}
		if s.store.IsCurrent(kinds.Event, e.v) {
			due = append(due, e) // not deleted already, nor written again since (renewed)
		}
	}
	if len(due) > 0 {
		what := "1 Event whose"
		if len(due) > 1 {
			what = strconv.Itoa(len(due)) + " Events whose"
		}
		seq := s.trace.Record(trace.Event{Component: "etcd", Lane: trace.ControlPlane, Column: trace.Maintain,
			Message: "deleted " + what + " etcd lease expired (kube-apiserver --event-ttl 1h: an Event lives an hour after its last write)",
			Why:     "Events are kept for an hour after their last update, so that etcd does not fill up with them; kubectl get events shows only the last hour."})
		for _, e := range due {
			ns, name := eventKeyName(e.v.Key(kinds.Event))
			if _, _, err := s.store.Delete(kinds.Event, ns, name, "", seq); err != nil {
				panic("apiserver: event expiry: " + err.Error())
			}
		}
	}
	if len(l.leases) > 0 {
		l.timer = s.clock.At(l.leases[0].at, "event TTL", s.expireEvents)
	}
}

// eventKeyName is the namespace and name in an Event's etcd key,
// /registry/events/<namespace>/<name>, as parts of the key's string.
func eventKeyName(key string) (namespace, name string) {
	rest := strings.TrimPrefix(key, kinds.Event.EtcdPrefix+"/")
	namespace, name, _ = strings.Cut(rest, "/")
	return namespace, name
}
