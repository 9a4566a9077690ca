package engine

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/object"
)

// What a twin declares of its writes beside their parameters: rules (a
// create's, an update's, an action's: the first that holds applies),
// declines (a rule that fails on purpose) and computed fields.

// applyRules runs the first of rules that holds on o.
func (e *Engine) applyRules(rules []compiled.Rule, o *object.Object, now int64) {
	for i := range rules {
		if !holds(&rules[i], o) {
			continue
		}
		for _, a := range rules[i].Set {
			switch {
			case a.Expr == nil:
				o.Set(a.Field, e.scrubbed(a.Field, object.CloneValue(a.Value)))
			case a.Expr.Null:
				o.Set(a.Field, nil)
			case a.Expr.Now && a.RFC3339:
				o.Set(a.Field, time.Unix(now+a.Expr.Offset, 0).UTC().Format(time.RFC3339))
			case a.Expr.Now:
				o.Set(a.Field, json.Number(strconv.FormatInt(now+a.Expr.Offset, 10)))
			case a.Expr.Secret:
				o.Set(a.Field, e.dialect.Secret(o.String("id")))
			case a.Expr.Text:
				v, _ := o.Get(a.Expr.Field)
				o.Set(a.Field, asText(v))
			default:
				v, _ := o.Get(a.Expr.Field)
				o.Set(a.Field, e.scrubbed(a.Field, object.CloneValue(v)))
			}
		}
		return
	}
}

// asText is a value as "$text.field" writes it: a number or boolean as
// its JSON text in a string, a string as it is, anything else (null, an
// object) as null, since it has no text of its own.
func asText(v any) any {
	switch t := v.(type) {
	case string:
		return t
	case json.Number:
		return t.String()
	case bool:
		return strconv.FormatBool(t)
	}
	return nil
}

// holds reports whether every condition of r holds on o.
func holds(r *compiled.Rule, o *object.Object) bool {
	for _, c := range r.When {
		v, ok := o.Get(c.Field)
		if c.Any {
			if !ok || v == nil {
				return false
			}
			continue
		}
		if !ok || valueText(v) != c.Want {
			return false
		}
	}
	return true
}

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
		if holds(&rules[i], o) {
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

// compute sets the computed fields of o.
func (e *Engine) compute(res *compiled.Resource, o *object.Object, scope []string, req *request) {
	x := res.Keys
	for _, c := range x.Computed {
		if c.Parent != "" && parentValue(x, scope, c.Parent) == "" {
			continue // no parent named: the field keeps what it holds
		}
		v := fillComputed(c.Template, func(name string) string {
			if name == "base" {
				return req.baseURL()
			}
			for i, p := range x.Parents {
				if p == name {
					return scope[i]
				}
			}
			fv, _ := o.Get(name)
			if s := keyText(fv); s != "" {
				return s
			}
			return valueText(fv)
		})
		setPath(o, c.Path, v)
	}
}

func fillComputed(tmpl string, val func(string) string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(tmpl, '{')
		j := strings.IndexByte(tmpl, '}')
		if i < 0 || j < i {
			b.WriteString(tmpl)
			return b.String()
		}
		b.WriteString(tmpl[:i])
		b.WriteString(val(tmpl[i+1 : j]))
		tmpl = tmpl[j+1:]
	}
}

// setPath sets a dotted field, making the objects on its way, but not
// under a field that holds null: the entity has no such object (a
// charge's refunds list, not included), and a member of it would make
// one that is not there.
func setPath(o *object.Object, path []string, v any) {
	for _, f := range path[:len(path)-1] {
		cur, present := o.Get(f)
		if present && cur == nil {
			return
		}
		next, ok := cur.(*object.Object)
		if !ok {
			next = object.New(1)
			o.Set(f, next)
		}
		o = next
	}
	o.Set(path[len(path)-1], v)
}

// baseURL is where the client reached the provider's API: the scheme and
// host the request was sent to, and the /__s/{session} prefix when the
// path named the session, for computed fields ({base}) and Link headers.
// Without the prefix, a client that follows a link would leave its session.
func (req *request) baseURL() string { return req.here().Origin() }

// here is where the request was sent, as a dialect reads it.
func (req *request) here() dialect.Here {
	return dialect.Here{TLS: req.tls, Host: req.host, Prefix: req.prefix, Path: req.path, Query: req.query}
}

// valueText is a value's compact JSON text, for comparisons.
func valueText(v any) string {
	return string(object.AppendValue(nil, v))
}
