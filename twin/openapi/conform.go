package openapi

import (
	"github.com/getkin/kin-openapi/openapi3"
)

// conform repairs an instance (a fixture or example) where it contradicts
// its schema, so the twin never serves an answer its own description
// rejects: a string outside its enum becomes the enum's first value, a
// missing required property is sampled, and an object follows the anyOf
// branch whose object enum it carries. It returns how many values it
// changed. Fixtures drift from descriptions (stripe-mock's fixtures name
// enum values newer or older than the spec's).
func conform(sp *sampler, v any, ref *openapi3.SchemaRef, depth int) (any, int) {
	if ref == nil || ref.Value == nil || depth > maxSampleDepth || v == nil {
		return v, 0
	}
	s := ref.Value
	if len(s.AnyOf) > 0 || len(s.OneOf) > 0 {
		if b := branchFor(v, ref); b != nil {
			return conform(sp, v, b, depth+1)
		}
		return v, 0
	}
	switch t := v.(type) {
	case string:
		if len(s.Enum) > 0 && !inEnum(t, s.Enum) {
			return Normalize(s.Enum[0]), 1
		}
	case []any:
		if s.Items == nil {
			return v, 0
		}
		n := 0
		for i, e := range t {
			var c int
			t[i], c = conform(sp, e, s.Items, depth+1)
			n += c
		}
		return t, n
	case map[string]any:
		n := 0
		for _, k := range SortedProps(s) {
			if e, ok := t[k]; ok {
				var c int
				t[k], c = conform(sp, e, s.Properties[k], depth+1)
				n += c
			}
		}
		for _, k := range s.Required {
			if _, ok := t[k]; !ok && s.Properties[k] != nil {
				t[k] = sp.sample(s.Properties[k])
				n++
			}
		}
		return t, n
	}
	return v, 0
}

// branchFor picks the anyOf/oneOf branch for an instance: by its object
// value, else the only object branch when the instance is an object.
func branchFor(v any, ref *openapi3.SchemaRef) *openapi3.SchemaRef {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	obj, _ := m["object"].(string)
	var objects []*openapi3.SchemaRef
	for _, b := range Branches(ref) {
		if b.Value == nil {
			continue
		}
		if obj != "" && ObjectEnum(b.Value) == obj && IsDeleted(b.Value) == (m["deleted"] == true) {
			return b
		}
		if b.Value.Type != nil && b.Value.Type.Is("object") {
			objects = append(objects, b)
		}
	}
	if len(objects) == 1 && obj == "" {
		return objects[0]
	}
	return nil
}

func inEnum(s string, enum []any) bool {
	for _, e := range enum {
		if e == s {
			return true
		}
	}
	return false
}
