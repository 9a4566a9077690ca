package engine

import (
	"bytes"

	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/object"
)

// A rule with fail is a twin rule that fails on purpose, as a provider
// declines a card: its set applies and the entity is saved (the payment
// intent is left requires_payment_method with last_payment_error), and
// the answer is the named [errors.*] shape instead of the entity, with
// the updated entity in place of the string "{entity}". Declines are
// handler answers, not faults: they follow from the request alone.

// entityMark is what a fail body holds where the updated entity goes.
var entityMark = []byte(`"{entity}"`)

// failing returns the rule of rules that will apply to o when it fails,
// or nil: it is asked before the rules change o.
func failing(rules []compiled.Rule, o *object.Object) *compiled.Rule {
	for i := range rules {
		if rules[i].Holds(o) {
			if rules[i].Fail != "" {
				return &rules[i]
			}
			return nil
		}
	}
	return nil
}

// fail replaces a saved entity's answer (a.body) by the rule's error.
func (e *Engine) fail(a *answer, r *compiled.Rule, res *compiled.Resource, id string) {
	if r == nil {
		return
	}
	s := r.Failure
	if s == nil {
		return // the loader has rejected such a twin
	}
	vals := map[string]string{"id": id, "object": res.Name}
	for k, v := range r.FailWith {
		vals[k] = v
	}
	body := []byte(format.Fill(s.Body, vals))
	if i := bytes.Index(body, entityMark); i >= 0 {
		out := make([]byte, 0, len(body)+len(a.body))
		out = append(append(append(out, body[:i]...), a.body...), body[i+len(entityMark):]...)
		body = out
	}
	a.status, a.body = s.Status, body
}
