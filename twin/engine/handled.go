package engine

import (
	"net/http"
	"slices"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/route"
	"github.com/wraithdev/wraith/twin/session"
)

// Routes a dialect answers itself (dialect.Handler), from the session's
// dialect.Attachment: a repository's contents, git data and commits, computed
// from the session's git repositories rather than from entities. The
// request is validated as every request is; the dialect then answers it,
// or declines and the engine serves it as it would without the dialect.

// handle offers req to the dialect's Handler; it reports whether the
// dialect answered (or validation refused the request). st is the
// session's exclusive state for a write, nil for a read under the shared
// lock, which may not make an attachment.
func (e *Engine) handle(r session.Reader, st *session.State, req *request, a *answer) bool {
	route := req.match.Value.Route[0]
	if !e.handler.Handles(route) {
		return false
	}
	var p map[string]any
	if req.query != "" || len(req.body) > 0 {
		var ok bool
		if p, ok = e.params(req, a); !ok {
			return true
		}
	}
	if !e.checkTree(r, req, a, p) {
		return true
	}
	c := e.call(r, req, route, p)
	var w *sessionWorld
	if st != nil {
		// A write grows the attachment as a create grows the entities:
		// past --max-memory it is refused the same way.
		if req.method != http.MethodGet && req.method != http.MethodHead && e.memoryFull(a) {
			return true
		}
		c.Attach = st.Attach
		w = e.lend(c, st, req)
	}
	ans, ok := e.handler.Handle(c)
	if w != nil {
		req.deliveries = append(req.deliveries, w.out...)
	}
	if !ok {
		return false
	}
	a.status, a.body, a.prov, a.ignored = ans.Status, ans.Body, ProvHandler, ans.Ignored
	if ans.Link != "" {
		a.link = []string{ans.Link}
	}
	if ans.Changed && st != nil {
		st.MarkAttachment()
	}
	return true
}

// answered tells the dialect's Handler of a write the engine answered
// itself with a 2xx, so that its attachment follows the session's
// entities and its event log the twin's declared events.
func (e *Engine) answered(st *session.State, req *request, a *answer, before []byte) {
	if a.status < 200 || a.status > 299 || a.replayed {
		return
	}
	route := req.match.Value.Route[0]
	var p map[string]any
	if req.query != "" || len(req.body) > 0 {
		var scratch answer // the write was answered: its parameters were read once already
		p, _ = e.params(req, &scratch)
	}
	c := e.call(st, req, route, p)
	c.Attach, c.Before, c.Event = st.Attach, before, req.match.Value.Event
	w := e.lend(c, st, req)
	if body := e.handler.Answered(c, a.status, a.body); body != nil {
		a.body = body
		if r, ok := e.handler.(dialect.Restater); ok {
			if status := r.Restate(body); status != 0 {
				a.status = status
			}
		}
	}
	if t, ok := e.handler.(dialect.Taker); ok && len(a.ignored) > 0 {
		a.ignored = slices.DeleteFunc(a.ignored, func(p string) bool { return t.Takes(route, p) })
	}
	req.deliveries = append(req.deliveries, w.out...)
	st.MarkAttachment()
}

// before is the body of the entity a write to an item is about to
// change, for Answered's Call.Before; nil for a create and for what the
// session does not hold.
func (e *Engine) before(st *session.State, req *request) []byte {
	res := req.match.Value.Resource
	switch req.match.Value.Kind {
	case compiled.KindUpdate, compiled.KindAction, compiled.KindDelete, compiled.KindMember:
	default:
		return nil
	}
	if res == nil {
		return nil
	}
	return e.entityBody(st, res.Name, req.match)
}

// lend gives c, a write's call, the session's world and clock.
func (e *Engine) lend(c *dialect.Call, st *session.State, req *request) *sessionWorld {
	w := e.world(st, req, req.now)
	c.World, c.Clock = w, clock{w}
	return w
}

func (e *Engine) call(r session.Reader, req *request, route string, p map[string]any) *dialect.Call {
	m := req.match
	return &dialect.Call{
		Ctx:        req.ctx,
		Method:     req.method,
		Route:      route,
		Path:       m.Param,
		Params:     p,
		Body:       req.body,
		Header:     req.header,
		Attachment: r.Attachment(),
		Entity:     func(resource string) []byte { return e.entityBody(r, resource, m) },
		Each: func(resource string, fn func([]byte) bool) {
			for _, ent := range r.Visible(resource) {
				if !fn(ent.Body()) {
					return
				}
			}
		},
		Now:  req.now,
		Here: req.here(),
	}
}

// entityBody is dialect.Call's Entity: the session's entity of resource
// at the address the route's parameters give, nil for none.
func (e *Engine) entityBody(r session.Reader, resource string, m *route.Match[*compiled.Endpoint]) []byte {
	res := e.twin.Resource(resource)
	if res == nil {
		return nil
	}
	ent := r.Get(addressBy(res, m.Param))
	if ent == nil || ent.Deleted || ent.Resource != resource {
		return nil
	}
	return ent.Body()
}
