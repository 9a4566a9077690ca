package session

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/wraithdev/wraith/twin/scrub"
	"github.com/wraithdev/wraith/twin/world"
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
	resp      Body          // see RespBody
	answer    *world.Entity // the entity version the answer was, when it was one (see KeepEntity)

	// What the answer's headers are rebuilt from, beside the fields above.
	Recorded http.Header // a recorded answer's (or a rate limit's) headers, shared
	Extra    *Extra      // what few answers carry; nil for most
	Served   int64       // the wall clock's unix second the answer's headers carry
	Replayed bool        // an idempotent replay
	Answered bool        // an answer was sent (not a reset connection, nor a client gone)

	// The journal's accounting (see Journal): which shared values the
	// entry is charged for, the estimate of the bytes it holds, and its
	// place in the order of all entries of the store, oldest first. In
	// this order they fill the struct's padding after the bools, so an
	// entry stays a 288-byte allocation.
	owns uint8
	cost int32 // an entry holds at most some 90 KiB: bodies and headers are excerpts
	seq  int64
}

// Extra is what only some answers' headers carry, kept apart so that an
// entry without them (most) spends one pointer on them.
type Extra struct {
	Fault        string // X-Wraith-Fault: the fault rule that fired, profile/rule
	Link         string // a Link header, for lists paged GitHub's way
	Ignored      string // X-Wraith-Ignored-Params
	IgnoredCount int    // X-Wraith-Ignored-Params-Count
	Limit        string // X-Wraith-Limit: the code of a Wraith limit the request passed
	Invalid      string // X-Wraith-Invalid: what --validate warn served anyway
	// Delivery marks an entry that journals no request the twin answered
	// but a webhook delivery attempt it made (package twin/webhook): the
	// entry's request is the delivery, its answer the endpoint's.
	Delivery *Delivery
}

// Delivery is what a webhook delivery attempt's entry carries beside a
// request's fields (Method, Host, Path, Status, Latency, bodies).
type Delivery struct {
	URL     string // the endpoint's
	Event   string // the id of the event delivered
	Attempt int    // 1 for the first
	Error   string // why no 2xx came (refused, unreachable, timed out, the status); "" for a success
	Retry   int64  // the session time the next attempt is due, 0 for none
}

// RespBody returns the answer's body as the journal keeps it: the bytes
// it holds, or, for an answer that was an entity version byte for byte
// (see SetRespEntity), that version's body, rebuilt.
func (e *Entry) RespBody() Body {
	if e.answer != nil {
		b := e.answer.Body()
		return Body{Bytes: b, Size: len(b)}
	}
	return e.resp
}

// RespSize returns the length of the answer's body, without building it.
func (e *Entry) RespSize() int { return e.resp.Size }

// SetRespBody keeps b as the answer's body.
func (e *Entry) SetRespBody(b Body) { e.resp, e.answer = b, nil }

// SetRespEntity keeps the answer as ent, the entity version whose body
// it was, byte for byte: versions are immutable, so the entry refers to
// the one the session keeps instead of holding its bytes again (a
// create's answer, which is most of what a journal of creates held). The
// entry is charged what the version keeps, its patch or its body, since
// it keeps the version alive however the session changes it; so a
// version that keeps more than BodyExcerpt bytes is not referred to (a
// journal of reads of one large fixture would be charged it whole for
// every read): SetRespEntity reports false, and the caller keeps the
// answer's body instead.
func (e *Entry) SetRespEntity(ent *world.Entity) bool {
	if ent.Kept() > BodyExcerpt {
		return false
	}
	e.resp, e.answer = Body{Size: ent.BodyLen()}, ent
	return true
}

// Delivery returns what e journals of a webhook delivery attempt, nil
// when e is a request the twin answered.
func (e *Entry) Delivery() *Delivery {
	if e.Extra == nil {
		return nil
	}
	return e.Extra.Delivery
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

// cost is the estimate of what the journal holds for b, when the twin
// does not hold its bytes anyway.
func (b Body) cost() int64 {
	c := int64(cap(b.Bytes))
	if b.sum != nil {
		c += sha256.Size
	}
	return c
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
type Headers string

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

// What the journal keeps of a request's headers. A header block is at
// most 64 KiB on the wire (the server's MaxHeaderBytes), and an agent that
// sends a different large value every time would otherwise cost the
// journal that much per entry: one value is kept up to HeaderValueExcerpt
// bytes and marked, and past HeaderExcerpt bytes the remaining headers
// are left out and counted in one TruncatedHeader line.
const (
	HeaderValueExcerpt = 1 << 10
	HeaderExcerpt      = 8 << 10
	// TruncatedHeader is the line that ends a block whose last headers
	// were left out: "X-Wraith-Truncated: 12 headers (40960 bytes) left out".
	TruncatedHeader = "X-Wraith-Truncated"
)

// appendHeaders appends h to b in Headers' form, within the excerpts
// above: a value cut short ends in " [truncated by wraith: N bytes]",
// N its whole length.
func appendHeaders(b []byte, h http.Header) []byte {
	var arr [32]string
	names := arr[:0]
	for k := range h {
		names = append(names, k)
	}
	slices.Sort(names)
	start := len(b)
	var left, leftBytes int
	for _, k := range names {
		for _, v := range h[k] {
			keep := len(k) + len(v) + 4
			if len(v) > HeaderValueExcerpt {
				keep = len(k) + HeaderValueExcerpt + 48
			}
			if left > 0 || len(b)-start+keep > HeaderExcerpt {
				left++
				leftBytes += len(k) + len(v) + 4
				continue
			}
			b = append(b, k...)
			b = append(b, ": "...)
			if len(v) > HeaderValueExcerpt && !credentialHeader(k) {
				cut := HeaderValueExcerpt
				for cut > 0 && !utf8.RuneStart(v[cut]) {
					cut-- // whole characters only, so a HAR shows no broken one
				}
				b = append(b, v[:cut]...)
				b = append(b, " [truncated by wraith: "...)
				b = strconv.AppendInt(b, int64(len(v)), 10)
				b = append(b, " bytes]"...)
			} else {
				b = appendHeaderValue(b, k, v)
			}
			b = append(b, "\r\n"...)
		}
	}
	if left > 0 {
		b = append(b, TruncatedHeader+": "...)
		b = strconv.AppendInt(b, int64(left), 10)
		b = append(b, " headers ("...)
		b = strconv.AppendInt(b, int64(leftBytes), 10)
		b = append(b, " bytes) left out\r\n"...)
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
//
// It is bounded twice: by count (--journal-limit entries per session) and
// by bytes, serve-wide, through the store's Memory: every entry carries an
// estimate of what it holds (see Entry.cost), and past the budget the
// store drops the oldest entries of all sessions (see Store.sweep). Either
// way a dropped entry is counted: dropped is always next minus the
// entries kept.
type Journal struct {
	mu    sync.Mutex
	ring  []*Entry // entry i at ring[i%len(ring)]; kept: next-n to next-1
	n     int      // entries kept
	next  int64    // index of the next entry
	bytes int64    // the kept entries' costs, and resid
	mem   *Memory  // the store's account; nil outside a store, or once deleted

	header Headers // the last entry's request headers, shared by the next when equal
	// The last entry's path, query and host, shared by the next when
	// equal: an agent repeats them, and an entry that keeps its own copy
	// keeps the request's line and Host header alive with it.
	path, query, host string
	// resid is what the last values above cost once the entry that owned
	// them was dropped while the journal was emptied by its count limit:
	// they are still held (the next entry may share them), so still
	// accounted, until a new value replaces them or a sweep forgets them.
	resid [nShared]int32
}

// The values an entry may share with the previous one, as bits of
// Entry.owns: an entry owns (is charged for) a value it brought, and
// shares, free, one equal to the previous entry's.
const (
	ownHeader = 1 << iota
	ownPath
	ownQuery
	ownHost
	nShared = iota
)

// sharedLen returns the bytes of e's shared value f.
func (e *Entry) sharedLen(f int) int {
	switch f {
	case 0:
		return len(e.ReqHeader)
	case 1:
		return len(e.Path)
	case 2:
		return len(e.Query)
	default:
		return len(e.Host)
	}
}

// share makes *s the last value kept when equal to it, else keeps *s as
// the last value. It reports whether *s is a new value.
func share(s, last *string) bool {
	if *s == *last {
		*s = *last
		return false
	}
	*last = *s
	return true
}

// entryBase is what every entry costs beside the values it holds: the
// struct and its slot in the ring.
const entryBase = int64(unsafe.Sizeof(Entry{})) + 8

// ownCost returns the estimate of what e holds beside shared values:
// its method, bodies the twin does not hold anyway, and its extras. An
// answer from a recording (Exchange set) is the recording's own bytes,
// shared by every entry that served it (see KeepBody), so it costs
// nothing here.
func ownCost(e *Entry) int64 {
	c := entryBase + int64(len(e.Method)) + e.ReqBody.cost()
	switch {
	case e.answer != nil:
		c += int64(e.answer.Kept()) // the version stays while the entry does, whatever the session keeps
	case e.Exchange == "":
		c += e.resp.cost()
	}
	if x := e.Extra; x != nil {
		c += int64(unsafe.Sizeof(*x)) + int64(len(x.Fault)+len(x.Link)+len(x.Ignored)+len(x.Limit)+len(x.Invalid))
		if d := x.Delivery; d != nil {
			c += int64(unsafe.Sizeof(*d)) + int64(len(d.URL)+len(d.Event)+len(d.Error))
		}
	}
	return c
}

// Begin appends e, numbering it, with the request headers h in Headers'
// form, and drops the oldest entry past limit. Callers call it under the
// session's lock, so a write's index follows every request served before
// it; reads holding the lock shared append side by side, numbered in the
// order they get here (the journal's own mutex orders them). It reports
// whether the store's journal budget is passed, which Store.Begin answers
// with a sweep.
func (j *Journal) Begin(e *Entry, h http.Header, limit int) (over bool) {
	if limit <= 0 {
		limit = DefaultJournalLimit
	}
	var scratch [headerScratch]byte
	wire := appendHeaders(scratch[:0], h)
	j.mu.Lock()
	var freed int64
	if j.n >= limit {
		freed = j.dropOldest()
	}
	cost := ownCost(e)
	e.owns = 0
	if string(wire) != string(j.header) || j.header == "" {
		j.header = Headers(wire)
		e.owns |= ownHeader
	}
	e.ReqHeader = j.header
	if share(&e.Path, &j.path) {
		e.owns |= ownPath
	}
	if share(&e.Query, &j.query) {
		e.owns |= ownQuery
	}
	if share(&e.Host, &j.host) {
		e.owns |= ownHost
	}
	for f := range nShared {
		r := int64(j.resid[f])
		switch {
		case e.owns&(1<<f) != 0:
			cost += int64(e.sharedLen(f))
		case r > 0:
			// e takes over the value its dropped predecessor held: the
			// journal's charge for it moves into e's cost.
			e.owns |= 1 << f
			cost += r
		}
		// Either way the residue is no longer the journal's own: released
		// here, and charged again within cost when e holds it.
		freed += r
		j.bytes -= r
		j.resid[f] = 0
	}
	e.cost = int32(cost)
	e.Index = j.next
	if j.n == len(j.ring) {
		j.resize(min(max(2*len(j.ring), 4), limit))
	}
	j.ring[j.next%int64(len(j.ring))] = e
	j.n++
	j.next++
	j.bytes += cost
	if m := j.mem; m != nil {
		e.seq = m.charge(cost, freed)
		over = m.over()
	}
	j.mu.Unlock()
	return over
}

// resize moves the kept entries to a ring of size slots (at least j.n):
// it doubles, up to the limit, as a journal fills, and halves when a
// sweep leaves it mostly empty, so that its slots stay within a small
// factor of the entries charged for them (entryBase counts one each).
func (j *Journal) resize(size int) {
	ring := make([]*Entry, size)
	for i := j.next - int64(j.n); i < j.next; i++ {
		ring[i%int64(size)] = j.ring[i%int64(len(j.ring))]
	}
	j.ring = ring
}

// dropOldest drops the oldest entry (there is one) and returns the bytes
// it frees. A value the entry owned and its successor shares passes to
// the successor, which now holds it; with no successor, the journal's
// last values hold it (resid).
func (j *Journal) dropOldest() int64 {
	i := (j.next - int64(j.n)) % int64(len(j.ring))
	old := j.ring[i]
	j.ring[i] = nil
	j.n--
	freed := int64(old.cost)
	var succ *Entry
	if j.n > 0 {
		succ = j.ring[(i+1)%int64(len(j.ring))]
	}
	for f := range nShared {
		bit := uint8(1) << f
		if old.owns&bit == 0 {
			continue
		}
		size := int64(old.sharedLen(f))
		switch {
		case succ != nil && succ != old && succ.owns&bit == 0:
			succ.owns |= bit
			succ.cost += int32(size)
			freed -= size
		case succ == nil && j.lastHolds(f, old):
			j.resid[f] = int32(size)
			freed -= size
		}
	}
	j.bytes -= freed
	return freed
}

// lastHolds reports whether the journal's last value f is old's.
func (j *Journal) lastHolds(f int, old *Entry) bool {
	switch f {
	case 0:
		return old.ReqHeader != "" && unsafe.StringData(string(old.ReqHeader)) == unsafe.StringData(string(j.header))
	case 1:
		return old.Path != "" && unsafe.StringData(old.Path) == unsafe.StringData(j.path)
	case 2:
		return old.Query != "" && unsafe.StringData(old.Query) == unsafe.StringData(j.query)
	default:
		return old.Host != "" && unsafe.StringData(old.Host) == unsafe.StringData(j.host)
	}
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
	out := make([]Entry, 0, j.n)
	for i := j.next - int64(j.n); i < j.next; i++ {
		out = append(out, *j.ring[i%int64(len(j.ring))])
	}
	return out, j.next - int64(j.n)
}

// Bytes returns the journal's estimate of what its entries hold.
func (j *Journal) Bytes() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.bytes
}

// clear empties the journal; indexes start from 0 again.
func (j *Journal) clear() {
	j.mu.Lock()
	j.forget()
	j.ring, j.n, j.next = nil, 0, 0
	j.mu.Unlock()
}

// forget drops the last values and gives every byte the journal was
// charged back to the store's account.
func (j *Journal) forget() {
	if j.mem != nil {
		j.mem.release(j.bytes)
	}
	j.bytes, j.resid = 0, [nShared]int32{}
	j.header, j.path, j.query, j.host = "", "", "", ""
}

// Journal returns the session's journal.
func (s *Session) Journal() *Journal { return &s.journal }
