package engine

import (
	"strings"

	"github.com/wraithdev/wraith/twin/canon"
	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/reqschema"
	"github.com/wraithdev/wraith/twin/session"
)

// Request validation (SPEC §13): every request whose route has a request
// schema (compiled.Endpoint.Params, from the twin's requests.json) is
// checked before its handler applies it. Under Strict a problem is the
// provider's refusal in the dialect's words; under Warn the request is
// served and the answer says what is wrong (X-Wraith-Invalid); Off checks
// nothing. A write's values are then stored in the schema's types (see
// setter.convert).

// checkWrite checks a write's parameters, as writeParams decoded them
// (flat, or else tree), and returns the tree to use: the checker's typed
// copy, or tree itself. It reports false when it answered a refusal. The
// two are passed apart, not as a *reqParams: what the checker keeps of a
// tree would otherwise take the flat parameters' buffer, on the caller's
// stack, to the heap.
func (e *Engine) checkWrite(st session.Reader, req *request, a *answer, flat []canon.FlatParam, tree map[string]any) (map[string]any, bool) {
	s := req.match.Value.Params
	if s == nil || e.opts.Validate == Off || e.unread(req) {
		return tree, true
	}
	refs := e.refsFor(st)
	if tree == nil {
		return nil, e.checked(req, a, reqschema.CheckFlat(s, flat, refs))
	}
	typed, prob := reqschema.Check(s, tree, e.formSent(req), refs)
	if prob == nil {
		tree = typed
	}
	return tree, e.checked(req, a, prob)
}

// checkTree checks the parameters of a read or a template route, which
// are used as they were sent (a list's limit stays the text the dialect
// pages by).
func (e *Engine) checkTree(st session.Reader, req *request, a *answer, p map[string]any) bool {
	s := req.match.Value.Params
	if s == nil || e.opts.Validate == Off || e.unread(req) {
		return true
	}
	return e.checked(req, a, reqschema.Validate(s, p, e.formSent(req), e.refsFor(st)))
}

// checkRead checks a read that the handler does not decode parameters
// for (an item read, a template): only when it sends some, or its schema
// requires some, so that the common GET pays nothing.
func (e *Engine) checkRead(st session.Reader, req *request, a *answer) bool {
	s := req.match.Value.Params
	if s == nil || e.opts.Validate == Off || (req.query == "" && len(req.body) == 0 && len(s.Required) == 0) {
		return true
	}
	p, ok := e.params(req, a)
	return ok && e.checkTree(st, req, a, p)
}

// checked answers prob as the mode says; it reports whether the request
// goes on.
func (e *Engine) checked(req *request, a *answer, prob *dialect.Problem) bool {
	if prob == nil {
		return true
	}
	if e.opts.Validate == Warn {
		a.invalid = e.dialect.Word(*prob)
		return true
	}
	class := ""
	if res := req.match.Value.Resource; res != nil {
		class = res.Keys.Class
	}
	e.refuseParam(a, class, *prob)
	a.refused = true
	return false
}

// unread reports whether the request's body is one its parameters are not
// read from: a multipart upload (a file), unless the dialect
// reads those itself. What is not read cannot be checked: its required
// file would be missing.
func (e *Engine) unread(req *request) bool {
	if e.decoder != nil || len(req.body) == 0 {
		return false
	}
	mt, _, _ := strings.Cut(req.ctype, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "multipart/form-data")
}

// formSent reports whether the request's parameters came as text (a
// form or the query) rather than as a JSON body. It looks at the body,
// not its Content-Type: a dialect may read JSON sent as a form (some
// providers do), and whatever read it, a JSON body's values are typed.
func (e *Engine) formSent(req *request) bool {
	for _, c := range req.body {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return false
		}
		return true
	}
	return true
}

// refsFor is what references are checked in: the session, under the
// not_found policy; under synthesize an unknown id is synthesized when it
// is expanded, so nothing is checked (nil).
func (e *Engine) refsFor(st session.Reader) reqschema.Lookup {
	if e.opts.UnknownEntity != NotFound {
		return nil
	}
	return &sessionRefs{e: e, st: st}
}

// sessionRefs finds the entities a request's references name in its
// session.
type sessionRefs struct {
	e  *Engine
	st session.Reader
}

// Exists reports whether the session holds resource id. A resource the
// twin does not model cannot be checked, and passes: a recorded twin's
// request schemas are the provider's whole description.
func (r *sessionRefs) Exists(resource, id string) bool {
	res := r.e.twin.Resource(resource)
	if res == nil {
		return true
	}
	ent := r.st.Get(id)
	return ent != nil && !ent.Deleted && ent.Resource == res.Name
}
