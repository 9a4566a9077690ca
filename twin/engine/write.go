package engine

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/canon"
	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/world"
)

// create answers POST {collection}: a new entity from the resource's
// skeleton, its ids and timestamps, the request's parameters, its
// expansions and create rules, and for a resource keyed by its path, the
// key that addresses it.
func (e *Engine) create(st *session.State, req *request, a *answer) {
	res := req.match.Value.Resource
	x := res.Keys
	var buf [16]canon.FlatParam // on the stack for the few parameters a create usually has
	p, ok := e.writeParams(req, a, buf[:0])
	if !ok {
		return
	}
	for _, f := range x.Required {
		if !p.has(f) {
			e.validation(a, res, f, "missing_field")
			return
		}
	}
	scope := x.ScopeOf(req.match)
	o := e.startCreate(res)
	defer e.endCreate(res, o) // what save keeps is bytes: o is done with when create returns
	e.fillIDs(st, res, scope, o)
	now := x.TimeValue(req.now)
	for _, f := range res.Timestamps {
		o.Set(f, now)
	}
	w := e.setterFor(res, st, o, req.now)
	ignored, err := w.apply(o, p, res.Immutable, nil)
	if err != nil {
		e.paramFailed(a, err)
		return
	}
	if !e.expand(st, res, o, a) {
		return
	}
	e.applyRules(res.Create, o, req.now)
	key := e.finishKey(res, o)
	if key == "" {
		e.validation(a, res, x.KeyField, "missing_field")
		return
	}
	addr := res.AddressOf(scope, key)
	if x.Keyed {
		if cur := st.Get(addr); cur != nil && !cur.Deleted && cur.Resource == res.Name {
			e.validation(a, res, x.KeyField, "already_exists")
			return
		}
	}
	e.compute(res, o, scope, req)
	if !e.save(st, req, o, &world.Entity{ID: addr, Resource: res.Name, Created: req.now, Seq: st.NextSeq(), Scope: joinSlash(scope)}, a) {
		return
	}
	a.status, a.ignored = x.CreateStatus, ignored
}

// update answers POST/PUT/PATCH {item}.
func (e *Engine) update(st *session.State, req *request, a *answer) {
	res := req.match.Value.Resource
	var buf [16]canon.FlatParam
	p, ok := e.writeParams(req, a, buf[:0])
	if !ok {
		return
	}
	o, ent, ok := e.current(st, req, a)
	if !ok {
		return
	}
	w := e.setterFor(res, st, o, req.now)
	ignored, err := w.apply(o, p, res.Immutable, nil)
	if err != nil {
		e.paramFailed(a, err)
		return
	}
	if !e.expand(st, res, o, a) {
		return
	}
	if !e.afterUpdate(res, o, ent, req, a) {
		return
	}
	if e.save(st, req, o, ent, a) {
		a.ignored = ignored
	}
}

// afterUpdate applies what a resource declares of an update: the key
// stays (it is the entity's address), update rules, computed fields.
func (e *Engine) afterUpdate(res *compiled.Resource, o *object.Object, ent *world.Entity, req *request, a *answer) bool {
	x := res.Keys
	if x.Keyed {
		v, _ := o.Get(x.KeyField)
		if key := compiled.KeyText(v); !strings.HasSuffix(ent.ID, "/"+key) && !strings.HasSuffix(ent.ID, ":"+key) {
			e.refuse(a, dialect.Problem{Kind: dialect.KeyInPath, Param: x.KeyField})
			return false
		}
	}
	e.applyRules(x.UpdateRules, o, req.now)
	e.compute(res, o, x.ScopeOf(req.match), req)
	return true
}

// act answers POST {item}/{action}: a state-machine transition.
func (e *Engine) act(st *session.State, req *request, a *answer) {
	res, act := req.match.Value.Resource, req.match.Value.Action
	var buf [16]canon.FlatParam
	p, ok := e.writeParams(req, a, buf[:0])
	if !ok {
		return
	}
	o, ent, ok := e.current(st, req, a)
	if !ok {
		return
	}
	status := o.String("status")
	if len(act.From) > 0 && !act.From[status] {
		e.unexpectedState(a, res, ent.ID, status, act)
		return
	}
	w := e.setterFor(res, st, o, req.now)
	ignored, err := w.apply(o, p, res.Immutable, act.Params)
	if err != nil {
		e.paramFailed(a, err)
		return
	}
	if !e.expand(st, res, o, a) {
		return
	}
	fail := failing(act.Rules, o)
	e.applyRules(act.Rules, o, req.now)
	if e.save(st, req, o, ent, a) {
		a.ignored = ignored
		e.fail(a, fail, res, ent.ID)
	}
}

func (e *Engine) unexpectedState(a *answer, res *compiled.Resource, id, status string, act *compiled.Action) {
	a.prov = ProvHandler
	vals := map[string]string{"id": id, "object": res.Name, "status": status, "action": act.Name}
	if e.twin.Errors.UnexpectedState != nil {
		a.shape(e.twin.Errors.UnexpectedState, vals)
		return
	}
	a.fail(apierr.New(apierr.UnexpectedState, res.Name+" "+strconv.Quote(id)+" has status "+strconv.Quote(status)+"; "+act.Name+" needs one of "+joinComma(act.FromList)))
}

// remove answers DELETE {item}.
func (e *Engine) remove(st *session.State, req *request, a *answer) {
	res := req.match.Value.Resource
	_, ent, ok := e.current(st, req, a)
	if !ok {
		return
	}
	st.Delete(ent)
	a.prov, a.status = ProvHandler, http.StatusOK
	if res.Keys.DeleteStatus == http.StatusNoContent {
		a.status = http.StatusNoContent
		return
	}
	if res.Deleted != nil {
		a.shape(res.Deleted, map[string]string{"id": res.ShownID(ent.ID), "object": res.Name})
		return
	}
	a.body = ent.Body()
}

// params decodes the request's parameters as the dialect reads them,
// answering 400 when it cannot.
func (e *Engine) params(req *request, a *answer) (map[string]any, bool) {
	p, err := e.dialect.Params(req.ctype, req.body, req.query)
	if err != nil {
		if ne, ok := err.(*canon.NumberError); ok {
			e.refuse(a, dialect.Problem{Kind: dialect.InvalidNumber, Param: ne.Param, Detail: ne.Error()})
			return nil, false
		}
		e.refuse(a, dialect.Problem{Kind: dialect.InvalidRequest, Detail: err.Error()})
		return nil, false
	}
	return p, true
}

// refuse answers p in the dialect's words and the twin's invalid-request
// shape.
func (e *Engine) refuse(a *answer, p dialect.Problem) {
	e.invalid(a, p.Param, e.dialect.Word(p))
}

// invalid answers with the provider's invalid-request shape.
func (e *Engine) invalid(a *answer, param, message string) {
	a.prov = ProvHandler
	if e.twin.Errors.Invalid != nil {
		a.shape(e.twin.Errors.Invalid, map[string]string{"param": param, "message": message})
		return
	}
	a.fail(apierr.New(apierr.InvalidParams, message).With("param", param))
}

func (e *Engine) paramFailed(a *answer, err error) {
	if pe, ok := err.(*paramError); ok {
		e.refuse(a, pe.p)
		return
	}
	e.invalid(a, "", err.Error())
}

// validation answers a create the provider would refuse field by field:
// the twin's errors.validation shape, else its invalid-request shape.
func (e *Engine) validation(a *answer, res *compiled.Resource, field, code string) {
	a.prov = ProvHandler
	if e.twin.Errors.Validation != nil {
		a.shape(e.twin.Errors.Validation, map[string]string{"resource": res.Keys.Class, "param": field, "code": code, "object": res.Name})
		return
	}
	kind := dialect.MissingParam
	if code == "already_exists" {
		kind = dialect.AlreadyExists
	}
	e.refuse(a, dialect.Problem{Kind: kind, Param: field, Object: res.Name})
}

// save saves o as the session's version of ent and answers with it, and
// reports whether it did. o is scrubbed already (see scrubbed). It saves
// nothing when the client went away meanwhile, or when o's encoding is
// past Options.MaxBody (answering 400).
//
// The session keeps o as a patch over its resource's skeleton (see
// object.Skeleton): the fields that differ, encoded, and not the
// skeleton's bytes again. The answer is rebuilt from the patch, which
// copies the skeleton's unchanged runs instead of encoding them.
func (e *Engine) save(st *session.State, req *request, o *object.Object, ent *world.Entity, a *answer) bool {
	if e.gone(req, a) {
		return false
	}
	ne := &world.Entity{
		ID:         ent.ID,
		Resource:   ent.Resource,
		Created:    ent.Created,
		Seq:        ent.Seq,
		Provenance: world.Handler,
		Scope:      ent.Scope,
	}
	skel, known := req.match.Value.Resource.Encoded, ne.Known()
	scratch := e.scratchBuf()
	patch := skel.AppendDiff((*scratch)[:0], o, known)
	body := skel.Append(make([]byte, 0, skel.Len(patch, known)), patch, known)
	var kept []byte
	if len(patch) < len(body) {
		kept = make([]byte, len(patch))
		copy(kept, patch)
	}
	e.putScratch(scratch, patch)
	if e.tooLarge(a, ent.ID, body) {
		return false
	}
	if kept != nil {
		ne.SetPatch(skel, kept)
	} else {
		ne.SetBody(body)
	}
	st.Put(ne)
	a.status, a.body, a.prov = http.StatusOK, body, ProvHandler
	return true
}

// gone reports whether the request's client went away, answering 503
// request-canceled (which nobody reads) so the caller stops its work.
// Writes ask before they store: a request whose client hung up changes
// nothing.
func (e *Engine) gone(req *request, a *answer) bool {
	if req.ctx == nil || req.ctx.Err() == nil {
		return false
	}
	a.fail(apierr.New(apierr.RequestCanceled, "the request ended before it was answered: "+req.ctx.Err().Error()))
	a.prov = ProvHandler
	return true
}

// encode returns o's encoding in a slice of exactly its length: sessions
// keep these bodies, so slack capacity would be held for their lifetime.
// The encoding is built in a pooled scratch buffer and copied once.
func (e *Engine) encode(o *object.Object) []byte {
	scratch := e.scratchBuf()
	buf := o.AppendJSON((*scratch)[:0])
	body := make([]byte, len(buf))
	copy(body, buf)
	e.putScratch(scratch, buf)
	return body
}

// scratchBuf returns a pooled buffer to encode into; putScratch returns
// it with buf, what was appended to it, which may have grown.
func (e *Engine) scratchBuf() *[]byte {
	scratch, _ := e.scratch.Get().(*[]byte)
	if scratch == nil {
		b := make([]byte, 0, 4096)
		scratch = &b
	}
	return scratch
}

func (e *Engine) putScratch(scratch *[]byte, buf []byte) {
	if cap(buf) <= 64<<10 { // do not pool an outsized buffer
		*scratch = buf
		e.scratch.Put(scratch)
	}
}

func json64(n int64) json.Number {
	return json.Number(strconv.FormatInt(n, 10))
}
