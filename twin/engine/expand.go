package engine

import (
	"bytes"
	"strings"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/world"
)

// Answer-time expansion (dialect.Expander): a request may ask for the ids
// in its answer to be replaced by the entities they name. The dialect
// reads what is asked and walks the answer; the engine gives it the
// twin's expandable fields and the session's entities, as a read finds
// them. Only the answer changes: what the session keeps holds the ids,
// so a later read without expansion answers them.

// expansion is what a request asks to expand, read before it runs.
type expansion struct {
	q     dialect.ExpandQuery
	paths []string
}

// expandableFields are each resource's declared expandable fields
// (format.Nested.Expandable), by resource name; nil when none declares any.
func expandableFields(t *format.Twin) map[string]map[string]string {
	var out map[string]map[string]string
	for i := range t.Manifest.Resources {
		r := &t.Manifest.Resources[i]
		if len(r.Expandable) == 0 {
			continue
		}
		if out == nil {
			out = map[string]map[string]string{}
		}
		out[r.Name] = r.Expandable
	}
	return out
}

// expansions reads what req asks to expand in its answer, before anything
// runs, so that a path the provider refuses leaves the session as it was:
// then it answers the refusal and reports false. nil means nothing to
// expand, which costs a request that does not name expand nothing but a
// search of its raw query and body.
func (e *Engine) expansions(req *request, a *answer) (*expansion, bool) {
	if e.expander == nil || !mentionsExpand(req) {
		return nil, true
	}
	ep := req.match.Value
	if ep.Resource == nil {
		return nil, true
	}
	switch ep.Kind {
	case compiled.KindRetrieve, compiled.KindList, compiled.KindCreate, compiled.KindUpdate, compiled.KindAction:
		// A DELETE that keeps its entity is an action (Stripe's canceled
		// subscription); a delete's tombstone holds nothing to expand.
	default:
		return nil, true
	}
	var scratch answer
	p, ok := e.params(req, &scratch)
	if !ok || len(p) == 0 {
		return nil, true // an unreadable request is refused where it is read
	}
	x := &expansion{q: dialect.ExpandQuery{
		Params:   p,
		Resource: ep.Resource.Name,
		Page:     ep.Kind == compiled.KindList,
		Search:   ep.Search,
		Fields:   func(typ string) map[string]string { return e.expandable[typ] },
	}}
	paths, refused := e.expander.Expansions(x.q)
	if refused != nil {
		e.invalid(a, refused.Param, refused.Message)
		a.refused = true // nothing ran: an idempotency key stays free
		return nil, false
	}
	if len(paths) == 0 {
		return nil, true
	}
	x.paths = paths
	return x, true
}

// mentionsExpand reports whether the request's raw query or body names
// expand at all.
func mentionsExpand(req *request) bool {
	return strings.Contains(req.query, "expand") || bytes.Contains(req.body, []byte("expand"))
}

// expandAnswer expands a's body as x asks, from st's entities. Only a 2xx
// JSON object answer the twin built is expanded: a recorded answer that
// matched the request exactly was recorded with its expansions, and keeps
// its recorded headers (a recorded Content-Length among them).
func (e *Engine) expandAnswer(st session.Reader, x *expansion, a *answer) {
	if x == nil || a.status/100 != 2 || a.wraith || a.header != nil || len(a.body) == 0 || a.body[0] != '{' {
		return
	}
	o, err := object.Parse(a.body)
	if err != nil {
		return
	}
	if e.expander.Expand(x.q, x.paths, o, &entities{e: e, st: st}) {
		a.body = o.AppendJSON(nil)
	}
}

// entities are st's entities as an expansion reads them. A page whose
// objects name the same entity (ten charges of one customer) reads it
// once: found keeps what Find parsed, and each caller gets a copy.
type entities struct {
	e     *Engine
	st    session.Reader
	found map[string]*object.Object
}

// Find looks an entity up as a read finds it: made in the session,
// seeded, or observed in the recordings (scrubbed, as what a write takes
// up is); a deleted one is its tombstone, as a read of it answers (Stripe
// expands a deleted customer so); under the synthesize policy an id the
// session lacks is the declared type's template with that id, as a read
// of it answers.
func (x *entities) Find(typ, id string) *object.Object {
	if id == "" {
		return nil
	}
	o, ok := x.found[id]
	if !ok {
		o = x.find(typ, id)
		if x.found == nil {
			x.found = map[string]*object.Object{}
		}
		x.found[id] = o
	}
	if o == nil {
		return nil
	}
	return o.Clone()
}

func (x *entities) find(typ, id string) *object.Object {
	e := x.e
	ent := x.st.Get(id)
	if ent != nil && ent.Deleted {
		return e.tombstone(ent.Resource, id)
	}
	if ent != nil {
		return e.answerOf(ent)
	}
	res := e.twin.Resource(typ)
	if res == nil || e.opts.UnknownEntity == NotFound {
		return nil
	}
	o := template(res).Clone()
	o.Set("id", e.scrubbed("id", id))
	return o
}

// Referring lists the entities of typ whose field holds id, or an
// expanded object with that id, as a list of typ finds them.
func (x *entities) Referring(typ, field, id string, limit int) ([]*object.Object, bool) {
	if x.e.twin.Resource(typ) == nil || id == "" {
		return nil, false
	}
	var out []*object.Object
	for _, ent := range x.st.Visible(typ) {
		o := x.e.answerOf(ent)
		if o == nil {
			continue
		}
		v, _ := o.Get(field)
		if ref, ok := v.(*object.Object); ok {
			v = ref.String("id")
		}
		if v != id {
			continue
		}
		if len(out) == limit {
			return out, true
		}
		out = append(out, o)
	}
	return out, false
}

// Collection is typ's collection path.
func (x *entities) Collection(typ string) string {
	if res := x.e.twin.Resource(typ); res != nil {
		return res.Collection
	}
	return ""
}

// answerOf is ent as a read answers it: a copy, a recorded one scrubbed.
func (e *Engine) answerOf(ent *world.Entity) *object.Object {
	o, err := object.Parse(ent.Body())
	if err != nil {
		return nil
	}
	if ent.Provenance == world.Recorded {
		e.scrubObject(o)
	}
	return o
}

// tombstone is the deleted entity of resource with id as a read of it
// answers, or nil when the resource answers a read after delete with a
// refusal.
func (e *Engine) tombstone(resource, id string) *object.Object {
	res := e.twin.Resource(resource)
	if res == nil || res.Deleted == nil {
		return nil
	}
	o, err := object.Parse([]byte(format.Fill(res.Deleted.Body, map[string]string{"id": shownID(res, id), "object": res.Name})))
	if err != nil {
		return nil
	}
	return o
}
