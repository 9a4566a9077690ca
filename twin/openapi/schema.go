package openapi

import (
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// RefName is the component name a schema reference points at, or "".
func RefName(s *openapi3.SchemaRef) string {
	if s == nil {
		return ""
	}
	if i := strings.LastIndex(s.Ref, "/"); i >= 0 && strings.HasPrefix(s.Ref, "#/components/schemas/") {
		return s.Ref[i+1:]
	}
	return ""
}

// ObjectEnum is the one value of a schema's "object" property enum: the
// provider's type name for objects of this schema ("customer"), or "".
func ObjectEnum(s *openapi3.Schema) string {
	if s == nil {
		return ""
	}
	p := s.Properties["object"]
	if p == nil || p.Value == nil || len(p.Value.Enum) != 1 {
		return ""
	}
	v, _ := p.Value.Enum[0].(string)
	return v
}

// Branches returns a schema's alternatives (anyOf, oneOf) or the schema
// itself.
func Branches(s *openapi3.SchemaRef) []*openapi3.SchemaRef {
	if s == nil || s.Value == nil {
		return nil
	}
	if len(s.Value.AnyOf) > 0 {
		return s.Value.AnyOf
	}
	if len(s.Value.OneOf) > 0 {
		return s.Value.OneOf
	}
	return []*openapi3.SchemaRef{s}
}

// Pick returns the branch of s whose object enum is want, else the first
// branch that is not a deleted_* tombstone.
func Pick(s *openapi3.SchemaRef, want string) *openapi3.SchemaRef {
	bs := Branches(s)
	for _, b := range bs {
		if want != "" && ObjectEnum(b.Value) == want && !IsDeleted(b.Value) {
			return b
		}
	}
	for _, b := range bs {
		if !IsDeleted(b.Value) {
			return b
		}
	}
	if len(bs) > 0 {
		return bs[0] // every branch is a tombstone: a delete's answer
	}
	return nil
}

// DeletedBranch returns the branch of s that is a tombstone, or nil.
func DeletedBranch(s *openapi3.SchemaRef) *openapi3.SchemaRef {
	for _, b := range Branches(s) {
		if IsDeleted(b.Value) {
			return b
		}
	}
	return nil
}

// IsDeleted reports a tombstone schema: a required "deleted" boolean
// whose only value is true (Stripe's deleted_* schemas).
func IsDeleted(s *openapi3.Schema) bool {
	if s == nil {
		return false
	}
	d := s.Properties["deleted"]
	if d == nil || d.Value == nil || !d.Value.Type.Is("boolean") {
		return false
	}
	if len(d.Value.Enum) == 1 && d.Value.Enum[0] == true {
		return true
	}
	return false
}

// Nullable reports whether a schema admits null (3.0 nullable or a 3.1
// type list with "null").
func Nullable(s *openapi3.Schema) bool {
	return s.Nullable || (s.Type != nil && s.Type.IncludesNull())
}

// SortedProps are s's property names, sorted.
func SortedProps(s *openapi3.Schema) []string {
	keys := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Required reports whether s requires property k.
func Required(s *openapi3.Schema, k string) bool {
	for _, r := range s.Required {
		if r == k {
			return true
		}
	}
	return false
}
