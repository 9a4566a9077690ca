package engine

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/wraithdev/wraith/twin/canon"
	"github.com/wraithdev/wraith/twin/object"
)

// paramError is a request parameter the provider would refuse.
type paramError struct {
	param   string
	message string
}

func (p *paramError) Error() string { return p.message }

// ignoredParams are accepted on any request and never stored: they shape
// the answer or the transport, not the object.
var ignoredParams = map[string]bool{"expand": true}

// applyParams sets request parameters onto o the way the provider stores
// them: a parameter names a field; nested objects merge (an empty string
// clears a metadata key, or the whole field); strings are converted to the
// field's type when the field is a number or boolean, and scrubbed with
// scrub when it is not nil. Parameters that name no field are returned,
// sorted, so the answer can say they were ignored.
func applyParams(o *object.Object, params map[string]any, immutable map[string]bool, only []string, scrub func(field string, v any) any) (ignored []string, err error) {
	return applyParamsFilled(o, params, immutable, only, scrub, nil)
}

// applyParamsFilled is applyParams with the resource's nested defaults
// (nested.go): a parameter that writes a nested object where the field
// holds none, or the elements of a nested list, is merged over the
// default for that place.
func applyParamsFilled(o *object.Object, params map[string]any, immutable map[string]bool, only []string, scrub func(field string, v any) any, fill *filler) (ignored []string, err error) {
	keys := make([]string, 0, 16) // on the stack for the few parameters a request usually has
	for k := range params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		cur, ok, err := admit(o, k, immutable, only, &ignored)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		v, err := convertParam(k, cur, params[k], fill)
		if err != nil {
			return nil, err
		}
		if scrub != nil {
			v = scrub(k, v)
		}
		o.Set(k, v)
	}
	return ignored, nil
}

// admit applies the rules a parameter meets before its value is read: one
// the engine ignores is skipped, one outside only or naming no field of o
// is skipped and added to ignored, and one naming an immutable field is
// refused. ok says the parameter applies to cur, o's field k.
func admit(o *object.Object, k string, immutable map[string]bool, only []string, ignored *[]string) (cur any, ok bool, err error) {
	if ignoredParams[k] {
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
	return &paramError{param: k, message: fmt.Sprintf("You cannot change `%s`.", k)}
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// convertParam returns the new value of a field whose current value is cur.
func convertParam(name string, cur, v any, fill *filler) (any, error) {
	if m, ok := v.(map[string]any); ok && cur == nil {
		if d := fill.defaultAt(dottedPath(name)); d != nil {
			return merge(name, d, m, fill)
		}
	}
	if l, ok := v.([]any); ok && fill.has(dottedPath(name)+"[]") {
		if _, isList := cur.([]any); isList || cur == nil {
			return mergeEach(name, dottedPath(name)+"[]", l, fill)
		}
	}
	switch c := cur.(type) {
	case *object.Object:
		switch t := v.(type) {
		case map[string]any:
			return merge(name, c, t, fill)
		case string:
			if t == "" {
				if name == "metadata" {
					return object.New(0), nil
				}
				return nil, nil
			}
			// GitHub names a pull request's head and base branch objects
			// by their ref: a string sets it.
			if _, ok := c.Get("ref"); ok {
				o := c.Clone()
				o.Set("ref", t)
				return o, nil
			}
		case nil:
			return nil, nil
		case []any:
			// A list parameter into a list envelope (Stripe's items[0][price]
			// into items.data) replaces the envelope's data.
			if c.String("object") == "list" {
				env := c.Clone()
				data, err := mergeEach(name, dottedPath(name)+".data[]", t, fill)
				if err != nil {
					return nil, err
				}
				env.Set("data", data)
				if _, ok := env.Get("total_count"); ok {
					env.Set("total_count", json.Number(strconv.Itoa(len(t))))
				}
				return env, nil
			}
		}
		return nil, &paramError{param: name, message: fmt.Sprintf("Invalid object for %s: expected a hash of fields.", name)}
	case json.Number:
		return numberParam(name, c, v)
	case bool:
		switch t := v.(type) {
		case bool:
			return t, nil
		case string:
			b, err := strconv.ParseBool(t)
			if err != nil {
				return nil, &paramError{param: name, message: fmt.Sprintf("Invalid boolean: %s", t)}
			}
			return b, nil
		}
		return nil, &paramError{param: name, message: fmt.Sprintf("Invalid value for %s: expected a boolean.", name)}
	default:
		return paramValue(v), nil
	}
}

// merge returns cur with the parameters of t merged in: a field t names
// takes its converted value, an empty string removes it, fields t adds
// follow cur's in sorted order. It builds the result in one pass over cur
// and one over t, so a merge of n keys costs O(n log n) for the sort and
// nothing quadratic. cur itself is left as it was.
func merge(name string, cur *object.Object, t map[string]any, fill *filler) (*object.Object, error) {
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
		nv, err := convertParam(name+"["+k+"]", vals[i], v, fill)
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
			if s != "" { // what convertParam makes of a string for a field cur lacks
				merged.Set(k, v) // v as it is: a string made an interface again would be a copy
			}
			continue
		}
		nv, err := convertParam(name+"["+k+"]", nil, v, fill)
		if err != nil {
			return nil, err
		}
		merged.Set(k, nv)
	}
	return merged, nil
}

// mergeEach converts the elements of a list parameter, merging each
// object over the nested default at path when there is one.
func mergeEach(name, path string, l []any, fill *filler) ([]any, error) {
	out := make([]any, len(l))
	for i, el := range l {
		m, ok := el.(map[string]any)
		if !ok || !fill.has(path) {
			out[i] = paramValue(el)
			continue
		}
		merged, err := merge(name+"["+strconv.Itoa(i)+"]", fill.defaultAt(path), m, fill)
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
// int64, written in decimal, as Stripe does ("Invalid integer: 1.5"); any
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
		return "", &paramError{param: name, message: fmt.Sprintf("Invalid value for %s: expected a number.", name)}
	}
	if isInteger(cur) {
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return "", &paramError{param: name, message: "Invalid integer: " + text}
		}
		return json.Number(strconv.FormatInt(n, 10)), nil
	}
	if !canon.Number(text) {
		return "", &paramError{param: name, message: "Invalid float: " + text}
	}
	return json.Number(text), nil
}

// isInteger reports whether a number field holds an integer: its text has
// no fraction and no exponent.
func isInteger(n json.Number) bool {
	return !strings.ContainsAny(string(n), ".eE")
}
