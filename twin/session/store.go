package session

import (
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
)

const shardCount = 64

// ErrLimit is returned when creating a session would pass the limit.
var ErrLimit = errors.New("session limit reached")

// Store finds sessions by name. It is sharded so that concurrent lookups
// and creations of different sessions rarely contend.
type Store struct {
	shards [shardCount]shard
	count  atomic.Int64
	max    int64
}

type shard struct {
	mu sync.RWMutex
	m  map[string]*Session
}

// NewStore returns a store that holds at most max sessions (0 = no limit).
func NewStore(max int) *Store {
	st := &Store{max: int64(max)}
	for i := range st.shards {
		st.shards[i].m = map[string]*Session{}
	}
	return st
}

func (st *Store) shard(name string) *shard {
	// FNV-1a, inlined so a lookup does not allocate.
	h := uint32(2166136261)
	for i := 0; i < len(name); i++ {
		h ^= uint32(name[i])
		h *= 16777619
	}
	return &st.shards[h%shardCount]
}

// Get returns the session named name, or nil.
func (st *Store) Get(name string) *Session {
	sh := st.shard(name)
	sh.mu.RLock()
	s := sh.m[name]
	sh.mu.RUnlock()
	return s
}

// GetOrCreate returns the session named name, creating it with mk when
// absent. created reports whether mk's session was stored. It fails with
// ErrLimit when the store is full; nothing is ever evicted.
func (st *Store) GetOrCreate(name string, mk func() *Session) (s *Session, created bool, err error) {
	if s := st.Get(name); s != nil {
		return s, false, nil
	}
	sh := st.shard(name)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if s := sh.m[name]; s != nil {
		return s, false, nil
	}
	if st.max > 0 && st.count.Load() >= st.max {
		return nil, false, fmt.Errorf("%w: %d sessions are alive (raise --max-sessions, or delete sessions you no longer need)", ErrLimit, st.max)
	}
	s = mk()
	sh.m[name] = s
	st.count.Add(1)
	return s, true, nil
}

// Delete removes the session named name and reports whether it existed.
func (st *Store) Delete(name string) bool {
	sh := st.shard(name)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if _, ok := sh.m[name]; !ok {
		return false
	}
	delete(sh.m, name)
	st.count.Add(-1)
	return true
}

// Len returns the number of sessions.
func (st *Store) Len() int { return int(st.count.Load()) }

// All returns every session, sorted by name.
func (st *Store) All() []*Session {
	var out []*Session
	for i := range st.shards {
		sh := &st.shards[i]
		sh.mu.RLock()
		for _, s := range sh.m {
			out = append(out, s)
		}
		sh.mu.RUnlock()
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}
