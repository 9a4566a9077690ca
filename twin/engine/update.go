package engine

import (
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

// update answers POST/PUT/PATCH {item}.
func (e *Engine) update(st *session.State, req *request, a *answer) {
	res := req.match.Value.Resource
	var buf [16]canon.FlatParam // on the stack for the few parameters a write usually has
	p, o, ent, ok := e.existing(st, req, a, buf[:0])
	if !ok {
		return
	}
	ignored, ok := e.setParams(st, req, o, p, nil, a)
	if !ok {
		return
	}
	if !e.afterUpdate(res, o, ent, req, a) {
		return
	}
	if e.save(st, req, o, ent, a) {
		a.ignored = ignored
	}
}

// existing decodes the parameters of a write to an existing entity and
// finds the entity (see current), answering when it cannot have either.
func (e *Engine) existing(st *session.State, req *request, a *answer, buf []canon.FlatParam) (reqParams, *object.Object, *world.Entity, bool) {
	p, ok := e.writeParams(st, req, a, buf)
	if !ok {
		return reqParams{}, nil, nil, false
	}
	o, ent, ok := e.current(st, req, a)
	return p, o, ent, ok
}

// afterUpdate applies what a resource declares of an update: the key
// stays (it is the entity's address), update rules, computed fields.
func (e *Engine) afterUpdate(res *compiled.Resource, o *object.Object, ent *world.Entity, req *request, a *answer) bool {
	x := res.Keys
	if x.Keyed {
		v, _ := o.Get(x.KeyField)
		// An entity addressed by its id alone (byID: one kept by id
		// under any parent) is its key.
		if key := keyText(v); ent.ID != key && !strings.HasSuffix(ent.ID, "/"+key) && !strings.HasSuffix(ent.ID, ":"+key) {
			e.refuse(a, dialect.Problem{Kind: dialect.KeyInPath, Param: x.KeyField})
			return false
		}
	}
	e.applyRules(x.UpdateRules, o, req.now)
	e.compute(res, o, scopeOf(x, req.match), req)
	return true
}

// act answers POST {item}/{action}: a state-machine transition.
func (e *Engine) act(st *session.State, req *request, a *answer) {
	res, act := req.match.Value.Resource, req.match.Value.Action
	var buf [16]canon.FlatParam
	p, o, ent, ok := e.existing(st, req, a, buf[:0])
	if !ok {
		return
	}
	status := o.String("status")
	if len(act.From) > 0 && !act.From[status] {
		e.unexpectedState(a, res, ent.ID, status, act)
		return
	}
	ignored, ok := e.setParams(st, req, o, p, act.Params, a)
	if !ok {
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
	if !e.checkRead(st, req, a) {
		return
	}
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
	if answer := res.Deleted; answer != nil || res.DeleteBody != nil {
		if answer == nil {
			answer = res.DeleteBody
		}
		a.shape(answer, map[string]string{"id": shownID(res, ent.ID), "object": res.Name})
		return
	}
	a.body, a.entity = ent.Body(), ent
}
