package engine

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/canon"
	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/hostguard"
	"github.com/wraithdev/wraith/twin/prov"
	"github.com/wraithdev/wraith/twin/route"
	"github.com/wraithdev/wraith/twin/session"
)

// Provenance values: where an answer came from (package prov is their
// home).
const (
	ProvRecorded = prov.Recorded
	ProvTemplate = prov.Template
	ProvHandler  = prov.Handler
	ProvFixture  = prov.Fixture
	ProvFault    = prov.Fault
	ProvMiss     = prov.Miss
)

// request is what a handler sees of an application request.
type request struct {
	ctx    context.Context // the client's: done when it hangs up
	method string
	path   string
	query  string
	host   string // the Host the request was sent to, for Link headers and computed fields
	prefix string // "/__s/{session}" when the path named the session, so links lead back to it
	tls    bool
	ctype  string
	header http.Header
	body   []byte
	idem   string
	match  *route.Match[*compiled.Endpoint]
	now    int64 // the session's time for this request
	// wall is the wall clock's time the request began at, read once:
	// the session's time on a real clock and the time its headers say.
	wall time.Time
	// st is the session, once its lock is held: what a declared route's
	// honest answer looks its names up in (honest.go).
	st session.Reader
	// deliveries are the webhook deliveries the dialect queued (world.go),
	// posted once the request is answered.
	deliveries []dialect.Delivery
	// moved says the request moved its session's clock (world.go).
	moved bool
}

// wallAt is the wall clock's time of a request that began at start: start
// itself on the real clock, so a request reads the clock once for its
// session's time, its headers and its journal entry; else the wall clock
// Options.Now gives.
func (e *Engine) wallAt(start time.Time) time.Time {
	if e.realWall {
		return start
	}
	return e.now()
}

// ServeHTTP answers one application request.
func (e *Engine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	// Set before anything can be written: the refusals below are answers
	// too (setHeader sets it on the rest, with the sandbox where needed).
	hostguard.NoSniff(w.Header())
	name, path, bad := e.sessionOf(r)
	if bad != nil {
		apierr.Write(w, bad)
		e.refused("", r, nil, bad.Status(), ProvFault, start) // the name is not one: nobody to count it against
		return
	}
	var prefix string
	if path != r.URL.Path { // the path named the session: /__s/{name}/...
		prefix = PathPrefix + name
		r = withPath(r, path)
	}
	if e.protocol != nil && e.serveProtocol(w, r, name, start) {
		return
	}
	m, ok := e.twin.Router.Match(r.Method, r.URL.Path)
	if !ok {
		served, body := e.writeMiss(w, name, r)
		e.journalMiss(name, r, served, body, start)
		return
	}
	sess, err := e.Session(name)
	if err != nil {
		e.refused(name, r, m.Value, e.writeSessionError(w, err), ProvFault, start)
		return
	}
	req := request{
		ctx:    r.Context(),
		method: r.Method,
		path:   r.URL.Path,
		query:  r.URL.RawQuery,
		host:   r.Host,
		prefix: prefix,
		tls:    r.TLS != nil || forwardedTLS(r.Header),
		header: r.Header,
		match:  &m,
		wall:   e.wallAt(start),
	}
	if r.Body != nil && r.Body != http.NoBody {
		body, err := e.readBody(r)
		if err != nil {
			var tooBig *http.MaxBytesError
			fail := apierr.New(apierr.BodyUnreadable, "could not read the request body: "+err.Error())
			if errors.As(err, &tooBig) {
				fail = apierr.New(apierr.BodyTooLarge, "request body is larger than "+strconv.FormatInt(tooBig.Limit, 10)+" bytes")
			}
			apierr.Write(w, fail)
			e.refused(name, r, m.Value, fail.Status(), ProvFault, start)
			return
		}
		req.body = body
	}
	if v := r.Header["Content-Type"]; len(v) > 0 {
		req.ctype = v[0]
	}
	if v := r.Header["Idempotency-Key"]; len(v) > 0 {
		req.idem = v[0]
	}
	var a answer
	if err := canon.CheckLimits(req.ctype, req.body, req.query); err != nil {
		// Refused before the session's lock: nothing is built from the
		// request, and the session's clock does not move.
		e.overLimit(&a, err)
		e.write(w, sess, m.Value, &a, req.wall)
		e.refused(name, r, m.Value, a.status, a.prov, start)
		return
	}
	if e.keyTooLong(&a, &req) {
		e.write(w, sess, m.Value, &a, req.wall)
		e.refused(name, r, m.Value, a.status, a.prov, start)
		return
	}
	var ent *session.Entry
	if e.reads(sess, &req) {
		err = sess.ReadContext(req.ctx, func(st session.Reader) {
			req.now, req.st = st.Begin(req.wall), st
			e.read(st, &req, &a)
			envelop(&req, &a)
			ent = e.journalBegin(sess, r, &req, &a, req.now, start)
		})
	} else {
		err = sess.DoContext(req.ctx, func(st *session.State) {
			req.now, req.st = st.Begin(req.wall), st
			if e.limited(st, &req, &a) {
				ent = e.journalBegin(sess, r, &req, &a, st.Now(e.now), start)
				return
			}
			e.faulted(st, &req, &a)
			envelop(&req, &a)
			ent = e.journalBegin(sess, r, &req, &a, req.now, start)
		})
	}
	if err != nil {
		fail := e.unserved(err)
		apierr.Write(w, fail)
		e.refused(name, r, m.Value, fail.Status(), ProvFault, start)
		return
	}
	if a.delay > 0 && !wait(req.ctx, a.delay) {
		e.journalEnd(sess, ent, false, 0, start)
		return // the client gave up on a slow answer
	}
	served, answered := e.write(w, sess, m.Value, &a, req.wall)
	e.journalEnd(sess, ent, answered, served, start)
	e.deliver(sess, &req)
}

// unserved is the answer to a request that did not get its session: the
// client went away (or the server is stopping) while another request of
// the session held it, so nobody reads the answer; or, with --state-dir,
// its change could not be put on disk (session.ErrNotDurable).
func (e *Engine) unserved(err error) *apierr.Error {
	if errors.Is(err, session.ErrNotDurable) {
		return apierr.New(apierr.StateUnavailable, err.Error())
	}
	return apierr.New(apierr.RequestCanceled, "the request ended before its session was free: "+err.Error())
}

// withPath returns r asking for the provider path p: what routing,
// matching and the journal see of a request whose path named its session.
func withPath(r *http.Request, p string) *http.Request {
	r2 := new(http.Request)
	*r2 = *r
	u := *r.URL
	u.Path, u.RawPath = p, ""
	r2.URL = &u
	return r2
}

// readBody reads a request body, sizing the buffer from Content-Length
// when the client sent one (the server has already bounded it by
// MaxBody), so a large body is one allocation rather than a doubling
// series of them.
func (e *Engine) readBody(r *http.Request) ([]byte, error) {
	if n := r.ContentLength; n > 0 && n <= max(1<<20, e.opts.MaxBody) {
		buf := make([]byte, n)
		if _, err := io.ReadFull(r.Body, buf); err != nil {
			return nil, err
		}
		return buf, nil
	}
	return io.ReadAll(r.Body)
}

// reads reports whether req only reads its session, so that it may run
// beside the session's other reads, under its shared lock, with a
// session.Reader (read): a GET or HEAD of a retrieve, list or plain route.
// Those read the session's entities and change none; their one
// per-request step, the clock's tick and the request count, is atomic
// (session.Reader.Begin). They draw no id either:
// a synthesized entity takes its id from the path. A session under a
// fault profile or a rate limit counts every request it serves (each
// rule's matches, the window's requests), so all its requests take the
// exclusive lock, as every write does.
func (e *Engine) reads(sess *session.Session, req *request) bool {
	if req.method != http.MethodGet && req.method != http.MethodHead {
		return false
	}
	switch req.match.Value.Kind {
	case compiled.KindRetrieve, compiled.KindList, compiled.KindPlain:
	default:
		return false
	}
	set, _ := sess.Settings()
	return (set.FaultProfile == "" || set.FaultProfile == "none") && set.RateLimit.N == 0
}

// forwardedTLS reports whether the client reached the provider's API over
// TLS that a proxy in front of the twin ended (X-Forwarded-Proto: https,
// as wraith run's router and nginx send it), so that the URLs the twin
// writes into its answers (links, pagination, computed urls) are https://
// as the client's were. The header only changes those URLs' scheme.
func forwardedTLS(h http.Header) bool {
	v := h["X-Forwarded-Proto"]
	return len(v) == 1 && strings.EqualFold(v[0], "https")
}
