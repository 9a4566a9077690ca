package reqschema

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/wraithdev/wraith/twin/canon"
	"github.com/wraithdev/wraith/twin/dialect"
)

// Lookup says whether an entity exists in the session, for references
// (Schema.Ref). The engine passes an adapter over its session.
type Lookup interface {
	Exists(resource, id string) bool
}

// Check checks params, as package twin/canon decodes a request, against
// s, an operation's Params (an object schema), and returns them typed
// by s, in a new tree (params is left as it was), or the first problem.
// form says the values came as text (a form body or a query) and are
// read in s's types; otherwise they are JSON's and must be of s's types
// as they are. refs, when not nil, is asked about every string at a
// schema with Ref. The rules and their order are the package's.
func Check(s *Schema, params map[string]any, form bool, refs Lookup) (map[string]any, *dialect.Problem) {
	c := checker{form: form, refs: refs, build: true}
	if params == nil {
		params = map[string]any{}
	}
	v, ok := c.value(s, nil, params)
	if !ok {
		return nil, c.problem
	}
	if m, isMap := v.(map[string]any); isMap {
		return m, nil
	}
	return map[string]any{}, nil // unreachable: an object schema answers a map
}

// Validate is Check without the typed tree, for parameters used as they
// were sent (a list's query): the same problems, and no copy made.
func Validate(s *Schema, params map[string]any, form bool, refs Lookup) *dialect.Problem {
	c := checker{form: form, refs: refs}
	if params == nil {
		params = map[string]any{}
	}
	if _, ok := c.value(s, nil, params); !ok {
		return c.problem
	}
	return nil
}

// checker is one check: how values are read, and the first problem.
type checker struct {
	form  bool
	refs  Lookup
	build bool // build the typed tree (Check), or only check (CheckFlat)
	// quiet is set while the alternatives of an anyOf are tried: a
	// failing one records nothing, so that a request that matches a
	// later alternative costs no problem built and thrown away.
	quiet   bool
	problem *dialect.Problem
}

// fail records p at where, unless quiet.
func (c *checker) fail(p dialect.Problem, where *path) (any, bool) {
	if !c.quiet {
		recorded := p // declared here, it goes to the heap only when recorded
		recorded.Param = where.String()
		c.problem = &recorded
	}
	return nil, false
}

// unknown refuses the names that an object at p does not take, all of
// them, in sorted order.
func (c *checker) unknown(p *path, names []string) (any, bool) {
	if c.quiet {
		return nil, false
	}
	prob := dialect.Problem{Kind: dialect.UnknownParam}
	for _, name := range names {
		cp := p.child(name)
		prob.Names = append(prob.Names, cp.String())
	}
	prob.Param = prob.Names[0]
	c.problem = &prob
	return nil, false
}

// value checks v, a string, json.Number, bool, nil, map[string]any or
// []any, at s; a nil s accepts anything.
func (c *checker) value(s *Schema, p *path, v any) (any, bool) {
	if t, isText := v.(string); isText {
		if c.repeats(s) {
			return c.repeatedOnce(s, p, t)
		}
		return c.text(s, p, t)
	}
	if s == nil {
		return c.copy(v), true
	}
	if len(s.AnyOf) > 0 {
		return c.anyValue(s, p, v)
	}
	if v == nil {
		if s.Nullable || s.kind() == "" {
			return nil, true
		}
		return c.wrongType(s, p, v)
	}
	switch s.kind() {
	case "object":
		switch t := v.(type) {
		case map[string]any:
			return c.object(s, p, t)
		case []any:
			if c.form { // canon made a list of keys 0..n-1, which may name an object's members
				return c.object(s, p, keyed(t))
			}
		}
	case "array":
		switch t := v.(type) {
		case []any:
			return c.array(s, p, t)
		case map[string]any:
			if l, isList := indexed(t); isList {
				return c.array(s, p, l)
			}
		}
	case "integer":
		if n, isNumber := v.(json.Number); isNumber {
			return c.integer(s, p, string(n), true)
		}
	case "number":
		if n, isNumber := v.(json.Number); isNumber {
			return c.enum(s, p, string(n), n)
		}
	case "boolean":
		if b, isBool := v.(bool); isBool {
			return b, true
		}
	case "":
		return c.copy(v), true
	}
	return c.wrongType(s, p, v)
}

// object checks m's members in sorted order, then that every required
// name is present.
func (c *checker) object(s *Schema, p *path, m map[string]any) (any, bool) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if s.member(k) == nil {
			if c.quiet {
				return nil, false
			}
			var unknown []string
			for _, k := range keys {
				if s.member(k) == nil {
					unknown = append(unknown, k)
				}
			}
			return c.unknown(p, unknown)
		}
	}
	var out map[string]any
	if c.build {
		out = make(map[string]any, len(m))
	}
	for _, k := range keys {
		cp := p.child(k)
		v, ok := c.value(s.member(k), &cp, m[k])
		if !ok {
			return nil, false
		}
		if c.build {
			out[k] = v
		}
	}
	if name, missing := s.missing(func(k string) bool { _, has := m[k]; return has }); missing {
		cp := p.child(name)
		return c.fail(dialect.Problem{Kind: dialect.MissingParam}, &cp)
	}
	if !c.build {
		return nil, true
	}
	return out, true
}

// array checks l's elements in order.
func (c *checker) array(s *Schema, p *path, l []any) (any, bool) {
	var out []any
	if c.build {
		out = make([]any, len(l))
	}
	for i, e := range l {
		ip := p.at(i)
		v, ok := c.value(s.Items, &ip, e)
		if !ok {
			return nil, false
		}
		if c.build {
			out[i] = v
		}
	}
	if !c.build {
		return nil, true
	}
	return out, true
}

// wrongType refuses v, of another shape than s's type, in the kind of
// problem that type's words take.
func (c *checker) wrongType(s *Schema, p *path, v any) (any, bool) {
	if c.quiet {
		return nil, false
	}
	kind := dialect.InvalidString
	switch s.kind() {
	case "object":
		kind = dialect.ExpectedHash
	case "array":
		kind = dialect.ExpectedArray
	case "integer":
		kind = dialect.InvalidInteger
	case "number":
		kind = dialect.InvalidFloat
	case "boolean":
		kind = dialect.InvalidBoolean
	}
	prob := dialect.Problem{Kind: kind, Sent: deepCopy(v), Nullable: s.Nullable}
	switch t := v.(type) {
	case string:
		prob.Value = t
	case json.Number:
		prob.Value = string(t)
	}
	return c.fail(prob, p)
}

// copy is v in a tree of its own, so that the typed parameters share
// nothing the caller may change with the request's.
func (c *checker) copy(v any) any {
	if !c.build {
		return nil
	}
	return deepCopy(v)
}

func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		l := make([]any, len(t))
		for i, e := range t {
			l[i] = deepCopy(e)
		}
		return l
	}
	return v
}

// keyed is l as an object keyed "0".."n-1": canon turns such keys into
// a list, but where the schema says object they are member names
// (Stripe's metadata may be keyed by numbers).
func keyed(l []any) map[string]any {
	m := make(map[string]any, len(l))
	for i, e := range l {
		m[strconv.Itoa(i)] = e
	}
	return m
}

// indexed reads an object whose keys are all list indices (items[1],
// items[3]: not 0..n-1, so canon left it an object) as the list of its
// values in index order.
func indexed(m map[string]any) ([]any, bool) {
	type entry struct {
		i int
		v any
	}
	entries := make([]entry, 0, len(m))
	for k, v := range m {
		i, ok := canon.Index(k)
		if !ok {
			return nil, false
		}
		entries = append(entries, entry{i, v})
	}
	slices.SortFunc(entries, func(a, b entry) int { return a.i - b.i })
	l := make([]any, len(entries))
	for i, e := range entries {
		l[i] = e.v
	}
	return l, true
}

// repeats reports whether s is a Repeated array that a form's text
// stands for the list of one of.
func (c *checker) repeats(s *Schema) bool {
	return c.form && s != nil && s.Repeated && len(s.AnyOf) == 0 && s.kind() == "array"
}

// repeatedOnce checks a Repeated array's name sent once, v, as the list
// of one it stands for. p is copied, so that only this rare case's path
// escapes to the heap.
func (c *checker) repeatedOnce(s *Schema, p *path, v string) (any, bool) {
	var at *path
	if p != nil {
		cp := *p
		at = &cp
	}
	return c.array(s, at, []any{v})
}
