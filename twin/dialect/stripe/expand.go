package stripe

import (
	"maps"
	"slices"
	"strings"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// Stripe's expand (docs.stripe.com/expand): expand[]=customer replaces the
// id at customer by the customer; a dot goes on into the expanded object
// (latest_charge.balance_transaction); a list's or search's paths start
// at its data (data.customer); at most four levels; a search also takes
// total_count, which it answers only when asked. A path the object cannot
// expand is refused before the request runs, in Stripe's words. Where the
// twin declares no expandable fields for a type (a recorded twin), an id
// is expanded when it names an entity of the session, and nothing is
// refused.

var _ dialect.Expander = Dialect{}

// maxExpandLevels is Stripe's limit on a path's levels.
const maxExpandLevels = 4

// Expansions reads expand, expand[] or expand[N] and checks each path
// against the answered type's expandable fields.
func (Dialect) Expansions(q dialect.ExpandQuery) ([]string, *dialect.Refusal) {
	paths := expandParam(q.Params)
	for _, p := range paths {
		if q.Search && p == "total_count" {
			continue
		}
		segs := strings.Split(p, ".")
		if len(segs) > maxExpandLevels {
			return nil, &dialect.Refusal{Param: "expand", Message: "You cannot expand more than 4 levels of a property."}
		}
		if slices.Contains(segs, "") {
			return nil, cannotExpand(p, "")
		}
		if q.Page {
			if segs[0] != "data" {
				hint := ""
				if expandsAt(q.Fields, q.Resource, segs) {
					hint = "data." + p
				}
				return nil, cannotExpand(p, hint)
			}
			segs = segs[1:]
		}
		if !expandsAt(q.Fields, q.Resource, segs) {
			return nil, cannotExpand(p, "")
		}
	}
	return paths, nil
}

// cannotExpand is Stripe's refusal of a path, with the path it may have
// meant on a list. Stripe names no param in it: its error is the message
// and the type alone.
func cannotExpand(path, hint string) *dialect.Refusal {
	msg := "This property cannot be expanded (" + path + ")."
	if hint != "" {
		msg += " You may want to try expanding '" + hint + "' instead."
	}
	return &dialect.Refusal{Message: msg}
}

// expandParam is the paths the request names, in the order sent, each
// once: the walk costs each path times the page's objects.
func expandParam(params map[string]any) []string {
	var out []string
	seen := map[string]bool{}
	add := func(v any) {
		if s, ok := v.(string); ok && s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	switch v := params["expand"].(type) {
	case string:
		add(v)
	case []any:
		for _, x := range v {
			add(x)
		}
	case map[string]any: // expand[a]=... names no index: taken in key order
		for _, k := range slices.Sorted(maps.Keys(v)) {
			add(v[k])
		}
	}
	return out
}

// expandsAt reports whether segs, from an object of type typ, is a path
// the type's declared fields lead along. A type the twin declares no
// fields for is not checked.
func expandsAt(fields func(string) map[string]string, typ string, segs []string) bool {
	prefix := ""
	for _, seg := range segs {
		fs := fieldsOf(fields, typ)
		if fs == nil {
			return true
		}
		key := prefix + seg
		if t := fs[key]; t != "" {
			typ, prefix = t, ""
			continue
		}
		if !leadsOn(fs, key+".") {
			return false
		}
		prefix = key + "."
	}
	return true
}

func fieldsOf(fields func(string) map[string]string, typ string) map[string]string {
	if fields == nil || typ == "" {
		return nil
	}
	return fields(typ)
}

// leadsOn reports whether a declared path goes on from prefix (a plain
// nested object on the way to an id).
func leadsOn(fs map[string]string, prefix string) bool {
	for k := range fs {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

// Expand applies each path from the answer's root, or from each of a
// page's objects.
func (Dialect) Expand(q dialect.ExpandQuery, paths []string, answer *object.Object, in dialect.Entities) bool {
	x := expander{fields: q.Fields, in: in}
	changed := false
	for _, p := range paths {
		if q.Search && p == "total_count" {
			continue // the search answers it (search.go)
		}
		segs := strings.Split(p, ".")
		if q.Page {
			data, _ := answer.Get("data")
			list, _ := data.([]any)
			for _, el := range list {
				if o, ok := el.(*object.Object); ok && x.walk(o, q.Resource, "", segs[1:]) {
					changed = true
				}
			}
			continue
		}
		if x.walk(answer, q.Resource, "", segs) {
			changed = true
		}
	}
	return changed
}

// expander walks one answer.
type expander struct {
	fields func(string) map[string]string
	in     dialect.Entities
}

// walk expands segs in o, an object of type typ at prefix (the path from
// typ's object to o, for a plain nested object), and reports whether it
// changed o.
func (x expander) walk(o *object.Object, typ, prefix string, segs []string) bool {
	if len(segs) == 0 {
		return false
	}
	if typ == "" || prefix == "" && o.String("object") != "" && o.String("object") != typ {
		typ = o.String("object") // an object of another type than declared (a polymorphic field)
	}
	seg := segs[0]
	key := prefix + seg
	fs := fieldsOf(x.fields, typ)
	target := ""
	if fs != nil {
		target = fs[key]
	}
	v, _ := o.Get(seg)
	if v == nil {
		// A list Stripe includes only when expanded (a charge's refunds,
		// a customer's subscriptions): the entities that refer to o.
		l := x.included(o, typ, key, seg, fs)
		if l == nil {
			return false // null: nothing to expand, as Stripe answers it
		}
		o.Set(seg, l)
		x.walk(l, typ, key+".", segs[1:])
		return true
	}
	switch t := v.(type) {
	case string:
		e := x.expandID(fs, target, t)
		if e == nil {
			return false
		}
		o.Set(seg, e)
		x.walk(e, target, "", segs[1:])
		return true
	case *object.Object:
		if target != "" || fs == nil {
			return x.walk(t, target, "", segs[1:])
		}
		return x.walk(t, typ, key+".", segs[1:])
	case []any:
		changed := false
		for i, el := range t {
			switch u := el.(type) {
			case string:
				if e := x.expandID(fs, target, u); e != nil {
					t[i] = e
					x.walk(e, target, "", segs[1:])
					changed = true
				}
			case *object.Object:
				var c bool
				if target != "" || fs == nil {
					c = x.walk(u, target, "", segs[1:])
				} else {
					c = x.walk(u, typ, key+".", segs[1:])
				}
				changed = changed || c
			}
		}
		return changed
	}
	return false
}

// includedPage is how many entities an included list holds, as Stripe's
// first page of a list holds by default.
const includedPage = 10

// included is the list at key of o (of type typ) that Stripe includes
// when it is expanded, nil when there is none: a list declared of a
// resource's type (refunds.data of refund), whose entities refer to o by
// its type's name (a refund's charge), in a list envelope whose url is
// o's own list of them (/v1/charges/{id}/refunds).
func (x expander) included(o *object.Object, typ, key, seg string, fs map[string]string) *object.Object {
	elem := fs[key+".data"]
	id := o.String("id")
	if elem == "" || id == "" || strings.Contains(key, ".") {
		return nil
	}
	items, more := x.in.Referring(elem, typ, id, includedPage)
	data := make([]any, len(items))
	for i, it := range items {
		data[i] = it
	}
	l := object.New(4)
	l.Set("object", "list")
	l.Set("data", data)
	l.Set("has_more", more)
	url := ""
	if c := x.in.Collection(typ); c != "" {
		url = c + "/" + id + "/" + seg
	}
	l.Set("url", url)
	return l
}

// expandID is the entity id names at a field that declares target, nil
// when the field expands to nothing or the session lacks it (the id then
// stays, as the stored entity holds it). A type without declared fields
// expands any id the session holds.
func (x expander) expandID(fs map[string]string, target, id string) *object.Object {
	if fs != nil && target == "" {
		return nil
	}
	return x.in.Find(target, id)
}
