package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/canon"
	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/session"
)

// dispatch runs the handler of req, under the session's exclusive lock.
func (e *Engine) dispatch(st *session.State, req *request, a *answer) {
	switch req.match.Value.Kind {
	case compiled.KindCreate, compiled.KindUpdate, compiled.KindAction, compiled.KindDelete, compiled.KindMember:
		e.idempotent(st, req, a)
	default:
		e.read(st, req, a)
	}
}

// read runs the handler of a request that only reads its session.
func (e *Engine) read(st session.Reader, req *request, a *answer) {
	x, ok := e.expansions(req, a)
	if !ok {
		return
	}
	defer e.expandAnswer(st, x, a)
	if e.handler != nil && e.handle(st, exclusive(st), req, a) {
		return
	}
	if req.match.Value.Kind != compiled.KindList && !e.checkRead(st, req, a) {
		return
	}
	switch req.match.Value.Kind {
	case compiled.KindRetrieve:
		e.retrieve(st, req, a)
	case compiled.KindList:
		e.list(st, req, a)
	default:
		e.plain(req, a)
	}
}

// exclusive returns st's exclusive state when the read holds it (a read
// served under the exclusive lock, or a write to a plain route), else nil.
func exclusive(st session.Reader) *session.State {
	s, _ := st.(*session.State)
	return s
}

// idempotent runs a write, replaying the first answer for a repeated
// Idempotency-Key within the session.
func (e *Engine) idempotent(st *session.State, req *request, a *answer) {
	if req.idem == "" || req.method != http.MethodPost {
		e.mutate(st, req, a)
		return
	}
	fp := fingerprint(req)
	if prev := st.Replay(req.idem); prev != nil {
		if prev.Fingerprint != fp {
			e.idempotencyConflict(a, req.idem)
			return
		}
		a.status, a.body, a.prov, a.replayed = prev.Status, prev.Body, prev.Provenance, true
		return
	}
	if e.replaysFull(st, req, a) {
		return
	}
	e.mutate(st, req, a)
	// As providers keep no result for a request that failed validation (it
	// never started), a refused request's key stays free.
	if a.status < 500 && !a.refused {
		st.Remember(req.idem, &session.Replay{Fingerprint: fp, Status: a.status, Body: a.body, Provenance: a.prov})
	}
}

// fingerprint identifies what a POST asked for: method, path, canonical
// query and canonical body. The query is part of it because query
// parameters are applied on POST as body parameters are: the same key
// with other query values is another request.
func fingerprint(req *request) string {
	body, err := canon.Body(req.ctype, req.body)
	if err != nil {
		body = string(req.body)
	}
	query, err := canon.Query(req.query)
	if err != nil {
		query = req.query
	}
	sum := sha256.Sum256([]byte(req.method + " " + req.path + "?" + query + "\x00" + body))
	return hex.EncodeToString(sum[:])
}

func (e *Engine) idempotencyConflict(a *answer, key string) {
	a.prov = ProvHandler
	if e.twin.Errors.Idempotency != nil {
		a.shape(e.twin.Errors.Idempotency, map[string]string{"id": key})
		return
	}
	a.fail(apierr.New(apierr.IdempotencyConflict, "Idempotency-Key "+strconv.Quote(key)+" was used with other parameters in this session"))
}

// mutate runs the handler of a state-changing request: the dialect's
// (handled.go), else the engine's, of which the dialect's Handler then
// hears. Both run inside idempotent, so a repeated key replays either.
func (e *Engine) mutate(st *session.State, req *request, a *answer) {
	if e.full(st, req, a) || e.memoryFull(a) {
		return
	}
	x, ok := e.expansions(req, a)
	if !ok {
		return
	}
	defer e.expandAnswer(st, x, a) // after the dialect's Answered, deferred below
	if e.handler != nil {
		if e.handle(st, st, req, a) {
			return
		}
		// A declared event reaches the dialect whatever its Follows
		// says; a write that declares none costs a string's test.
		if ep := req.match.Value; ep.Event != "" || e.handler.Follows(ep.Route[0]) {
			defer e.answered(st, req, a, e.before(st, req))
		}
	}
	switch req.match.Value.Kind {
	case compiled.KindCreate:
		e.create(st, req, a)
	case compiled.KindUpdate:
		e.update(st, req, a)
	case compiled.KindAction:
		e.act(st, req, a)
	case compiled.KindMember:
		e.addMembers(st, req, a)
	case compiled.KindDelete:
		e.remove(st, req, a)
	}
}
