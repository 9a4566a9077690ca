package engine

import (
	"slices"

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
	p, ok := e.writeParams(st, req, a, buf[:0])
	if !ok {
		return
	}
	// The twin's own required fields (twin.toml required) are refused
	// when empty too (a title ""), under strict validation, or
	// where no request schema is checked; warn and off serve them.
	if e.opts.Validate == Strict || req.match.Value.Params == nil {
		for _, f := range x.Required {
			if !p.has(f) {
				e.validation(a, res, f, "missing_field")
				return
			}
		}
	}
	o := e.startCreate(res)
	defer e.endCreate(res, o) // what save keeps is bytes: o is done with when create returns
	scope, now := scopeOf(x, req.match), timeValue(x, req.now)
	e.fillIDs(st, res, scope, o)
	for _, f := range res.Timestamps {
		o.Set(f, now)
	}
	ignored, ok := e.setParams(st, req, o, p, nil, a)
	if !ok {
		return
	}
	e.applyRules(res.Create, o, req.now)
	key := e.finishKey(res, o)
	if key == "" {
		e.validation(a, res, x.KeyField, "missing_field")
		return
	}
	addr := addressOf(res, scope, key)
	if x.Keyed || p.has(x.KeyField) { // a key the client chose may be taken
		if cur := st.Get(addr); cur != nil && !cur.Deleted && cur.Resource == res.Name {
			e.validation(a, res, x.KeyField, "already_exists")
			return
		}
	}
	e.compute(res, o, scope, req)
	if e.completer != nil {
		names := p.names() // a copy: a method value p.sent would take buf to the heap
		e.completer.Complete(dialect.New{Route: req.match.Value.Route[0], Resource: res.Name, Object: o, Here: req.here(),
			Sent: func(name string) bool { return slices.Contains(names, name) }})
	}
	ent := &world.Entity{ID: addr, Resource: res.Name, Created: req.now, Seq: st.NextSeq()}
	ent.SetScope(joinSlash(scope))
	if !e.save(st, req, o, ent, a) {
		return
	}
	a.status, a.ignored = x.CreateStatus, ignored
	if x.CreateBody != nil {
		a.body = stub(x.CreateBody, o, a.body)
	}
}

// startCreate returns the object a create of r starts from: a copy of the
// skeleton. The create path replaces top-level fields and never changes a
// nested value in place (a parameter merges into a new object, a rule sets
// a copy), unless an expansion or a computed field sets a field inside a
// nested object; only then does it need a deep copy (Resource.Deep).
// Sharing the skeleton's nested values saves copying them, and encoding
// them again in save.
//
// The top-level copy reuses one that an earlier create handed back with
// endCreate: a create keeps its entity as bytes (a patch and an answer),
// never the object, so the object is garbage as soon as the create is
// done, and its room for values can serve the next one.
func (e *Engine) startCreate(r *compiled.Resource) *object.Object {
	if r.Deep {
		return r.Skeleton.Clone()
	}
	o, _ := e.spent[r.Index].Get().(*object.Object)
	return r.Skeleton.CloneTopInto(o)
}

// endCreate takes back o, which startCreate returned, once nothing refers
// to it or will: the create saved its bytes or was refused.
func (e *Engine) endCreate(r *compiled.Resource, o *object.Object) {
	if r.Deep {
		return
	}
	o.Recycle()
	e.spent[r.Index].Put(o)
}
