package session

import (
	"errors"
	"maps"
	"slices"
)

// ErrExists is returned when a fork or a restore names a session that
// already exists.
var ErrExists = errors.New("session exists")

// Fork returns a new session named name that holds a copy of everything
// stateful in s: its changes, id generator, sequence, clock, counters,
// idempotency cache, fault counters and rate window. Its journal starts
// empty. The changes are shared copy-on-write (see overlay), so a fork
// costs the same whatever the session holds, and from then on neither
// session's writes reach the other.
func (s *Session) Fork(name string) *Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := &Session{name: name, hdr: []string{name}, mu: make(lock, 1), settings: s.settings, provisioned: true}
	f.st = s.st
	f.st.overlay = s.st.overlay.fork()
	f.st.idem = maps.Clone(s.st.idem) // replays are never changed once stored
	f.st.counters = maps.Clone(s.st.counters)
	f.st.fault.counts = slices.Clone(s.st.fault.counts)
	return f
}

// Fork stores a fork of src named name. It fails with ErrExists when name
// is taken and with ErrLimit when the store is full.
func (st *Store) Fork(src *Session, name string) (*Session, error) {
	return st.add(name, func() *Session { return src.Fork(name) })
}

// add stores the session mk makes under name, unless name is taken.
func (st *Store) add(name string, mk func() *Session) (*Session, error) {
	var made bool
	s, created, err := st.GetOrCreate(name, func() *Session {
		made = true
		return mk()
	})
	if err != nil {
		return nil, err
	}
	if !created || !made {
		return nil, ErrExists
	}
	return s, nil
}
