package engine

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/object"
)

// resource is a compiled format.Resource.
type resource struct {
	name       string
	collection string
	idPrefix   string
	skeleton   *object.Object
	encoded    encodedSkeleton // skeleton's encoding, what written entities are kept as patches over
	shape      *object.Object  // the first recorded object of this type, if any
	timestamps []string
	create     []rule
	delete     string  // "not_found", "tombstone", "none", "action"
	deleted    *shaped // tombstone answer, for delete = "tombstone"
	onDelete   *action // what DELETE runs, for delete = "action"
	notFound   *shaped
	actions    []*action
	immutable  map[string]bool
	listURL    string
	ext        *ext      // how it is addressed, scoped, numbered, listed; see ext.go
	nested     *nested   // nested defaults and expansions; see nested.go
	recycled   sync.Pool // *object.Object that creates are done with; see startCreate
	deep       bool      // creates copy the skeleton deeply; see deepCreate
}

type action struct {
	name   string
	from   map[string]bool
	fromL  []string
	rules  []rule
	params []string
}

type rule struct {
	when     []cond
	set      []assign
	fail     string            // an [errors.*] key the rule answers with; see declines.go
	failWith map[string]string // its placeholders
}

type cond struct {
	field string
	any   bool   // "*": present and not null
	want  string // the value's JSON text
}

type assign struct {
	field string
	value any          // literal, in package object's value set
	expr  *format.Expr // computed
	rfc   bool         // $now is written as RFC 3339 text (time_format)
}

func compileResource(spec *format.Resource, errs errorShapes, defaults dialect.Defaults) (*resource, error) {
	skel, err := object.Parse([]byte(spec.Skeleton))
	if err != nil {
		return nil, fmt.Errorf("skeleton: %w", err)
	}
	r := &resource{
		name:       spec.Name,
		collection: spec.Collection,
		idPrefix:   spec.IDPrefix,
		skeleton:   skel,
		timestamps: spec.Timestamps,
		delete:     spec.DeleteMode(),
		immutable:  map[string]bool{"id": true, "object": true},
		listURL:    spec.EnvelopeURL(),
	}
	if r.notFound, err = compileShaped(spec.NotFound, 404); err != nil {
		return nil, fmt.Errorf("not_found: %w", err)
	}
	if r.notFound == nil {
		r.notFound = errs.notFound
	}
	if r.delete == "tombstone" {
		if r.deleted, err = compileShaped(&format.Answer{Body: spec.DeletedBody}, 200); err != nil {
			return nil, fmt.Errorf("deleted_body: %w", err)
		}
	}
	for _, f := range spec.Immutable {
		r.immutable[f] = true
	}
	if r.create, err = compileRules(spec.Create); err != nil {
		return nil, fmt.Errorf("create: %w", err)
	}
	for i := range spec.Actions {
		ca, err := compileAction(&spec.Actions[i])
		if err != nil {
			return nil, err
		}
		r.actions = append(r.actions, ca)
	}
	if r.ext, err = compileExt(spec, defaults); err != nil {
		return nil, err
	}
	if r.nested, err = compileNested(spec); err != nil {
		return nil, err
	}
	r.deep = r.needsDeep()
	if r.ext.rfc3339 {
		markRFC3339(r.create)
		markRFC3339(r.ext.updateRules)
		for _, a := range r.actions {
			markRFC3339(a.rules)
		}
	}
	if spec.OnDelete != nil {
		if r.onDelete, err = compileAction(spec.OnDelete); err != nil {
			return nil, err
		}
		if r.onDelete.params == nil {
			r.onDelete.params = []string{} // a DELETE copies no parameters unless told
		}
	}
	return r, nil
}

// markRFC3339 makes the rules write $now as RFC 3339 text.
func markRFC3339(rules []rule) {
	for i := range rules {
		for j := range rules[i].set {
			rules[i].set[j].rfc = true
		}
	}
}

func compileAction(a *format.Action) (*action, error) {
	ca := &action{name: a.Name, from: map[string]bool{}, fromL: a.From, params: a.Params}
	for _, s := range a.From {
		ca.from[s] = true
	}
	var err error
	if ca.rules, err = compileRules(a.Rules); err != nil {
		return nil, fmt.Errorf("action %s: %w", a.Name, err)
	}
	return ca, nil
}

func compileRules(rules []format.Rule) ([]rule, error) {
	var out []rule
	for _, fr := range rules {
		r := rule{fail: fr.Fail, failWith: fr.FailWith}
		for _, k := range slices.Sorted(maps.Keys(fr.When)) {
			v := fr.When[k]
			if s, ok := v.(string); ok && s == "*" {
				r.when = append(r.when, cond{field: k, any: true})
				continue
			}
			r.when = append(r.when, cond{field: k, want: valueText(tomlValue(v))})
		}
		for _, k := range slices.Sorted(maps.Keys(fr.Set)) {
			v := fr.Set[k]
			if s, ok := v.(string); ok && len(s) > 0 && s[0] == '$' {
				if len(s) > 1 && s[1] == '$' {
					r.set = append(r.set, assign{field: k, value: s[1:]})
					continue
				}
				x, err := format.ParseExpr(s)
				if err != nil {
					return nil, err
				}
				r.set = append(r.set, assign{field: k, expr: &x})
				continue
			}
			r.set = append(r.set, assign{field: k, value: tomlValue(v)})
		}
		out = append(out, r)
	}
	return out, nil
}

// tomlValue converts a decoded TOML value into package object's value set.
func tomlValue(v any) any {
	switch t := v.(type) {
	case int64:
		return json.Number(strconv.FormatInt(t, 10))
	case float64:
		return json.Number(strconv.FormatFloat(t, 'f', -1, 64))
	case map[string]any:
		o := object.New(len(t))
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			o.Set(k, tomlValue(t[k]))
		}
		return o
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = tomlValue(e)
		}
		return out
	default:
		return v
	}
}

// valueText is a value's compact JSON text, for comparisons.
func valueText(v any) string {
	return string(object.AppendValue(nil, v))
}

// holds reports whether every condition of r holds on o.
func (r *rule) holds(o *object.Object) bool {
	for _, c := range r.when {
		v, ok := o.Get(c.field)
		if c.any {
			if !ok || v == nil {
				return false
			}
			continue
		}
		if !ok || valueText(v) != c.want {
			return false
		}
	}
	return true
}

// apply runs the first rule that holds.
func (e *Engine) applyRules(rules []rule, o *object.Object, now int64) {
	for i := range rules {
		if !rules[i].holds(o) {
			continue
		}
		for _, a := range rules[i].set {
			switch {
			case a.expr == nil:
				o.Set(a.field, e.scrubbed(a.field, object.CloneValue(a.value)))
			case a.expr.Null:
				o.Set(a.field, nil)
			case a.expr.Now && a.rfc:
				o.Set(a.field, time.Unix(now+a.expr.Offset, 0).UTC().Format(time.RFC3339))
			case a.expr.Now:
				o.Set(a.field, json.Number(strconv.FormatInt(now+a.expr.Offset, 10)))
			case a.expr.Secret:
				o.Set(a.field, e.dialect.Secret(o.String("id")))
			default:
				v, _ := o.Get(a.expr.Field)
				o.Set(a.field, e.scrubbed(a.field, object.CloneValue(v)))
			}
		}
		return
	}
}

// encodedSkeleton is a resource's skeleton encoded once, on first use:
// the engine scrubs skeletons after compiling them, and the encoding must
// be of the scrubbed object.
type encodedSkeleton struct {
	once sync.Once
	s    *object.Skeleton
}

// skeletonBytes returns r's encoded skeleton. r.skeleton must not change
// after the first call.
func (r *resource) skeletonBytes() *object.Skeleton {
	r.encoded.once.Do(func() { r.encoded.s = object.NewSkeleton(r.skeleton) })
	return r.encoded.s
}

// startCreate returns the object a create of r starts from: a copy of the
// skeleton. The create path replaces top-level fields and never changes a
// nested value in place (a parameter merges into a new object, a rule sets
// a copy), unless an expansion or a computed field sets a field inside a
// nested object; only then does it need a deep copy (deepCreate). Sharing the skeleton's nested values saves
// copying them, and encoding them again in save.
//
// The top-level copy reuses one that an earlier create handed back with
// endCreate: a create keeps its entity as bytes (a patch and an answer),
// never the object, so the object is garbage as soon as the create is
// done, and its room for values can serve the next one.
func (r *resource) startCreate() *object.Object {
	if r.deepCreate() {
		return r.skeleton.Clone()
	}
	o, _ := r.recycled.Get().(*object.Object)
	return r.skeleton.CloneTopInto(o)
}

// endCreate takes back o, which startCreate returned, once nothing refers
// to it or will: the create saved its bytes or was refused.
func (r *resource) endCreate(o *object.Object) {
	if r.deepCreate() {
		return
	}
	o.Recycle()
	r.recycled.Put(o)
}

// deepCreate reports whether a create of r needs a deep copy of the
// skeleton, which compileResource decides once (needsDeep).
func (r *resource) deepCreate() bool { return r.deep }

// needsDeep reports whether an expansion or a computed field
// ("owner.login") of r sets a field inside a nested object.
func (r *resource) needsDeep() bool {
	for _, c := range r.ext.computed {
		if len(c.path) > 1 {
			return true
		}
	}
	if r.nested != nil {
		for _, x := range r.nested.expands {
			if len(x.parents) > 0 {
				return true
			}
		}
	}
	return false
}

// template is the object a synthesized answer for r starts from: the first
// object of this type the recordings returned, else the skeleton.
func (r *resource) template() *object.Object {
	if r.shape != nil {
		return r.shape
	}
	return r.skeleton
}
