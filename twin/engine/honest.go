package engine

import (
	"net/http"
	"strings"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/route"
	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/world"
)

// honest answers a declared route's request under the not_found policy
// (SPEC §13, honest templates) where its template would contradict the
// session, and reports whether it did. A template is a sample: it would
// say that an entity the session lacks exists, that a collection the
// twin cannot model holds entries, or that a write was carried out. What
// the route names and lists was decided when the twin was compiled
// (compiled.Honest); here it is looked up in the session:
//
//   - an entity the path names that the session lacks, or one of a kind
//     no resource models, is the provider's not-found;
//   - a write is a 501 unmodelled-write miss, unless the route is safe;
//   - a bodiless 204 check is no (404), unless it asks whether one of the
//     entity's actions was done and the entity is as that action left it
//     (a merged pull request);
//   - a list is the session's contents, in the dialect's list shape or
//     the route's own envelope: empty, unless it lists a member field of
//     the entity its path names (an issue's labels), whose entries it is.
//
// What is left, a singleton read (GET /v1/balance, GET /rate_limit, or
// one under an entity the session has), keeps its template.
func (e *Engine) honest(st session.Reader, req *request, a *answer) bool {
	h := req.match.Value.Honest
	if h == nil || e.opts.UnknownEntity != NotFound {
		return false
	}
	var ent *world.Entity // the innermost entity the path names
	for _, n := range h.Names {
		id := addressBy(n.Resource, func(p string) string { return req.match.Param(n.Params[p]) })
		if ent = st.Get(id); !present(n, ent, req.match) {
			e.notFound(req.match.Value, n.Resource, id, a)
			return true
		}
	}
	switch {
	case h.Write && !h.Safe:
		a.missf(apierr.UnmodelledWrite, "%s %s: the twin keeps no state this write changes, so its template would answer for a change nobody made; the route can be declared safe = true in twin.toml when its template is true whatever is sent", req.method, req.match.Value.Path())
	case h.Unmodelled != "":
		e.noSuch(req, h.Object, req.match.Param(h.Unmodelled), a)
	case h.Check && done(ent, h.Done):
		return false // the entity is as its action leaves it: the template's yes is true
	case h.Check:
		e.noSuch(req, lastStatic(req.match.Template), "", a)
	case h.List == compiled.ListEnvelope:
		a.status, a.body, a.prov = http.StatusOK, h.Empty, ProvHandler
	case h.List != compiled.ListNone:
		e.listOf(req, h.List == compiled.ListArray, members(ent, h.Member), a)
	default:
		return false
	}
	return true
}

// present reports whether ent is a live entity of n's resource, under
// the parents the path names.
func present(n compiled.Named, ent *world.Entity, m *route.Match[*compiled.Endpoint]) bool {
	if ent == nil || ent.Deleted || ent.Resource != n.Resource.Name {
		return false
	}
	x := n.Resource.Keys
	want := make([]string, len(x.Parents))
	for i, p := range x.Parents {
		if q, ok := n.Params[p]; ok {
			want[i] = m.Param(q)
		}
	}
	return inScope(ent.Scope(), want)
}

// done reports whether ent is as the action whose conditions r holds
// left it; false for no action, or no entity.
func done(ent *world.Entity, r *compiled.Rule) bool {
	if ent == nil || r == nil {
		return false
	}
	o, err := object.Parse(ent.Body())
	return err == nil && holds(r, o)
}

// addressBy is address (keys.go) for a resource named by a route that is
// not its own: param gives the value of the resource's item parameter.
func addressBy(r *compiled.Resource, param func(string) string) string {
	x := r.Keys
	if !x.Keyed {
		return param("id")
	}
	if byID(x) {
		return param(x.KeyParam)
	}
	var b strings.Builder
	b.WriteString(r.Name)
	b.WriteByte(':')
	for _, p := range x.AddrParams {
		b.WriteString(param(p))
		b.WriteByte('/')
	}
	b.WriteString(x.KeyPrefix)
	b.WriteString(param(x.KeyParam))
	return b.String()
}

// noSuch answers the provider's not-found for an entity of a kind no
// resource models, which therefore no session holds.
func (e *Engine) noSuch(req *request, object, id string, a *answer) {
	a.prov = ProvMiss
	ep := req.match.Value
	switch {
	case e.twin.Errors.NotFound != nil:
		a.shape(e.twin.Errors.NotFound, map[string]string{"id": id, "object": object})
	case ep.NotFound != nil:
		a.status, a.header, a.body = ep.NotFound.Status, ep.NotFound.Header, ep.NotFound.Body
	default:
		a.missf(apierr.EntityMiss, "%s %q: the twin models no %s, so no session holds one, and it has no not-found shape ([errors.not_found] in twin.toml)", object, id, object)
	}
}

// members are the entries of ent's member field, as entities a list
// pages; nil for no field.
func members(ent *world.Entity, field string) []*world.Entity {
	if ent == nil || field == "" {
		return nil
	}
	o, err := object.Parse(ent.Body())
	if err != nil {
		return nil
	}
	v, _ := o.Get(field)
	arr, _ := v.([]any)
	out := make([]*world.Entity, len(arr))
	for i, m := range arr {
		out[i] = &world.Entity{}
		out[i].SetBody(object.AppendValue(nil, m))
	}
	return out
}

// listOf answers a list of a collection the twin does not model, or
// keeps in a field of the entity the path names: the session holds no
// entries of the former, so its page is empty; in the dialect's list
// shape (or a bare array), paged as the dialect pages.
func (e *Engine) listOf(req *request, array bool, items []*world.Entity, a *answer) {
	p, ok := e.params(req, a)
	if !ok {
		return
	}
	page, refused := e.dialect.List(dialect.ListQuery{
		Params: p,
		Items:  items,
		Object: lastStatic(req.match.Template),
		Array:  array,
		URL:    req.path,
		Here:   req.here(),
	})
	if refused != nil {
		e.invalid(a, refused.Param, refused.Message)
		return
	}
	a.status, a.prov, a.body = http.StatusOK, ProvHandler, page.Body
	if page.Link != "" {
		a.link = []string{page.Link}
	}
}

// lastStatic is a route template's last segment that is no parameter.
func lastStatic(template string) string {
	segs := strings.Split(template, "/")
	for i := len(segs) - 1; i >= 0; i-- {
		if s := segs[i]; s != "" && !strings.HasPrefix(s, "{") {
			return s
		}
	}
	return ""
}
