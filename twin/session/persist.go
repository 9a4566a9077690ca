package session

import (
	"errors"
	"strconv"
)

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

// Whole reports whether a Persister must write the session whole after c
// (its state was made or replaced), rather than what changed since the
// last write.
func (c Change) Whole() bool {
	return c == Created || c == Reset || c == Forked || c == Restored
}

// ErrNotDurable is what a write's error wraps when the store could not put
// it on disk: the change is in memory, but it would not survive a restart.
var ErrNotDurable = errors.New("the session's change could not be made durable")

// Persister is told of every change to a store's sessions while the
// session cannot change under it: with the session's lock held exclusive,
// or before the session is visible to requests (Created, Forked,
// Restored), or once it has left the store (Deleted, Provisioned, which
// read nothing of the state). So it may read the change (TakeDelta,
// Whole); it must not wait for the disk there. It returns an Ack the
// change's caller waits on once the lock is free, before it answers, so
// that other requests and reads are never held up by a write's fsync;
// nil means there is nothing to wait for. Calls come from many goroutines
// at once: an implementation must be safe for concurrent use.
type Persister interface {
	Persist(s *Session, c Change) Ack
}

// Ack is a change on its way to disk.
type Ack interface {
	// Wait blocks until the change is durable, and returns an error
	// wrapping ErrNotDurable if it never will be.
	Wait() error
}

// NopPersister keeps nothing: sessions live as long as the process. A
// store given one calls nothing at all on a change.
type NopPersister struct{}

// Persist does nothing.
func (NopPersister) Persist(*Session, Change) Ack { return nil }

// wait waits for a, if there is one.
func wait(a Ack) error {
	if a == nil {
		return nil
	}
	return a.Wait()
}

// capture tells the session's persister of c and returns what to wait
// for. Call it where Persister says it is called.
func (s *Session) capture(c Change) Ack {
	if c == 0 || s.persist == nil {
		return nil
	}
	return s.persist.Persist(s, c)
}

// settle publishes the entity count, takes the change the locked section
// made and hands it to the persister. Call it while still holding s's
// lock exclusive.
//
// A section that changed nothing still returns the Ack of the session's
// last change: it may have answered from what that change wrote (an
// idempotent replay acknowledges the write it replays), and the lock was
// released before that change's record reached the disk. Waiting on an
// Ack already done costs nothing; records are synced in order, so the
// last one covers every earlier one.
func (s *Session) settle() Ack {
	s.publish()
	c := s.st.changed
	s.st.changed = 0
	if a := s.capture(c); a != nil {
		s.last = a
	}
	return s.last
}

// mark notes that the locked section changed the state by c. A clock move
// is the weaker news: a section that also wrote reports Wrote.
func (st *State) mark(c Change) {
	if st.changed != Wrote {
		st.changed = c
	}
}
