package session

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// ErrExists is what an *ExistsError is: errors.Is(err, ErrExists) holds
// for every fork or restore that names a session that already exists.
var ErrExists = errors.New("session exists")

// ExistsError says a fork or a restore names a session that already
// exists; it carries the name so the answer can say which.
type ExistsError struct{ Name string }

func (e *ExistsError) Error() string { return fmt.Sprintf("session %q exists", e.Name) }

// Is makes an *ExistsError match ErrExists.
func (e *ExistsError) Is(target error) bool { return target == ErrExists }

// Fork returns a new session named name that holds a copy of everything
// stateful in s: its changes, id generator, sequence, clock, counters,
// idempotency cache, fault counters and rate window. Its journal starts
// empty. The changes are shared copy-on-write (see overlay), so a fork
// costs the same whatever the session holds, and from then on neither
// session's writes reach the other.
func (s *Session) Fork(name string) *Session {
	s.mu.Lock()
	defer s.mu.Unlock(true)
	return s.forkLocked(name)
}

// ForkContext is Fork for a control call: while a request of s holds its
// lock it waits only as long as ctx lives.
func (s *Session) ForkContext(ctx context.Context, name string) (*Session, error) {
	var f *Session
	err := s.DoContext(ctx, func(*State) { f = s.forkLocked(name) })
	return f, err
}

func (s *Session) forkLocked(name string) *Session {
	f := &Session{name: name, hdr: []string{name}, settings: s.settings}
	f.provisioned.Store(true)
	f.st.copyFrom(&s.st)
	f.st.overlay = s.st.overlay.fork()
	f.st.idem = maps.Clone(s.st.idem) // replays are never changed once stored
	f.st.counters = maps.Clone(s.st.counters)
	f.st.fault.counts = slices.Clone(s.st.fault.counts)
	if s.st.ext != nil {
		f.st.ext = s.st.ext.Fork()
	}
	f.publish()
	return f
}

// Fork stores a fork of src named name. It fails with ErrExists when name
// is taken, with ErrLimit when the store is full, and with ctx's error
// when ctx ends while src is busy. src's state is copied under src's lock
// alone; the store's mutex is held only to insert the copy, so a busy
// session never holds up other sessions' creations and deletions.
func (st *Store) Fork(ctx context.Context, src *Session, name string) (*Session, error) {
	if st.Get(name) != nil {
		return nil, &ExistsError{Name: name}
	}
	f, err := src.ForkContext(ctx, name)
	if err != nil {
		return nil, err
	}
	return st.add(name, f, Forked)
}

// add stores s under name, unless name is taken, and reports it as c.
func (st *Store) add(name string, s *Session, c Change) (*Session, error) {
	stored, created, a, err := st.getOrCreate(name, func() *Session { return s }, c)
	if err != nil {
		return nil, err
	}
	if !created || stored != s {
		return nil, &ExistsError{Name: name}
	}
	return s, wait(a)
}
