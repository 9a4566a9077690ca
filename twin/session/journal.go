package session

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"sync"
	"time"
)

// DefaultJournalLimit is how many entries a session's journal keeps when
// --journal-limit is not given.
const DefaultJournalLimit = 1000

// Entry is one business request of a session as the journal keeps it.
// Headers are references to what the request carried and the answer
// sent, never copies. Bodies are kept whole up to BodyExcerpt bytes, or
// when the twin holds them anyway (a recorded answer's bytes are built
// once at load and shared by every entry that served them); a longer body
// is kept as its first BodyExcerpt bytes, its length and its sha256, so a
// journal's memory does not grow with what agents send. Only the journal
// renders entries, redacting credentials on the way out.
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
	ReqBody    Body
	RespHeader http.Header
	RespBody   Body
}

// BodyExcerpt is the most of a body the journal copies: a body longer than
// this (and not shared) is kept as its first BodyExcerpt bytes.
const BodyExcerpt = 4 << 10

// Body is a request or answer body as the journal keeps it.
type Body struct {
	// Bytes is the whole body, or its first BodyExcerpt bytes when
	// Truncated.
	Bytes []byte
	// Size is the whole body's length.
	Size int
	// SHA256 is the hex sha256 of the whole body, set only when Truncated:
	// it tells two long bodies apart and matches a copy kept elsewhere.
	SHA256 string
}

// Truncated reports whether Bytes holds only the start of the body.
func (b Body) Truncated() bool { return len(b.Bytes) < b.Size }

// KeepBody returns what the journal keeps of body. shared says the twin
// holds these bytes for as long as it serves (a recorded answer), so a
// reference costs nothing and the whole body is kept; otherwise a body
// of at most BodyExcerpt bytes is kept by reference and a longer one as a
// copy of its start, so the request's buffer can be freed.
func KeepBody(body []byte, shared bool) Body {
	if shared || len(body) <= BodyExcerpt {
		return Body{Bytes: body, Size: len(body)}
	}
	sum := sha256.Sum256(body)
	return Body{Bytes: append([]byte(nil), body[:BodyExcerpt]...), Size: len(body), SHA256: hex.EncodeToString(sum[:])}
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
