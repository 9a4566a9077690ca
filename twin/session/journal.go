package session

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wraithdev/wraith/twin/scrub"
)

// DefaultJournalLimit is how many entries a session's journal keeps when
// --journal-limit is not given.
const DefaultJournalLimit = 1000

// Entry is one business request of a session as the journal keeps it.
// The request's headers are kept in wire form with credentials already
// redacted (see Headers), shared with the previous entry when equal. The
// answer's headers are not kept: the engine rebuilds them, with the
// function that wrote them, from what the entry holds (the recorded
// answer's shared header map, provenance, route, exchange, fault, the
// second it was served...). Bodies are kept whole up to BodyExcerpt bytes, or
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
	Latency    time.Duration

	ReqHeader Headers
	ReqBody   Body
	RespBody  Body

	// What the answer's headers are rebuilt from, beside the fields above.
	Recorded http.Header // a recorded answer's (or a rate limit's) headers, shared
	Extra    *Extra      // what few answers carry; nil for most
	Served   int64       // the wall clock's unix second the answer's headers carry
	Replayed bool        // an idempotent replay
	Answered bool        // an answer was sent (not a reset connection, nor a client gone)
}

// Extra is what only some answers' headers carry, kept apart so that an
// entry without them (most) spends one pointer on them.
type Extra struct {
	Fault        string // X-Wraith-Fault: the fault rule that fired, profile/rule
	Link         string // a Link header, for lists paged GitHub's way
	Ignored      string // X-Wraith-Ignored-Params
	IgnoredCount int    // X-Wraith-Ignored-Params-Count
	Limit        string // X-Wraith-Limit: the code of a Wraith limit the request passed
}

// Fault returns the fault rule that fired for the request, "" for none.
func (e *Entry) Fault() string {
	if e.Extra == nil {
		return ""
	}
	return e.Extra.Fault
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
	// sum is the sha256 of the whole body, set only when Truncated (a
	// pointer: most bodies have none, and an entry stays small).
	sum *[sha256.Size]byte
}

// SHA256 returns the hex sha256 of the whole body when it is Truncated,
// else "": it tells two long bodies apart and matches a copy kept
// elsewhere.
func (b Body) SHA256() string {
	if b.sum == nil {
		return ""
	}
	return hex.EncodeToString(b.sum[:])
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
	return Body{Bytes: append([]byte(nil), body[:BodyExcerpt]...), Size: len(body), sum: &sum}
}

// Headers is a request's header block as the journal keeps it: one line
// "Name: value\r\n" per value, names sorted, credentials redacted before
// the bytes are kept (see RedactHeader), so no secret an agent sent
// lives in the journal. An agent sends the same headers every time, so an
// entry shares the previous entry's bytes when they are equal: a journal
// of a thousand alike requests holds one header block.
type Headers []byte

// Each calls f with each header name and value, in the order kept.
func (h Headers) Each(f func(name, value string)) {
	for rest := string(h); rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\r\n")
		k, v, _ := strings.Cut(line, ": ")
		f(k, v)
	}
}

// Get returns the first value of the header named name (canonical form).
func (h Headers) Get(name string) string {
	for rest := string(h); rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\r\n")
		if k, v, _ := strings.Cut(line, ": "); k == name {
			return v
		}
	}
	return ""
}

// Redacted replaces a credential the journal does not show.
const Redacted = "[redacted]"

// RedactHeader returns the value of header name as a journal shows it: a
// credential header's value (and a cookie's) becomes Redacted, after its
// scheme when it has one ("Bearer [redacted]": it says how the client
// authenticated).
func RedactHeader(name, value string) string {
	return string(appendHeaderValue(nil, name, value))
}

func appendHeaderValue(b []byte, name, value string) []byte {
	if !credentialHeader(name) {
		return append(b, value...)
	}
	if scheme, _, ok := strings.Cut(value, " "); ok && len(scheme) < 16 {
		b = append(append(b, scheme...), ' ')
	}
	return append(b, Redacted...)
}

// credentialNames memoizes credentialHeader's answer for the header names
// requests carry, which are few, so that redacting a request's headers
// costs a map lookup per name and no allocation. The map is copied on
// write and holds at most maxCredentialNames names of at most
// maxCredentialName bytes; any other name is checked each time it comes.
var credentialNames atomic.Pointer[map[string]bool]

const (
	maxCredentialNames = 256
	maxCredentialName  = 64
)

// credentialHeader reports whether the journal redacts the values of
// header name: a credential header, or a cookie.
func credentialHeader(name string) bool {
	m := credentialNames.Load()
	if m != nil {
		if c, ok := (*m)[name]; ok {
			return c
		}
	}
	c := scrub.IsCredentialHeader(name) || strings.EqualFold(name, "Cookie") || strings.EqualFold(name, "Set-Cookie")
	if len(name) <= maxCredentialName && (m == nil || len(*m) < maxCredentialNames) {
		next := map[string]bool{strings.Clone(name): c}
		if m != nil {
			maps.Copy(next, *m)
		}
		credentialNames.CompareAndSwap(m, &next) // lost to another writer: the name is added next time
	}
	return c
}

// appendHeaders appends h to b in Headers' form.
func appendHeaders(b []byte, h http.Header) []byte {
	var arr [32]string
	names := arr[:0]
	for k := range h {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		for _, v := range h[k] {
			b = append(b, k...)
			b = append(b, ": "...)
			b = appendHeaderValue(b, k, v)
			b = append(b, "\r\n"...)
		}
	}
	return b
}

// headerScratch is how many bytes of a request's headers are encoded on
// the stack to be compared with the previous entry's, so an equal block
// costs no allocation; longer headers use the heap.
const headerScratch = 1024

// Journal is a session's bounded log of business requests, oldest first.
// It has its own lock so that reading it never waits for a request, and a
// request fills in what it only knows after writing its answer.
type Journal struct {
	mu      sync.Mutex
	ring    []*Entry
	next    int64 // index of the next entry
	dropped int64
	header  Headers // the last entry's request headers, shared by the next when equal
	// The last entry's path, query and host, shared by the next when
	// equal: an agent repeats them, and an entry that keeps its own copy
	// keeps the request's line and Host header alive with it.
	path, query, host string
}

// share makes *s the last value kept when equal to it, else keeps *s as
// the last value.
func share(s, last *string) {
	if *s == *last {
		*s = *last
	} else {
		*last = *s
	}
}

// Begin appends e, numbering it, with the request headers h in Headers'
// form, and drops the oldest entry past limit. Callers call it under the
// session's lock, so a write's index follows every request served before
// it; reads holding the lock shared append side by side, numbered in the
// order they get here (the journal's own mutex orders them).
func (j *Journal) Begin(e *Entry, h http.Header, limit int) {
	if limit <= 0 {
		limit = DefaultJournalLimit
	}
	var scratch [headerScratch]byte
	wire := appendHeaders(scratch[:0], h)
	j.mu.Lock()
	if !bytes.Equal(wire, j.header) || j.header == nil {
		j.header = Headers(slices.Clone(wire))
	}
	e.ReqHeader = j.header
	share(&e.Path, &j.path)
	share(&e.Query, &j.query)
	share(&e.Host, &j.host)
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

// Finish records what is known once the answer was written: whether it
// was sent, the wall clock's second its headers carry, and how long it
// took.
func (j *Journal) Finish(e *Entry, answered bool, served int64, latency time.Duration) {
	j.mu.Lock()
	e.Answered, e.Served, e.Latency = answered, served, latency
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
	j.ring, j.next, j.dropped, j.header = nil, 0, 0, nil
	j.path, j.query, j.host = "", "", ""
	j.mu.Unlock()
}

// Journal returns the session's journal.
func (s *Session) Journal() *Journal { return &s.journal }
