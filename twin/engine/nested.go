package engine

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/world"
)

// Objects nested in a resource are completed as the provider completes
// them (format.Nested): parameters that write a nested object or the
// elements of a nested list are merged over a declared default, and ids
// at declared places are replaced by the entities they name.

// nested is a resource's compiled format.Nested; nil when it has none.
type nested struct {
	defaults map[string]*nestedDefault // by dotted path: "recurring", "items.data[]"
	expands  []*expansion
}

// nestedDefault is a default object: literal fields, and computed ones
// whose value is filled when the default is used.
type nestedDefault struct {
	obj      *object.Object
	computed []assign
}

type expansion struct {
	parents  []string // path to the objects holding the field
	field    string
	resource string
	res      *resource // linked once all resources are compiled
}

func compileNested(spec *format.Resource) (*nested, error) {
	if len(spec.NestedDefaults) == 0 && len(spec.Expand) == 0 {
		return nil, nil
	}
	n := &nested{defaults: map[string]*nestedDefault{}}
	for _, p := range slices.Sorted(maps.Keys(spec.NestedDefaults)) {
		obj, err := object.Parse([]byte(spec.NestedDefaults[p]))
		if err != nil {
			return nil, fmt.Errorf("nested_defaults.%s: %w", p, err)
		}
		d := &nestedDefault{obj: obj}
		for i, k := range obj.Keys() {
			s, ok := obj.Values()[i].(string)
			if !ok || !strings.HasPrefix(s, "$") {
				continue
			}
			if strings.HasPrefix(s, "$$") {
				obj.Set(k, s[1:])
				continue
			}
			x, err := format.ParseExpr(s)
			if err != nil {
				return nil, fmt.Errorf("nested_defaults.%s.%s: %w", p, k, err)
			}
			d.computed = append(d.computed, assign{field: k, expr: &x})
		}
		n.defaults[p] = d
	}
	for _, x := range spec.Expand {
		segs, ok := format.FieldPath(x.Field)
		if !ok {
			return nil, fmt.Errorf("expand: field %q is not a field path", x.Field)
		}
		n.expands = append(n.expands, &expansion{parents: segs[:len(segs)-1], field: segs[len(segs)-1], resource: x.Resource})
	}
	return n, nil
}

// linkExpansions points every expansion at its resource.
func linkExpansions(resources map[string]*resource) {
	for _, r := range resources {
		if r.nested == nil {
			continue
		}
		for _, x := range r.nested.expands {
			x.res = resources[x.resource]
		}
	}
}

// filler makes the nested defaults of one write: computed fields read the
// object being written, the session's clock and its id generator.
type filler struct {
	n   *nested
	d   dialect.Dialect
	st  *session.State
	o   *object.Object
	now int64
}

// fillerFor returns nil when the resource declares no nested defaults,
// so that parameters of most resources cost nothing more.
func fillerFor(res *resource, d dialect.Dialect, st *session.State, o *object.Object, now int64) *filler {
	if res.nested == nil || len(res.nested.defaults) == 0 {
		return nil
	}
	return &filler{n: res.nested, d: d, st: st, o: o, now: now}
}

// setterFor is how a write of res in st sets its parameters onto o.
func (e *Engine) setterFor(res *resource, st *session.State, o *object.Object, now int64) setter {
	return setter{d: e.dialect, fill: fillerFor(res, e.dialect, st, o, now), scrub: e.scrubFor(st)}
}

// has reports whether there is a default at path, without making one
// (making one may take an id from the session's generator).
func (f *filler) has(path string) bool {
	return f != nil && f.n.defaults[path] != nil
}

// defaultAt returns a fresh default object for a nested_defaults path
// ("recurring", "items.data[]"), or nil.
func (f *filler) defaultAt(path string) *object.Object {
	if f == nil {
		return nil
	}
	d := f.n.defaults[path]
	if d == nil {
		return nil
	}
	o := d.obj.Clone()
	for _, a := range d.computed {
		switch x := a.expr; {
		case x.Null:
			o.Set(a.field, nil)
		case x.Now:
			o.Set(a.field, json.Number(strconv.FormatInt(f.now+x.Offset, 10)))
		case x.IDPrefix != "":
			o.Set(a.field, dialect.StringID(f.st, x.IDPrefix))
		case x.Secret:
			o.Set(a.field, f.d.Secret(f.o.String("id")))
		default:
			v, _ := f.o.Get(x.Field)
			o.Set(a.field, object.CloneValue(v))
		}
	}
	return o
}

// dottedPath turns a parameter name into a nested_defaults path:
// "recurring[interval]" is "recurring.interval".
func dottedPath(name string) string {
	if !strings.Contains(name, "[") {
		return name
	}
	return strings.NewReplacer("[", ".", "]", "").Replace(name)
}

// expand replaces the ids that the resource's expansions name by the
// entities, answering for an id the session does not know as a read of
// it would: under the not_found policy, the provider's invalid-request
// answer naming the parameter; else the entity synthesized from the
// resource's shape. It reports whether the write may go on.
func (e *Engine) expand(st *session.State, res *resource, o *object.Object, a *answer) bool {
	if res.nested == nil {
		return true
	}
	for _, x := range res.nested.expands {
		if x.res == nil {
			continue
		}
		ok := true
		eachObject(o, x.parents, func(holder *object.Object) {
			id, isID := mustString(holder.Get(x.field))
			if !ok || !isID || id == "" {
				return
			}
			ent, found := e.referenced(st, x.res, id)
			if !found {
				ok = false
				e.invalid(a, x.field, "No such "+x.res.name+": '"+id+"'")
				return
			}
			holder.Set(x.field, ent)
		})
		if !ok {
			return false
		}
	}
	return true
}

func mustString(v any, ok bool) (string, bool) {
	s, isString := v.(string)
	return s, ok && isString
}

// referenced returns the session's entity of res with this id, as the
// object it would answer.
func (e *Engine) referenced(st *session.State, res *resource, id string) (*object.Object, bool) {
	if ent := st.Get(id); ent != nil && ent.Resource == res.name && !ent.Deleted {
		o, err := object.Parse(ent.Body())
		if err == nil {
			if ent.Provenance == world.Recorded {
				e.scrubObject(o)
			}
			return o, true
		}
	}
	if e.opts.UnknownEntity == NotFound {
		return nil, false
	}
	o := res.template().Clone()
	o.Set("id", e.scrubbed("id", id))
	return o, true
}

// eachObject calls fn with every object at path under o; a segment ending
// in "[]" is an array whose elements are followed.
func eachObject(o *object.Object, path []string, fn func(*object.Object)) {
	if len(path) == 0 {
		fn(o)
		return
	}
	seg := path[0]
	name, each := strings.CutSuffix(seg, "[]")
	v, _ := o.Get(name)
	if !each {
		if child, ok := v.(*object.Object); ok {
			eachObject(child, path[1:], fn)
		}
		return
	}
	arr, _ := v.([]any)
	for _, el := range arr {
		if child, ok := el.(*object.Object); ok {
			eachObject(child, path[1:], fn)
		}
	}
}
