package engine

import (
	"strconv"

	"github.com/wraithdev/wraith/twin/engine/compiled"
)

// envelop wraps an entity's answer in its resource's item envelope
// ({"data": {...}}, format.Keys.ItemEnvelope), as the provider answers
// every entity. It runs on every answer the session makes, before the
// journal keeps it: an idempotent replay, kept bare, is wrapped as its
// first answer was. A list answers its page in an envelope of its own,
// and an error, a template and an empty body are answered as they are.
func envelop(req *request, a *answer) {
	if req.match == nil {
		return
	}
	v := req.match.Value
	if v == nil || v.Resource == nil || v.Resource.Keys.ItemEnvelope == "" {
		return
	}
	switch v.Kind {
	case compiled.KindCreate:
		// A create_body that names the envelope is the whole answer. The
		// route says so, not the answer, so that an idempotent replay of
		// it, kept bare, is answered alike. (No dialect answers a create
		// of an enveloped resource itself, which would then go unwrapped.)
		if _, whole := v.Resource.Keys.CreateBody[v.Resource.Keys.ItemEnvelope]; whole {
			return
		}
	case compiled.KindRetrieve, compiled.KindUpdate, compiled.KindAction, compiled.KindDelete:
	default:
		return
	}
	if a.prov != ProvHandler || a.wraith || a.status/100 != 2 || len(a.body) == 0 || a.body[0] != '{' {
		return
	}
	env := v.Resource.Keys.ItemEnvelope // a plain name (format checks it): quoted as JSON is
	out := make([]byte, 0, len(a.body)+len(env)+5)
	out = append(strconv.AppendQuote(append(out, '{'), env), ':')
	out = append(append(out, a.body...), '}')
	a.body = out
}
