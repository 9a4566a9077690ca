package engine

import (
	"errors"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/hostguard"
	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/world"
)

// answer is a response being built under a session's lock and written
// after it is released.
type answer struct {
	status   int
	header   http.Header // recorded headers, replayed as they are
	body     []byte
	entity   *world.Entity // the entity version body was built from, if any: the journal refers to it when body is still its body
	prov     string
	exchange []string
	replayed bool
	ignored  []string
	invalid  string        // X-Wraith-Invalid: what --validate warn let through
	refused  bool          // the request failed validation: nothing ran, no idempotent result is kept
	limit    apierr.Code   // the code of a Wraith limit the request passed, for X-Wraith-Limit
	wraith   bool          // body is a Wraith error, not the provider's
	link     []string      // a Link header, for lists paged by page number
	fault    []string      // X-Wraith-Fault: the fault rule that fired
	reset    bool          // close the connection instead of answering
	delay    time.Duration // wait this long before answering (a slow fault on a real clock)
}

func (a *answer) fromRecorded(rec *compiled.Recorded) {
	a.status, a.header, a.body, a.prov, a.exchange = rec.Status, rec.Header, rec.Body, ProvRecorded, rec.Exchange
}

// fail sets a Wraith error as the answer: the status its code has, the
// body in Wraith's shape.
func (a *answer) fail(err *apierr.Error) {
	a.status, a.body, a.wraith = err.Status(), err.Body(), true
}

// shape sets a provider-shaped answer: s's status and body with vals
// filled in.
func (a *answer) shape(s *compiled.Shaped, vals map[string]string) {
	a.status = s.Status
	a.body = []byte(format.Fill(s.Body, vals))
	if s.Header != nil {
		a.header = s.Header
	}
}

// missf sets a structured miss: Wraith's own error shape, type wraith_miss.
func (a *answer) missf(code apierr.Code, format string, args ...any) {
	a.fail(apierr.Errorf(code, format, args...).With("type", "wraith_miss"))
	a.prov = ProvMiss
}

// Precomputed header values, so writing a response allocates little.
var (
	jsonType = []string{"application/json"}
	provVals = map[string][]string{
		ProvRecorded: {ProvRecorded}, ProvTemplate: {ProvTemplate}, ProvHandler: {ProvHandler},
		ProvFixture: {ProvFixture}, ProvFault: {ProvFault}, ProvMiss: {ProvMiss},
	}
	trueVal = []string{"true"}
)

// write sends the answer a with headers of the wall clock's time wall,
// and returns its unix second (the journal keeps it to rebuild them), or
// false when no answer went out (a reset connection).
func (e *Engine) write(w http.ResponseWriter, sess *session.Session, ep *compiled.Endpoint, a *answer, wall time.Time) (int64, bool) {
	if a.reset {
		resetConn(w)
		return 0, false
	}
	hd := head{
		recorded: a.header, size: len(a.body), prov: a.prov,
		exchange: a.exchange, fault: a.fault, link: a.link, session: sess.HeaderValue(),
		replayed: a.replayed, limit: string(a.limit), ignoredCount: len(a.ignored),
		invalid: headerSafe(a.invalid),
	}
	if ep != nil {
		hd.route = ep.Route
	}
	if len(a.ignored) > 0 {
		hd.ignored = ignoredHeader(a.ignored)
	}
	if !e.opts.NoControlHeaders {
		hd.age, hd.at = e.age.values(wall)
	}
	e.setHeader(w.Header(), &hd)
	w.WriteHeader(a.status)
	w.Write(a.body)
	return wall.Unix(), true
}

// head is what an answer's headers are made of. The answer writer fills
// it from the answer it sends, ResponseHeader from the journal entry that
// answer left; setHeader turns it into headers for both, so the journal
// shows the headers the client received without keeping them.
type head struct {
	recorded     http.Header // a recorded answer's (or a rate limit's) headers, sent as they are
	size         int         // the body's length
	prov         string
	route        []string
	exchange     []string
	fault        []string
	link         []string
	session      []string
	age, at      []string // X-Wraith-Twin-Age and X-Wraith-Recorded-At
	ignored      string   // X-Wraith-Ignored-Params, see ignoredHeader
	ignoredCount int
	invalid      string // X-Wraith-Invalid
	limit        string
	replayed     bool
}

// setHeader sets the headers of the answer hd describes on h.
func (e *Engine) setHeader(h http.Header, hd *head) {
	for k, v := range hd.recorded {
		h[k] = v
	}
	if hd.recorded == nil {
		h["Content-Type"] = jsonType
		compiled.SetLength(h, hd.size)
	}
	hostguard.GuardAnswer(h, hd.recorded)
	if hd.link != nil {
		h["Link"] = hd.link
	}
	if hd.replayed {
		h["Idempotent-Replayed"] = trueVal
	}
	if e.opts.NoControlHeaders {
		return
	}
	h["X-Wraith-Provenance"] = provVals[hd.prov]
	if hd.route != nil {
		h["X-Wraith-Route"] = hd.route
	}
	if hd.exchange != nil {
		h["X-Wraith-Exchange"] = hd.exchange
	}
	h["X-Wraith-Twin-Age"] = hd.age
	h["X-Wraith-Recorded-At"] = hd.at
	h[SessionHeader] = hd.session
	if hd.ignoredCount > 0 {
		h["X-Wraith-Ignored-Params"] = []string{hd.ignored}
		h["X-Wraith-Ignored-Params-Count"] = []string{strconv.Itoa(hd.ignoredCount)}
	}
	if hd.limit != "" {
		h["X-Wraith-Limit"] = []string{hd.limit}
	}
	if hd.invalid != "" {
		h["X-Wraith-Invalid"] = []string{hd.invalid}
	}
	if hd.fault != nil {
		h["X-Wraith-Fault"] = hd.fault
	}
}

// ResponseHeader returns the headers the answer journaled as ent, in
// session name, was sent with, rebuilt by setHeader from what the entry
// kept; nil when no answer was sent (a reset connection, a client that
// left before a slow answer).
func (e *Engine) ResponseHeader(name string, ent *session.Entry) http.Header {
	if !ent.Answered {
		return nil
	}
	hd := head{
		recorded: ent.Recorded, size: ent.RespSize(), prov: ent.Provenance,
		route: one(ent.Route), exchange: one(ent.Exchange),
		session: []string{name}, replayed: ent.Replayed,
	}
	if x := ent.Extra; x != nil {
		hd.fault, hd.link, hd.limit, hd.ignored, hd.ignoredCount, hd.invalid = one(x.Fault), one(x.Link), x.Limit, x.Ignored, x.IgnoredCount, x.Invalid
	}
	if !e.opts.NoControlHeaders {
		v := e.age.at(ent.Served)
		hd.age, hd.at = v.age, v.at
	}
	h := make(http.Header)
	e.setHeader(h, &hd)
	return h
}

// maxInvalidBytes bounds X-Wraith-Invalid: a refusal's sentence names one
// parameter, and its value (which may be long) is cut.
const maxInvalidBytes = 512

// headerSafe is a dialect's sentence as one header line: line breaks and
// other control characters as spaces, at most maxInvalidBytes, cut at a
// character boundary.
func headerSafe(s string) string {
	if s == "" {
		return ""
	}
	b := make([]byte, 0, min(len(s), maxInvalidBytes))
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			r = ' '
		}
		if len(b)+utf8.RuneLen(r) > maxInvalidBytes {
			break
		}
		b = utf8.AppendRune(b, r)
	}
	return string(b)
}

// one is s as a header value; nil for "".
func one(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// Bounds of X-Wraith-Ignored-Params: a request may ignore tens of
// thousands of names, and common clients refuse header lines of more than
// a few KiB. X-Wraith-Ignored-Params-Count says how many there were.
const (
	maxIgnoredNames = 50
	maxIgnoredBytes = 1024
)

// ignoredHeader lists the first ignored names, in sorted order, that fit
// in maxIgnoredBytes, at most maxIgnoredNames of them; a name longer than
// the whole budget is cut short and ends in "...".
func ignoredHeader(names []string) string {
	b := make([]byte, 0, min(maxIgnoredBytes, 64*len(names)))
	for i, s := range names {
		if i == maxIgnoredNames {
			break
		}
		if i > 0 {
			if len(b)+1+len(s) > maxIgnoredBytes {
				break
			}
			b = append(b, ',')
		} else if len(s) > maxIgnoredBytes {
			s = s[:maxIgnoredBytes-3] + "..."
		}
		b = append(b, s...)
	}
	return string(b)
}

func joinComma(l []string) string {
	n := 0
	for _, s := range l {
		n += len(s) + 1
	}
	b := make([]byte, 0, n)
	for i, s := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, s...)
	}
	return string(b)
}

// writeMiss answers a route miss and returns the wall clock's unix second
// its headers carry and the body it sent.
func (e *Engine) writeMiss(w http.ResponseWriter, name string, r *http.Request) (int64, []byte) {
	var a answer
	if e.twin.Router.PathKnown(r.URL.Path) {
		a.missf(apierr.RouteMiss, "the twin has %s but no %s route for it", r.URL.Path, r.Method)
	} else {
		a.missf(apierr.RouteMiss, "no route of twin %s matches %s %s", e.twin.Name(), r.Method, r.URL.Path)
	}
	hd := head{size: len(a.body), prov: ProvMiss, session: []string{name}}
	now := e.now()
	if !e.opts.NoControlHeaders {
		hd.age, hd.at = e.age.values(now)
	}
	e.setHeader(w.Header(), &hd)
	w.WriteHeader(a.status)
	w.Write(a.body)
	return now.Unix(), a.body
}

// writeSessionError answers a session that could not be had, and returns
// the status it wrote.
func (e *Engine) writeSessionError(w http.ResponseWriter, err error) int {
	fail := apierr.New(apierr.Internal, err.Error())
	switch {
	case errors.Is(err, session.ErrLimit):
		fail = apierr.New(apierr.SessionLimit, err.Error())
	case errors.Is(err, ErrNotProvisioned):
		fail = apierr.New(apierr.SessionNotProvisioned, err.Error())
	case errors.Is(err, session.ErrNotDurable):
		fail = apierr.New(apierr.StateUnavailable, err.Error())
	}
	apierr.Write(w, fail)
	return fail.Status()
}

// ageHeader caches the twin-age header values for the current second.
type ageHeader struct {
	recordedAt time.Time
	cur        atomic.Pointer[ageValues]
}

type ageValues struct {
	unix int64
	age  []string
	at   []string
}

func (h *ageHeader) values(now time.Time) (age, at []string) {
	sec := now.Unix()
	if v := h.cur.Load(); v != nil && v.unix == sec {
		return v.age, v.at
	}
	v := h.at(sec)
	h.cur.Store(v)
	return v.age, v.at
}

// at returns the header values at the unix second sec.
func (h *ageHeader) at(sec int64) *ageValues {
	v := &ageValues{unix: sec, at: []string{h.recordedAt.UTC().Format(time.RFC3339)}}
	a := int64(0)
	if !h.recordedAt.IsZero() {
		a = sec - h.recordedAt.Unix()
	}
	v.age = []string{strconv.FormatInt(a, 10)}
	return v
}

// TwinAge returns the twin's age in seconds at now.
func (e *Engine) TwinAge(now time.Time) int64 {
	if e.twin.Source.RecordedAt.IsZero() {
		return 0
	}
	return now.Unix() - e.twin.Source.RecordedAt.Unix()
}
