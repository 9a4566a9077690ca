package session

import (
	"net/http"
	"sync"
	"time"
)

// DefaultJournalLimit is how many entries a session's journal keeps when
// --journal-limit is not given.
const DefaultJournalLimit = 1000

// Entry is one business request of a session as the journal keeps it.
// Headers and bodies are references to what the request carried and the
// answer sent, never copies: a recorded answer's bytes are built once at
// load and shared by every entry that served them. Only the journal
// renders them, redacting credentials on the way out.
type Entry struct {
	Index      int64
	At         int64 // the session's clock, unix seconds
	Method     string
	Path       string // the provider path, without a /__s/{session} prefix
	Query      string
	Host       string
	Route      string // "" for a route miss
	Status     int
	Provenance string
	Exchange   string
	Fault      string
	Latency    time.Duration

	ReqHeader  http.Header
	ReqBody    []byte
	RespHeader http.Header
	RespBody   []byte
}

// Journal is a session's bounded log of business requests, oldest first.
// It has its own lock so that reading it never waits for a request, and a
// request fills in what it only knows after writing its answer.
type Journal struct {
	mu      sync.Mutex
	ring    []*Entry
	next    int64 // index of the next entry
	dropped int64
}

// Begin appends e, numbering it, and drops the oldest entry past limit.
// Callers call it under the session's lock, so indexes follow the order
// the session served its requests in.
func (j *Journal) Begin(e *Entry, limit int) {
	if limit <= 0 {
		limit = DefaultJournalLimit
	}
	j.mu.Lock()
	e.Index = j.next
	if len(j.ring) < limit {
		j.ring = append(j.ring, e)
	} else {
		j.ring[j.next%int64(len(j.ring))] = e
		j.dropped++
	}
	j.next++
	j.mu.Unlock()
}

// Finish records what is known once the answer was written.
func (j *Journal) Finish(e *Entry, h http.Header, latency time.Duration) {
	j.mu.Lock()
	e.RespHeader, e.Latency = h, latency
	j.mu.Unlock()
}

// Entries returns copies of the kept entries, oldest first, and how many
// older ones were dropped.
func (j *Journal) Entries() ([]Entry, int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]Entry, 0, len(j.ring))
	start := int64(0)
	if j.dropped > 0 {
		start = j.next % int64(len(j.ring))
	}
	for i := range j.ring {
		out = append(out, *j.ring[(start+int64(i))%int64(len(j.ring))])
	}
	return out, j.dropped
}

// clear empties the journal; indexes start from 0 again.
func (j *Journal) clear() {
	j.mu.Lock()
	j.ring, j.next, j.dropped = nil, 0, 0
	j.mu.Unlock()
}

// Journal returns the session's journal.
func (s *Session) Journal() *Journal { return &s.journal }
