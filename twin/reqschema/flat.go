package reqschema

import (
	"slices"
	"strings"

	"github.com/wraithdev/wraith/twin/canon"
	"github.com/wraithdev/wraith/twin/dialect"
)

// CheckFlat is Check's fast path for the request most writes send, the
// form canon.FlatParams reads (name=value and name[key]=value strings,
// sorted by name and then key): the same problems Check finds in the
// same request's tree, in the same order, and no allocation when there
// is none. It types nothing: Schema.Value reads a value in its type.
func CheckFlat(s *Schema, flat []canon.FlatParam, refs Lookup) *dialect.Problem {
	c := checker{form: true, refs: refs}
	if s == nil {
		return nil
	}
	if s.kind() != "object" || len(s.AnyOf) > 0 {
		_, p := Check(s, tree(flat), true, refs) // no Params schema is so; the tree answers it anyway
		return p
	}
	for i, f := range flat {
		if s.member(f.Name) == nil {
			var unknown []string
			for _, f := range flat[i:] {
				if s.member(f.Name) == nil && (len(unknown) == 0 || unknown[len(unknown)-1] != f.Name) {
					unknown = append(unknown, f.Name) // each once: flat is sorted
				}
			}
			c.unknown(nil, unknown)
			return c.problem
		}
	}
	for i := 0; i < len(flat); {
		name := flat[i].Name
		j := i + 1
		for j < len(flat) && flat[j].Name == name {
			j++
		}
		np := path{key: name, index: -1}
		sub := s.member(name)
		switch {
		case flat[i].Key == "" && c.repeats(sub):
			c.repeatedOnce(sub, &np, flat[i].Value)
		case flat[i].Key == "":
			c.text(sub, &np, flat[i].Value)
		default:
			c.group(sub, &np, flat[i:j])
		}
		if c.problem != nil {
			return c.problem
		}
		i = j
	}
	if name, missing := s.missing(func(k string) bool {
		_, has := slices.BinarySearchFunc(flat, k, func(p canon.FlatParam, k string) int { return strings.Compare(p.Name, k) })
		return has
	}); missing {
		np := path{key: name, index: -1}
		c.fail(dialect.Problem{Kind: dialect.MissingParam}, &np)
	}
	return c.problem
}

// group checks one name's bracketed keys, sorted, as value checks the
// object of them that Check is given. canon.FlatParams reads no list
// index as a key, so the object is never a list.
func (c *checker) group(s *Schema, p *path, g []canon.FlatParam) (any, bool) {
	if s == nil {
		return nil, true
	}
	if len(s.AnyOf) > 0 {
		quiet := c.quiet
		c.quiet = true
		for _, alt := range s.AnyOf {
			if _, ok := c.group(alt, p, g); ok {
				c.quiet = quiet
				return nil, true
			}
		}
		c.quiet = quiet
		if quiet {
			return nil, false
		}
		return c.group(c.pick(s, shapeMap, false), p, g)
	}
	switch s.kind() {
	case "":
		return nil, true
	case "object":
		for i, e := range g {
			if s.member(e.Key) == nil {
				if c.quiet {
					return nil, false
				}
				var unknown []string
				for _, e := range g[i:] {
					if s.member(e.Key) == nil {
						unknown = append(unknown, e.Key)
					}
				}
				return c.unknown(p, unknown)
			}
		}
		for _, e := range g {
			cp := p.child(e.Key)
			if _, ok := c.text(s.member(e.Key), &cp, e.Value); !ok {
				return nil, false
			}
		}
		if name, missing := s.missing(func(k string) bool {
			_, has := slices.BinarySearchFunc(g, k, func(p canon.FlatParam, k string) int { return strings.Compare(p.Key, k) })
			return has
		}); missing {
			cp := p.child(name)
			return c.fail(dialect.Problem{Kind: dialect.MissingParam}, &cp)
		}
		return nil, true
	}
	if c.quiet {
		return nil, false
	}
	c.build = true // the refusal shows what was sent
	defer func() { c.build = false }()
	return c.wrongType(s, p, tree(g)[g[0].Name])
}

// tree is the parameters' tree, as canon.Params reads the same request.
func tree(flat []canon.FlatParam) map[string]any {
	m := make(map[string]any)
	for _, f := range flat {
		if f.Key == "" {
			m[f.Name] = f.Value
			continue
		}
		sub, _ := m[f.Name].(map[string]any)
		if sub == nil {
			sub = map[string]any{}
			m[f.Name] = sub
		}
		sub[f.Key] = f.Value
	}
	return m
}
