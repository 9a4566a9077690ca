package session

import "strconv"

// Change is a kind of change to a session, as a Persister is told of it.
type Change uint8

// The changes a store reports. Every one names a session whose state a
// durable store would have to write again (or, for Deleted, forget).
const (
	Created     Change = iota + 1 // stored by provisioning or by its first request
	Provisioned                   // a session its first request made was provisioned
	Wrote                         // an entity or a remembered answer was stored
	ClockMoved                    // the control plane moved the session's clock
	Reset                         // back to its just-provisioned state
	Deleted                       // removed from the store
	Forked                        // stored as a fork of another session
	Restored                      // stored from a snapshot
)

var changeNames = [...]string{"", "created", "provisioned", "wrote", "clock-moved", "reset", "deleted", "forked", "restored"}

// String names c in kebab case, as a log line would.
func (c Change) String() string {
	if int(c) < len(changeNames) {
		return changeNames[c]
	}
	return "change-" + strconv.Itoa(int(c))
}

// Persister is told of every change to a store's sessions, after the
// change and with no lock of the session or the store held, so it may
// read the session (SnapshotOf). Calls for different sessions, and for
// one session's successive requests, come from many goroutines: an
// implementation must be safe for concurrent use, and cheap, since a
// write's request waits for it. The durable-sessions work implements one;
// until then stores use NopPersister.
type Persister interface {
	Persist(s *Session, c Change)
}

// NopPersister keeps nothing: sessions live as long as the process.
type NopPersister struct{}

// Persist does nothing.
func (NopPersister) Persist(*Session, Change) {}

// report tells the session's persister of c, if there is one and c is a
// change. Call it without holding s's lock.
func (s *Session) report(c Change) {
	if c != 0 && s.persist != nil {
		s.persist.Persist(s, c)
	}
}

// settle publishes the entity count and takes the change the locked
// section made. Call it while still holding s's lock exclusive.
func (s *Session) settle() Change {
	s.publish()
	c := s.st.changed
	s.st.changed = 0
	return c
}

// mark notes that the locked section changed the state by c. A clock move
// is the weaker news: a section that also wrote reports Wrote.
func (st *State) mark(c Change) {
	if st.changed != Wrote {
		st.changed = c
	}
}
