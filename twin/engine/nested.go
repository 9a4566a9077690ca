package engine

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/world"
)

// Objects nested in a resource are completed as the provider completes
// them (format.Nested): parameters that write a nested object or the
// elements of a nested list are merged over a declared default, and ids
// at declared places are replaced by the entities they name.

// filler makes the nested defaults of one write: computed fields read the
// object being written, the session's clock and its id generator.
type filler struct {
	n   *compiled.Nested
	d   dialect.Dialect
	st  *session.State
	o   *object.Object
	now int64
}

// has reports whether there is a default at path, without making one
// (making one may take an id from the session's generator).
func (f *filler) has(path string) bool {
	return f != nil && f.n.Defaults[path] != nil
}

// defaultAt returns a fresh default object for a nested_defaults path
// ("recurring", "items.data[]"), or nil.
func (f *filler) defaultAt(path string) *object.Object {
	if f == nil {
		return nil
	}
	d := f.n.Defaults[path]
	if d == nil {
		return nil
	}
	o := d.Object.Clone()
	for _, a := range d.Computed {
		switch x := a.Expr; {
		case x.Null:
			o.Set(a.Field, nil)
		case x.Now:
			o.Set(a.Field, json.Number(strconv.FormatInt(f.now+x.Offset, 10)))
		case x.IDPrefix != "":
			o.Set(a.Field, dialect.StringID(f.st, x.IDPrefix))
		case x.Secret:
			o.Set(a.Field, f.d.Secret(f.o.String("id")))
		default:
			v, _ := f.o.Get(x.Field)
			o.Set(a.Field, object.CloneValue(v))
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
func (e *Engine) expand(st *session.State, res *compiled.Resource, o *object.Object, a *answer) bool {
	if res.Nested == nil {
		return true
	}
	for _, x := range res.Nested.Expands {
		if x.Resource == nil {
			continue
		}
		ok := true
		eachObject(o, x.Parents, func(holder *object.Object) {
			id, isID := mustString(holder.Get(x.Field))
			if !ok || !isID || id == "" {
				return
			}
			ent, found := e.referenced(st, x.Resource, id)
			if !found {
				ok = false
				e.refuse(a, dialect.Problem{Kind: dialect.NoSuchObject, Param: x.Field, Object: x.Resource.Name, Value: id})
				return
			}
			holder.Set(x.Field, ent)
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
func (e *Engine) referenced(st *session.State, res *compiled.Resource, id string) (*object.Object, bool) {
	if ent := st.Get(id); ent != nil && ent.Resource == res.Name && !ent.Deleted {
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
	o := template(res).Clone()
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
