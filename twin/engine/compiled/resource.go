package compiled

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/object"
)

// Resource is a compiled format.Resource.
type Resource struct {
	Name       string
	Collection string
	IDPrefix   string
	Index      int              // its place among the twin's resources, from 0, for what the engine keeps per resource
	Skeleton   *object.Object   // what a create starts from, scrubbed
	Encoded    *object.Skeleton // Skeleton's encoding, scrubbed: what written entities are kept as patches over
	Shape      *object.Object   // the first recorded object of this type, if any
	Timestamps []string         // fields a create sets to the session's time
	Create     []Rule           // a create's rules: the first that holds applies
	Delete     string           // "not_found", "tombstone", "none", "action"
	Deleted    *Shaped          // tombstone answer, for delete = "tombstone"
	DeleteBody *Shaped          // a 200 delete's answer, for delete = "not_found" with a deleted_body
	OnDelete   *Action          // what DELETE runs, for delete = "action"
	NotFound   *Shaped          // the resource's own not-found answer, else the twin's
	Actions    []*Action
	Immutable  map[string]bool // fields no write may change (id and object always)
	ListURL    string          // the url a list envelope names
	Keys       *Keys           // how it is addressed, scoped, numbered, listed; see keys.go
	Nested     *Nested         // nested defaults and expansions; see nested.go
	// Deep says a create must copy the skeleton deeply: an expansion or
	// a computed field sets a field inside one of its nested objects,
	// which a shallow copy shares with the skeleton.
	Deep bool
}

// Action is a compiled format.Action: a state-machine transition.
type Action struct {
	Name     string
	From     map[string]bool // the statuses the action starts from; none for any
	FromList []string        // the same, in twin.toml's order, for messages
	Rules    []Rule
	Params   []string // the parameters it copies; nil for all
}

// Rule is a compiled format.Rule: where every condition holds, its
// assignments are made.
type Rule struct {
	When     []Cond
	Set      []Assign
	Fail     string            // an [errors.*] key the rule answers with, as a provider declines a card
	FailWith map[string]string // its placeholders
	Failure  *Shaped           // the [errors.*] entry Fail names
}

// Cond is one of a rule's conditions.
type Cond struct {
	Field string
	Any   bool   // "*": present and not null
	Want  string // the value's JSON text
}

// Assign is one of a rule's assignments.
type Assign struct {
	Field   string
	Value   any          // literal, in package object's value set
	Expr    *format.Expr // computed
	RFC3339 bool         // $now is written as RFC 3339 text (time_format)
}

func compileResource(spec *format.Resource, errs ErrorShapes, named *format.Errors, defaults dialect.Defaults) (*Resource, error) {
	skel, err := object.Parse([]byte(spec.Skeleton))
	if err != nil {
		return nil, fmt.Errorf("skeleton: %w", err)
	}
	r := &Resource{
		Name:       spec.Name,
		Collection: spec.Collection,
		IDPrefix:   spec.IDPrefix,
		Skeleton:   skel,
		Timestamps: spec.Timestamps,
		Delete:     spec.DeleteMode(),
		// "object" names the type where the dialect's objects do
		// (Defaults.Typed); elsewhere it is a field like any (an
		// imported remote link's object).
		Immutable: map[string]bool{"id": true, "object": defaults.Typed},
		ListURL:   spec.EnvelopeURL(),
	}
	if r.NotFound, err = compileShaped(spec.NotFound, 404); err != nil {
		return nil, fmt.Errorf("not_found: %w", err)
	}
	if r.NotFound == nil {
		r.NotFound = errs.NotFound
	}
	if r.Delete == "tombstone" {
		if r.Deleted, err = compileShaped(&format.Answer{Body: spec.DeletedBody}, 200); err != nil {
			return nil, fmt.Errorf("deleted_body: %w", err)
		}
	}
	if r.Delete == "not_found" && spec.DeletedBody != "" {
		if r.DeleteBody, err = compileShaped(&format.Answer{Body: spec.DeletedBody}, 200); err != nil {
			return nil, fmt.Errorf("deleted_body: %w", err)
		}
	}
	for _, f := range spec.Immutable {
		r.Immutable[f] = true
	}
	if r.Create, err = compileRules(spec.Create, named); err != nil {
		return nil, fmt.Errorf("create: %w", err)
	}
	for i := range spec.Actions {
		ca, err := compileAction(&spec.Actions[i], named)
		if err != nil {
			return nil, err
		}
		r.Actions = append(r.Actions, ca)
	}
	if r.Keys, err = compileKeys(spec, named, defaults); err != nil {
		return nil, err
	}
	if r.Nested, err = compileNested(spec); err != nil {
		return nil, err
	}
	r.Deep = r.needsDeep()
	if r.Keys.RFC3339 {
		markRFC3339(r.Create)
		markRFC3339(r.Keys.UpdateRules)
		for _, a := range r.Actions {
			markRFC3339(a.Rules)
		}
	}
	if spec.OnDelete != nil {
		if r.OnDelete, err = compileAction(spec.OnDelete, named); err != nil {
			return nil, err
		}
		if r.OnDelete.Params == nil {
			r.OnDelete.Params = []string{} // a DELETE copies no parameters unless told
		}
	}
	return r, nil
}

// markRFC3339 makes the rules write $now as RFC 3339 text.
func markRFC3339(rules []Rule) {
	for i := range rules {
		for j := range rules[i].Set {
			rules[i].Set[j].RFC3339 = true
		}
	}
}

func compileAction(a *format.Action, named *format.Errors) (*Action, error) {
	ca := &Action{Name: a.Name, From: map[string]bool{}, FromList: a.From, Params: a.Params}
	for _, s := range a.From {
		ca.From[s] = true
	}
	var err error
	if ca.Rules, err = compileRules(a.Rules, named); err != nil {
		return nil, fmt.Errorf("action %s: %w", a.Name, err)
	}
	return ca, nil
}

func compileRules(rules []format.Rule, named *format.Errors) ([]Rule, error) {
	var out []Rule
	for _, fr := range rules {
		r := Rule{Fail: fr.Fail, FailWith: fr.FailWith}
		if fr.Fail != "" {
			s, err := compileShaped(named.Named(fr.Fail), 400)
			if err != nil {
				return nil, fmt.Errorf("fail %s: %w", fr.Fail, err)
			}
			r.Failure = s
		}
		for _, k := range slices.Sorted(maps.Keys(fr.When)) {
			v := fr.When[k]
			if s, ok := v.(string); ok && s == "*" {
				r.When = append(r.When, Cond{Field: k, Any: true})
				continue
			}
			r.When = append(r.When, Cond{Field: k, Want: valueText(tomlValue(v))})
		}
		for _, k := range slices.Sorted(maps.Keys(fr.Set)) {
			v := fr.Set[k]
			if s, ok := v.(string); ok && len(s) > 0 && s[0] == '$' {
				if len(s) > 1 && s[1] == '$' {
					r.Set = append(r.Set, Assign{Field: k, Value: s[1:]})
					continue
				}
				x, err := format.ParseExpr(s)
				if err != nil {
					return nil, err
				}
				r.Set = append(r.Set, Assign{Field: k, Expr: &x})
				continue
			}
			r.Set = append(r.Set, Assign{Field: k, Value: tomlValue(v)})
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

// needsDeep reports whether an expansion or a computed field
// ("owner.login") of r sets a field inside a nested object.
func (r *Resource) needsDeep() bool {
	for _, c := range r.Keys.Computed {
		if len(c.Path) > 1 {
			return true
		}
	}
	if r.Nested != nil {
		for _, x := range r.Nested.Expands {
			if len(x.Parents) > 0 {
				return true
			}
		}
	}
	return false
}
