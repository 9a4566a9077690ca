package engine

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/wraithdev/wraith/twin/canon"
	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// paramError is a request parameter the provider would refuse, for the
// dialect to word.
type paramError struct{ p dialect.Problem }

// Error words p plainly; an answer words it in the twin's dialect.
func (p *paramError) Error() string { return dialect.Base{}.Word(p.p) }

func problem(kind dialect.Kind, param, value string) *paramError {
	return &paramError{dialect.Problem{Kind: kind, Param: param, Value: value}}
}

// setter sets a write's parameters onto an object the way the provider
// stores them: its dialect's value rules (d), the resource's nested
// defaults (fill, nil when it has none), and the session's scrubber
// (scrub, nil for none).
type setter struct {
	d     dialect.Dialect
	fill  *filler
	scrub func(field string, v any) any
}

// apply sets request parameters onto o: a parameter names a field; nested
// objects merge (an empty string clears a key, or the whole field, as the
// dialect clears it); strings are converted to the field's type when the
// field is a number or boolean, and scrubbed. A parameter that writes a
// nested object where the field holds none, or the elements of a nested
// list, is merged over the nested default for that place. Parameters that
// name no field are returned, sorted, so the answer can say they were
// ignored.
func (w *setter) apply(o *object.Object, params map[string]any, immutable map[string]bool, only []string) (ignored []string, err error) {
	keys := make([]string, 0, 16) // on the stack for the few parameters a request usually has
	for k := range params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		cur, ok, err := w.admit(o, k, immutable, only, &ignored)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		v, err := w.convert(k, cur, params[k])
		if err != nil {
			return nil, err
		}
		if w.scrub != nil {
			v = w.scrub(k, v)
		}
		o.Set(k, v)
	}
	return ignored, nil
}

// admit applies the rules a parameter meets before its value is read: one
// the engine ignores is skipped, one outside only or naming no field of o
// is skipped and added to ignored, and one naming an immutable field is
// refused. ok says the parameter applies to cur, o's field k.
func (w *setter) admit(o *object.Object, k string, immutable map[string]bool, only []string, ignored *[]string) (cur any, ok bool, err error) {
	if w.d.Reserved(k) {
		return nil, false, nil
	}
	if only != nil && !contains(only, k) {
		*ignored = append(*ignored, k)
		return nil, false, nil
	}
	if cur, ok = o.Get(k); !ok {
		*ignored = append(*ignored, k)
		return nil, false, nil
	}
	if immutable[k] {
		return nil, false, immutableParam(k)
	}
	return cur, true, nil
}

// immutableParam refuses a parameter that names a field no write may
// change.
func immutableParam(k string) error {
	return problem(dialect.Immutable, k, "")
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// convert returns the new value of a field whose current value is cur.
func (w *setter) convert(name string, cur, v any) (any, error) {
	if m, ok := v.(map[string]any); ok && cur == nil {
		if d := w.fill.defaultAt(dottedPath(name)); d != nil {
			return w.merge(name, d, m)
		}
	}
	if l, ok := v.([]any); ok && w.fill.has(dottedPath(name)+"[]") {
		if _, isList := cur.([]any); isList || cur == nil {
			return w.mergeEach(name, dottedPath(name)+"[]", l)
		}
	}
	switch c := cur.(type) {
	case *object.Object:
		switch t := v.(type) {
		case map[string]any:
			return w.merge(name, c, t)
		case string:
			if t == "" {
				return w.d.Cleared(name), nil
			}
			if o, ok := w.d.FromString(name, c, t); ok {
				return o, nil
			}
		case nil:
			return nil, nil
		case []any:
			if data, count, ok := w.d.ListField(c); ok {
				env := c.Clone()
				items, err := w.mergeEach(name, dottedPath(name)+"."+data+"[]", t)
				if err != nil {
					return nil, err
				}
				env.Set(data, items)
				if _, ok := env.Get(count); ok && count != "" {
					env.Set(count, json.Number(strconv.Itoa(len(t))))
				}
				return env, nil
			}
		}
		return nil, problem(dialect.ExpectedHash, name, "")
	case json.Number:
		return numberParam(name, c, v)
	case bool:
		switch t := v.(type) {
		case bool:
			return t, nil
		case string:
			b, err := strconv.ParseBool(t)
			if err != nil {
				return nil, problem(dialect.InvalidBoolean, name, t)
			}
			return b, nil
		}
		return nil, problem(dialect.ExpectedBoolean, name, "")
	default:
		return paramValue(v), nil
	}
}

// merge returns cur with the parameters of t merged in: a field t names
// takes its converted value, an empty string removes it, fields t adds
// follow cur's in sorted order. It builds the result in one pass over cur
// and one over t, so a merge of n keys costs O(n log n) for the sort and
// nothing quadratic. cur itself is left as it was.
func (w *setter) merge(name string, cur *object.Object, t map[string]any) (*object.Object, error) {
	merged := object.New(cur.Len() + len(t))
	vals := cur.Values()
	for i, k := range cur.Keys() {
		v, named := t[k]
		if !named {
			merged.Set(k, object.CloneValue(vals[i]))
			continue
		}
		if s, ok := v.(string); ok && s == "" {
			continue
		}
		nv, err := w.convert(name+"["+k+"]", vals[i], v)
		if err != nil {
			return nil, err
		}
		merged.Set(k, nv)
	}
	added := make([]string, 0, 8) // on the stack for the few keys a request usually adds
	for k := range t {
		if !cur.Has(k) {
			added = append(added, k)
		}
	}
	slices.Sort(added)
	for _, k := range added {
		v := t[k]
		if s, isString := v.(string); isString {
			if s != "" { // what convert makes of a string for a field cur lacks
				merged.Set(k, v) // v as it is: a string made an interface again would be a copy
			}
			continue
		}
		nv, err := w.convert(name+"["+k+"]", nil, v)
		if err != nil {
			return nil, err
		}
		merged.Set(k, nv)
	}
	return merged, nil
}

// mergeEach converts the elements of a list parameter, merging each
// object over the nested default at path when there is one.
func (w *setter) mergeEach(name, path string, l []any) ([]any, error) {
	out := make([]any, len(l))
	for i, el := range l {
		m, ok := el.(map[string]any)
		if !ok || !w.fill.has(path) {
			out[i] = paramValue(el)
			continue
		}
		merged, err := w.merge(name+"["+strconv.Itoa(i)+"]", w.fill.defaultAt(path), m)
		if err != nil {
			return nil, err
		}
		out[i] = merged
	}
	return out, nil
}

// paramValue converts a decoded parameter into package object's value set,
// with object keys sorted so the result is deterministic.
func paramValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		o := object.New(len(t))
		for _, k := range slices.Sorted(maps.Keys(t)) {
			o.Set(k, paramValue(t[k]))
		}
		return o
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = paramValue(e)
		}
		return out
	case float64:
		return json.Number(strconv.FormatFloat(t, 'f', -1, 64))
	default:
		return v
	}
}

// numberParam converts v, sent for a field whose current value is the
// number cur. A field that holds an integer takes only integers within
// int64, written in decimal (1.5 is an InvalidInteger); any
// other number field takes a JSON number that a 64-bit float holds. NaN,
// Inf, hex, 1_000 and the like, which strconv would read, are refused:
// stored, they would be served as text no JSON decoder reads. The result
// is always valid JSON text: an integer is rewritten in canonical form
// (+7 and 007 are 7).
func numberParam(name string, cur json.Number, v any) (json.Number, error) {
	var text string
	switch t := v.(type) {
	case json.Number:
		text = string(t)
	case string:
		text = t
	default:
		return "", problem(dialect.ExpectedNumber, name, "")
	}
	if isInteger(cur) {
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return "", problem(dialect.InvalidInteger, name, text)
		}
		return json.Number(strconv.FormatInt(n, 10)), nil
	}
	if !canon.Number(text) {
		return "", problem(dialect.InvalidFloat, name, text)
	}
	return json.Number(text), nil
}

// isInteger reports whether a number field holds an integer: its text has
// no fraction and no exponent.
func isInteger(n json.Number) bool {
	return !strings.ContainsAny(string(n), ".eE")
}
