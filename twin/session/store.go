package session

import (
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/wraithdev/wraith/twin/dialect"
)

// ErrLimit is returned when creating a session would pass the limit.
var ErrLimit = errors.New("session limit reached")

// Store finds sessions by name. Lookups, one per request, take no lock
// and write no shared memory, so requests of any sessions never contend
// here; creations and deletions, rare by comparison, take one mutex so
// that the count and the limit agree.
type Store struct {
	m     sync.Map // name → *Session
	mu    sync.Mutex
	count atomic.Int64
	max   int64

	journalLimit int
	mem          Memory // see limits.go
	onEntry      func(session string, e *Entry)
	persist      Persister
	attacher     dialect.Attacher // see attach.go
}

// StoreOptions configure a store.
type StoreOptions struct {
	// MaxSessions bounds the live sessions (0: no limit).
	MaxSessions int
	// JournalLimit bounds each session's journal in entries (0:
	// DefaultJournalLimit).
	JournalLimit int
	// JournalMemory is the bytes journals, coverage and idempotency
	// caches may hold together (0: DefaultJournalMemory; negative: no
	// bound).
	JournalMemory int64
	// Persister is told of every change to a session; nil (or
	// NopPersister) keeps sessions in memory only.
	Persister Persister
}

// NewStoreWith returns a store configured by o.
func NewStoreWith(o StoreOptions) *Store {
	st := NewStore(o.MaxSessions)
	st.SetJournalLimit(o.JournalLimit)
	st.SetJournalMemory(o.JournalMemory)
	if _, nop := o.Persister.(NopPersister); !nop {
		st.persist = o.Persister
	}
	return st
}

// SetJournalLimit bounds each session's journal to n entries (0 means
// DefaultJournalLimit). Call it before serving.
func (st *Store) SetJournalLimit(n int) { st.journalLimit = n }

// JournalLimit returns the bound of each session's journal.
func (st *Store) JournalLimit() int {
	if st.journalLimit <= 0 {
		return DefaultJournalLimit
	}
	return st.journalLimit
}

// OnEntry sets fn to be called with every finished request, journaled or
// not (a route miss of an absent session is not journaled but is still
// reported): coverage and metrics watch requests this way. Call it before
// serving; fn must be safe for concurrent use.
func (st *Store) OnEntry(fn func(session string, e *Entry)) { st.onEntry = fn }

// Finished reports a finished request to the OnEntry watcher.
func (st *Store) Finished(session string, e *Entry) {
	if st.onEntry != nil {
		st.onEntry(session, e)
	}
}

// NewStore returns a store that holds at most max sessions (0 = no limit).
func NewStore(max int) *Store {
	st := &Store{max: int64(max)}
	st.mem.max = DefaultJournalMemory
	return st
}

// Get returns the session named name, or nil.
func (st *Store) Get(name string) *Session {
	if v, ok := st.m.Load(name); ok {
		return v.(*Session)
	}
	return nil
}

// GetOrCreate returns the session named name, creating it with mk when
// absent. created reports whether mk's session was stored. It fails with
// ErrLimit when the store is full; nothing is ever evicted. With a durable
// persister it returns once the new session is on disk; if it cannot be,
// the session is served all the same and err wraps ErrNotDurable.
func (st *Store) GetOrCreate(name string, mk func() *Session) (s *Session, created bool, err error) {
	if s := st.Get(name); s != nil {
		return s, false, nil
	}
	s, created, a, err := st.getOrCreate(name, mk, Created)
	if err == nil {
		err = wait(a) // outside the store's mutex
	}
	return s, created, err
}

// getOrCreate is GetOrCreate that tells the persister of the creation as
// c (a fork, a restore) and leaves the wait to the caller. The persister
// is told under the store's mutex, before the session is visible: so a
// session's creation reaches it before any change of the session, and
// after the deletion of the session that had the name before.
func (st *Store) getOrCreate(name string, mk func() *Session, c Change) (s *Session, created bool, a Ack, err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if s := st.Get(name); s != nil {
		return s, false, nil, nil
	}
	if st.max > 0 && st.count.Load() >= st.max {
		return nil, false, nil, fmt.Errorf("%w: %d sessions are alive (raise --max-sessions, or delete sessions you no longer need)", ErrLimit, st.max)
	}
	s = mk()
	s.attach(&st.mem, st.persist)
	s.st.attacher = st.attacher
	a = s.capture(c)
	s.last = a // before the session is visible: no lock needed
	st.m.Store(name, s)
	st.count.Add(1)
	return s, true, a, nil
}

// Delete removes the session named name and reports whether it existed.
// What its journal and idempotency cache held leaves the store's memory
// account (see Session.detach). With a durable persister it returns once
// the deletion is on disk; a persister that cannot write logs why and
// refuses every later write, so the failure is not lost here.
func (st *Store) Delete(name string) bool {
	st.mu.Lock()
	v, ok := st.m.LoadAndDelete(name)
	var a Ack
	if ok {
		st.count.Add(-1)
		a = v.(*Session).capture(Deleted)
	}
	st.mu.Unlock()
	if ok {
		v.(*Session).detach() // outside the store's mutex: it waits for the session's lock
		wait(a)
	}
	return ok
}

// Len returns the number of sessions.
func (st *Store) Len() int { return int(st.count.Load()) }

// Entities returns how many entities all sessions hold, from each
// session's published count (Session.Entities): it never waits for a
// session's lock, so a metrics scrape is not held up by a busy session.
func (st *Store) Entities() int {
	n := 0
	st.m.Range(func(_, v any) bool {
		n += v.(*Session).Entities()
		return true
	})
	return n
}

// All returns every session, sorted by name.
func (st *Store) All() []*Session {
	var out []*Session
	st.m.Range(func(_, v any) bool {
		out = append(out, v.(*Session))
		return true
	})
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}
