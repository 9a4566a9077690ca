package session

import (
	"math"
	"net/http"
	"sync"
	"sync/atomic"
)

// DefaultJournalMemory is the bytes all journals of a store may hold
// together when --journal-memory is not given: at 10,000 busy sessions
// that is about 26 KiB, some fifty entries, each; at 20 sessions the
// count limit (1,000 per session) comes first. See docs/security.md.
const DefaultJournalMemory = 256 << 20

// Memory is a store's account of the memory clients grow and the twin
// must bound: journal entries (estimated per entry, see Journal), and
// what the store's watchers tell it they hold (coverage misses) and the
// idempotency caches. It is one budget: when journals, coverage and
// caches together pass it, the journals give up their oldest entries,
// serve-wide, until they fit again. Nothing else is dropped: coverage is
// bounded by its own limits and a remembered idempotency key is never
// forgotten (writes stop at --max-memory instead).
//
// The hot path costs one atomic add (two when an entry is dropped): the
// running total of bytes ever charged is also every entry's place in the
// order of all entries, which is what a sweep drops oldest first by.
type Memory struct {
	max      int64
	charged  atomic.Int64 // bytes ever charged to journals
	released atomic.Int64 // bytes of entries dropped or cleared since
	coverage atomic.Int64
	idem     atomic.Int64
	swept    atomic.Int64 // entries dropped to fit the budget
	sweeping sync.Mutex   // one sweep at a time; the others go on serving
	heads    heads        // the sweeps' heap, under sweeping
}

// charge accounts an entry of cost bytes, and freed bytes of entries it
// replaced, and returns the entry's place in the order of all entries.
func (m *Memory) charge(cost, freed int64) int64 {
	seq := m.charged.Add(cost)
	if freed != 0 {
		m.released.Add(freed)
	}
	return seq
}

func (m *Memory) release(n int64) {
	if n != 0 {
		m.released.Add(n)
	}
}

// Budget returns the bytes journals, coverage and idempotency caches may
// hold together (0: no bound).
func (m *Memory) Budget() int64 { return m.max }

// Journal returns the bytes the store's journals hold, by their estimate.
func (m *Memory) Journal() int64 { return m.charged.Load() - m.released.Load() }

// Coverage returns the bytes the coverage report holds, as its keeper
// reports them (AddCoverage).
func (m *Memory) Coverage() int64 { return m.coverage.Load() }

// Idempotency returns the bytes the sessions' idempotency caches hold.
func (m *Memory) Idempotency() int64 { return m.idem.Load() }

// Swept returns how many journal entries were dropped, serve-wide, to
// keep the journals within the budget (the per-session count limit's
// drops are not among them; each session's dropped counts both).
func (m *Memory) Swept() int64 { return m.swept.Load() }

// AddCoverage accounts n more (or, negative, fewer) bytes held by the
// coverage report.
func (m *Memory) AddCoverage(n int64) { m.coverage.Add(n) }

// room returns what the journals may hold: the budget less what coverage
// and idempotency caches hold, but never less than a quarter of it, so
// that a budget those fill does not turn every request into a sweep.
func (m *Memory) room() int64 {
	return max(m.max-m.coverage.Load()-m.idem.Load(), m.max/4)
}

func (m *Memory) over() bool { return m.max > 0 && m.Journal() > m.room() }

// Memory returns the store's memory account.
func (st *Store) Memory() *Memory { return &st.mem }

// SetJournalMemory sets the bytes journals, coverage and idempotency
// caches may hold together (0: DefaultJournalMemory; negative: no
// bound). Call it before serving.
func (st *Store) SetJournalMemory(n int64) {
	switch {
	case n == 0:
		n = DefaultJournalMemory
	case n < 0:
		n = 0
	}
	st.mem.max = n
}

// Begin journals e, a request of s with headers h, and keeps the store's
// journals within their budget. Call it under s's lock, as Journal.Begin.
//
// A request that finds the budget passed while another sweeps goes on;
// the sweeper looks again once done, so what such requests charged is
// swept too: once requests stop, the journals are within the budget.
func (st *Store) Begin(s *Session, e *Entry, h http.Header) {
	if !s.journal.Begin(e, h, st.JournalLimit()) {
		return
	}
	for st.mem.over() && st.mem.sweeping.TryLock() {
		dropped := st.sweep()
		st.mem.sweeping.Unlock()
		if !dropped {
			return // nothing left to drop: what is over is not the journals'
		}
	}
}

// sweep drops the oldest entries of all sessions' journals, oldest first
// whichever session holds them, until the journals hold an eighth less
// than their room, so that a sweep (which visits every session) comes at
// most once per eighth of the budget written. It takes each journal's
// lock in turn, never two at once, and no session's lock; while one
// sweep runs, requests that find the budget passed do not wait for it.
// The caller holds m.sweeping. It reports whether it dropped anything.
func (st *Store) sweep() bool {
	m := &st.mem
	room := m.room()
	target := room - room/8
	h := m.heads[:0]                                      // reused: sweeps are one at a time
	defer func() { clear(h[:cap(h)]); m.heads = h[:0] }() // holds no journal of a deleted session
	st.m.Range(func(_, v any) bool {
		j := &v.(*Session).journal
		if seq, ok := j.oldest(); ok {
			h = append(h, head{seq, j})
		}
		return true
	})
	h.init()
	swept := m.swept.Load()
	for len(h) > 0 {
		need := m.Journal() - target
		if need <= 0 {
			break
		}
		top := h[0]
		bound := int64(math.MaxInt64)
		if len(h) > 1 {
			bound = min(h[1].seq, bound)
			if len(h) > 2 {
				bound = min(h[2].seq, bound)
			}
		}
		if seq, ok := top.j.dropUpTo(top.seq, bound, need); ok {
			h[0].seq = seq
		} else {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		h.down(0)
	}
	return m.swept.Load() != swept
}

// oldest returns the order (Entry.seq) of the journal's oldest entry.
func (j *Journal) oldest() (int64, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.n == 0 {
		return 0, false
	}
	return j.ring[(j.next-int64(j.n))%int64(len(j.ring))].seq, true
}

// dropUpTo drops the journal's oldest entries while they come before
// bound and need more bytes is not yet freed, and returns the order of
// its oldest entry left. When the oldest is no longer the entry of order
// expect (the journal was reset or dropped entries since the sweep
// looked), it drops nothing and returns the new oldest, for the sweep to
// put in its place. A journal emptied forgets its last values too.
func (j *Journal) dropUpTo(expect, bound, need int64) (int64, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.n == 0 || j.mem == nil {
		return 0, false
	}
	seq := func() int64 { return j.ring[(j.next-int64(j.n))%int64(len(j.ring))].seq }
	if s := seq(); s != expect {
		return s, true
	}
	var freed, n int64
	for j.n > 0 && seq() <= bound && freed < need {
		freed += j.dropOldest()
		n++
	}
	j.mem.release(freed)
	j.mem.swept.Add(n)
	if j.n == 0 {
		j.mem.release(j.bytes) // the residue of the last values
		j.bytes, j.resid = 0, [nShared]int32{}
		j.header, j.path, j.query, j.host = "", "", "", ""
		if len(j.ring) > 16 {
			j.ring = nil // an idle session's journal keeps no large ring
		}
		return 0, false
	}
	if len(j.ring) > 16 && j.n <= len(j.ring)/4 {
		j.resize(max(2*j.n, 4))
	}
	return seq(), true
}

// head is a journal in a sweep's heap, by the order of its oldest entry.
type head struct {
	seq int64
	j   *Journal
}

// heads is a min-heap of journals by the order of their oldest entry,
// kept by hand rather than through container/heap, whose interface would
// box every head a sweep pushes.
type heads []head

func (h heads) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h heads) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		c := l
		if r := l + 1; r < len(h) && h[r].seq < h[l].seq {
			c = r
		}
		if h[i].seq <= h[c].seq {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}
