package engine

import (
	"net/http"
	"strconv"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/world"
)

// plain answers a route that is not a resource's: recorded, else
// template, which under the not_found policy may not contradict the
// session (honest.go).
func (e *Engine) plain(req *request, a *answer) {
	if rec := e.recordedFor(req); rec != nil {
		a.fromRecorded(rec)
		return
	}
	if e.honest(req.st, req, a) {
		return
	}
	if t := req.match.Value.Template; t != nil {
		a.status, a.header, a.body, a.prov = t.Status, t.Header, t.Body, ProvTemplate
		return
	}
	a.missf(apierr.RouteMiss, "no recorded answer matches %s %s and the route has no recorded response shape to synthesize from", req.method, req.path)
}

// recordedFor returns the recorded answer for exactly this request.
func (e *Engine) recordedFor(req *request) *compiled.Recorded {
	return e.twin.Recorded(req.method, req.path, req.query, req.ctype, req.body)
}

// retrieve answers GET {item}: the session's change (handler), its fixture
// entity (fixture), a recorded answer or observed entity (recorded), else
// the unknown-entity policy (template or miss).
func (e *Engine) retrieve(st session.Reader, req *request, a *answer) {
	res := req.match.Value.Resource
	id := address(res, req.match)
	ent := scoped(res, st.Get(id), req.match)
	if ent != nil && ent.Resource == res.Name {
		switch {
		case ent.Deleted:
			e.afterDelete(res, id, true, a)
			return
		case ent.Provenance == world.Handler:
			a.status, a.body, a.prov, a.entity = http.StatusOK, ent.Body(), ProvHandler, ent
			return
		case ent.Provenance == world.Fixture:
			a.status, a.body, a.prov, a.entity = http.StatusOK, ent.Body(), ProvFixture, ent
			return
		}
	}
	if rec := e.recordedFor(req); rec != nil {
		a.fromRecorded(rec)
		return
	}
	if ent != nil && ent.Resource == res.Name {
		a.status, a.body, a.prov, a.entity = http.StatusOK, ent.Body(), ProvRecorded, ent
		a.exchange = []string{ent.Exchange()}
		return
	}
	e.unknown(req, res, id, a)
}

// unknown answers a read of an entity the session's world does not have.
func (e *Engine) unknown(req *request, res *compiled.Resource, id string, a *answer) {
	if e.opts.UnknownEntity == NotFound {
		e.notFound(req.match.Value, res, id, a)
		return
	}
	o := template(res).Clone()
	setKey(o, res, req, e.scrubbed)
	e.compute(res, o, scopeOf(res.Keys, req.match), req) // its lists' urls name it, as a written one's do
	a.status, a.body, a.prov = http.StatusOK, o.AppendJSON(nil), ProvTemplate
}

// notFound answers with the provider's not-found shape, or a structured
// 501 entity-miss when the twin does not know it.
func (e *Engine) notFound(ep *compiled.Endpoint, res *compiled.Resource, id string, a *answer) {
	a.prov = ProvMiss
	if res.NotFound != nil {
		a.shape(res.NotFound, map[string]string{"id": shownID(res, id), "object": res.Name})
		return
	}
	if ep.NotFound != nil {
		a.status, a.header, a.body = ep.NotFound.Status, ep.NotFound.Header, ep.NotFound.Body
		return
	}
	a.missf(apierr.EntityMiss, "%s %q was never observed, seeded or created in this session, and the twin has no not-found shape for it", res.Name, id)
}

// afterDelete answers a request for a deleted entity as the provider does:
// reads of a tombstoned resource get the deleted object, everything else
// the provider's not-found shape.
func (e *Engine) afterDelete(res *compiled.Resource, id string, read bool, a *answer) {
	a.prov = ProvHandler
	vals := map[string]string{"id": shownID(res, id), "object": res.Name}
	switch {
	case read && res.Deleted != nil:
		a.shape(res.Deleted, vals)
	case res.NotFound != nil:
		a.shape(res.NotFound, vals)
	default:
		a.fail(apierr.New(apierr.EntityDeleted, res.Name+" "+strconv.Quote(id)+" was deleted in this session"))
	}
}

// current returns the object a write applies to, or answers for a missing
// one. Under the synthesize policy an unknown entity is materialized from
// the resource's shape.
func (e *Engine) current(st *session.State, req *request, a *answer) (*object.Object, *world.Entity, bool) {
	res := req.match.Value.Resource
	id := address(res, req.match)
	ent := scoped(res, st.Get(id), req.match)
	if ent != nil && ent.Resource == res.Name {
		if ent.Deleted {
			e.afterDelete(res, id, false, a)
			return nil, nil, false
		}
		o, err := object.Parse(ent.Body())
		if err != nil {
			a.fail(apierr.New(apierr.Internal, "stored entity is not valid JSON: "+err.Error()))
			a.prov = ProvHandler
			return nil, nil, false
		}
		if ent.Provenance == world.Recorded {
			e.scrubObject(o) // recordings are served as recorded; what is saved is scrubbed
		}
		return o, ent, true
	}
	if e.opts.UnknownEntity == NotFound {
		e.notFound(req.match.Value, res, id, a)
		return nil, nil, false
	}
	o := template(res).Clone()
	setKey(o, res, req, e.scrubbed)
	made := &world.Entity{ID: id, Resource: res.Name, Created: compiled.CreatedOf(o), Seq: st.NextSeq()}
	made.SetScope(joinSlash(scopeOf(res.Keys, req.match)))
	return o, made, true
}

// template is the object a synthesized answer for r starts from: the first
// object of this type the recordings returned, else the skeleton.
func template(r *compiled.Resource) *object.Object {
	if r.Shape != nil {
		return r.Shape
	}
	return r.Skeleton
}
