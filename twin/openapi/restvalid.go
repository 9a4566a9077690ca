package openapi

import (
	"maps"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"
)

// validScalars replaces, in a sample or an example of a rest answer,
// every scalar that its own property's schema refuses with a value the
// schema takes (validScalar): a description's property example written
// in another type than the property's (DigitalOcean's maintenance hour,
// a string, has the example 840) is otherwise copied into every answer,
// which then fails the description. Objects and arrays are looked into,
// through allOf parts and an object's first oneOf or anyOf branch, the
// one the sampler took.
func validScalars(v any, ref *openapi3.SchemaRef, depth int) any {
	if ref == nil || ref.Value == nil || depth > maxSampleDepth {
		return v
	}
	switch t := v.(type) {
	case []any:
		for i := range t {
			t[i] = validScalars(t[i], ref.Value.Items, depth+1)
		}
	case map[string]any:
		props := answerProps(ref)
		for _, k := range slices.Sorted(maps.Keys(t)) {
			p := props[k]
			if p == nil || p.Value == nil {
				continue
			}
			switch t[k].(type) {
			case nil:
			case map[string]any, []any:
				t[k] = validScalars(t[k], p, depth+1)
			default:
				if !validates(p, t[k]) {
					if s, ok := validScalar(p); ok {
						t[k] = s
					}
				}
			}
		}
	}
	return v
}

// answerProps are the properties of an object schema through allOf,
// with those of its first oneOf or anyOf branch, and of the first
// branch of each allOf part, that the schema does not name itself.
func answerProps(ref *openapi3.SchemaRef) map[string]*openapi3.SchemaRef {
	props, _ := mergedProps(ref.Value, 0)
	branches := []*openapi3.SchemaRef{firstBranch(ref)}
	for _, part := range ref.Value.AllOf {
		if part.Value != nil {
			branches = append(branches, firstBranch(part))
		}
	}
	addBranchProps(props, branches)
	return props
}

// validScalar is a value of a scalar schema (through allOf) that the
// schema takes: the first of its enum values that validates, else its
// format's value, its pattern's simplest match or minLength characters
// for a string, its minimum (or 0) for a number, false for a boolean;
// ok is false when none of them validates.
func validScalar(ref *openapi3.SchemaRef) (any, bool) {
	var enum []any
	var typ *openapi3.Types
	format, pattern, minLength := "", "", uint64(0)
	var minimum *float64
	for _, p := range append([]*openapi3.SchemaRef{ref}, ref.Value.AllOf...) {
		s := p.Value
		if s == nil {
			continue
		}
		if enum == nil {
			enum = s.Enum
		}
		if typ == nil && s.Type != nil && len(*s.Type) > 0 {
			typ = s.Type
		}
		if format == "" {
			format = s.Format
		}
		if pattern == "" {
			pattern = s.Pattern
		}
		minLength = max(minLength, s.MinLength)
		if minimum == nil {
			minimum = s.Min
		}
	}
	var candidates []any
	for _, e := range enum {
		candidates = append(candidates, Normalize(e))
	}
	switch {
	case typ == nil:
	case typ.Is("string"):
		if f := formatValue(format); f != "" {
			candidates = append(candidates, f)
		}
		if pattern != "" {
			if m, ok := patternMatch(pattern); ok {
				candidates = append(candidates, m)
			}
		}
		b := make([]byte, max(minLength, 1))
		for i := range b {
			b[i] = 'a'
		}
		candidates = append(candidates, string(b))
	case typ.Is("integer"), typ.Is("number"):
		if minimum != nil {
			candidates = append(candidates, *minimum)
		}
		candidates = append(candidates, 0)
	case typ.Is("boolean"):
		candidates = append(candidates, false)
	}
	for _, c := range candidates {
		if validates(ref, c) {
			return c, true
		}
	}
	return nil, false
}
