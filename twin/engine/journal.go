package engine

import (
	"net/http"
	"time"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/hostguard"
	"github.com/wraithdev/wraith/twin/session"
)

// journalBegin journals a request of sess, under the session's lock so
// that entries are numbered in the order the session served them: a write
// after every request before it, reads running side by side (under the
// shared lock) in the order they reach the journal. The
// entry refers to the request's headers and to a recorded answer's bytes;
// of any other body it keeps at most session.BodyExcerpt bytes (see
// session.KeepBody), so a journal of large requests stays small; and all
// journals together stay within the store's memory budget, which drops
// the oldest entries of any session past it (session.Store.Begin), so a
// read is never refused for what the journal holds.
func (e *Engine) journalBegin(sess *session.Session, r *http.Request, req *request, a *answer, at int64, start time.Time) *session.Entry {
	ent := &session.Entry{
		At:     at,
		Method: req.method, Path: req.path, Query: req.query, Host: req.host,
		Status: a.status, Provenance: a.prov,
		ReqBody: session.KeepBody(req.body, false),
	}
	if a.entity == nil || a.exchange != nil || !a.entity.BodyIs(a.body) || !ent.SetRespEntity(a.entity) {
		ent.SetRespBody(session.KeepBody(a.body, a.exchange != nil)) // a recorded answer's bytes live as long as the twin
	}
	if ep := req.match.Value; ep != nil {
		ent.Route = ep.Route[0]
	}
	if a.exchange != nil {
		ent.Exchange = a.exchange[0]
	}
	ent.Recorded, ent.Replayed = a.header, a.replayed
	if a.fault != nil || a.link != nil || len(a.ignored) > 0 || a.limit != "" || a.invalid != "" {
		x := &session.Extra{Limit: string(a.limit), IgnoredCount: len(a.ignored), Invalid: headerSafe(a.invalid)}
		if a.fault != nil {
			x.Fault = a.fault[0]
		}
		if a.link != nil {
			x.Link = a.link[0]
		}
		if len(a.ignored) > 0 {
			x.Ignored = ignoredHeader(a.ignored)
		}
		ent.Extra = x
	}
	e.store.Begin(sess, ent, r.Header)
	return ent
}

// journalEnd completes an entry once its answer is written: whether it
// was, the second its headers carry (ResponseHeader rebuilds them from
// the entry) and the time it took; then coverage and metrics see it.
func (e *Engine) journalEnd(sess *session.Session, ent *session.Entry, answered bool, served int64, start time.Time) {
	sess.Journal().Finish(ent, answered, served, time.Since(start))
	e.store.Finished(sess.Name(), ent)
}

// journalMiss journals a route miss in its session when that session
// exists (a miss never creates one), and reports it either way.
func (e *Engine) journalMiss(name string, r *http.Request, served int64, body []byte, start time.Time) {
	ent := &session.Entry{
		Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Host: r.Host,
		Status: apierr.RouteMiss.Status(), Provenance: ProvMiss,
		Answered: true, Served: served, Latency: time.Since(start),
	}
	ent.SetRespBody(session.KeepBody(body, false))
	if sess := e.store.Get(name); sess != nil {
		// Journaled only if the session is free before the client leaves:
		// a miss never waits longer than the request it answers.
		if sess.ReadContext(r.Context(), func(st session.Reader) { ent.At = st.Now(e.now) }) == nil {
			e.store.Begin(sess, ent, r.Header)
		}
	}
	e.store.Finished(name, ent)
}

// refused reports a request answered before it reached its session's lock
// (a bad or conflicting session name, the session limit, a body over
// --max-body or unreadable, parameters past the request limits, a client
// gone while it waited) to coverage and metrics, with the status and
// provenance it got: handler for a refusal in the provider's shape, fault
// for Wraith's own (as for the entity and memory limits). No journal
// keeps it: its session may not exist, and a refused request changed
// nothing.
func (e *Engine) refused(name string, r *http.Request, ep *compiled.Endpoint, status int, provenance string, start time.Time) {
	ent := &session.Entry{
		Method: r.Method, Path: r.URL.Path, Host: r.Host,
		Status: status, Provenance: provenance, Latency: time.Since(start),
	}
	if ep != nil {
		ent.Route = ep.Route[0]
	}
	e.store.Finished(name, ent)
}

// Refuse answers an application request the server refuses before the
// engine reads it (a declared body over --max-body) with fail, and
// reports it as refused does, under the route and session it named.
func (e *Engine) Refuse(w http.ResponseWriter, r *http.Request, fail *apierr.Error) {
	start := time.Now()
	hostguard.NoSniff(w.Header()) // as on every application answer
	apierr.Write(w, fail)
	name, path, bad := e.sessionOf(r)
	if bad != nil {
		name = ""
	}
	var ep *compiled.Endpoint
	if m, ok := e.twin.Router.Match(r.Method, path); ok {
		ep = m.Value
	}
	e.refused(name, r, ep, fail.Status(), ProvFault, start)
}
