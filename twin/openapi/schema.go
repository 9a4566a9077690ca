package openapi

import (
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// refName is the component name a schema reference points at, or "".
func refName(s *openapi3.SchemaRef) string {
	if s == nil {
		return ""
	}
	if i := strings.LastIndex(s.Ref, "/"); i >= 0 && strings.HasPrefix(s.Ref, "#/components/schemas/") {
		return s.Ref[i+1:]
	}
	return ""
}

// objectEnum is the one value of a schema's "object" property enum: the
// provider's type name for objects of this schema ("customer"), or "".
func objectEnum(s *openapi3.Schema) string {
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

// isList reports whether s is a list envelope, {object: "list", data: [...]}
// or a search result, and returns the item schema.
func isList(s *openapi3.Schema) (kind string, items *openapi3.SchemaRef) {
	if s == nil {
		return "", nil
	}
	o := objectEnum(s)
	if o != "list" && o != "search_result" {
		return "", nil
	}
	data := s.Properties["data"]
	if data == nil || data.Value == nil || data.Value.Items == nil {
		return "", nil
	}
	return o, data.Value.Items
}

// branches returns a schema's alternatives (anyOf, oneOf) or the schema
// itself.
func branches(s *openapi3.SchemaRef) []*openapi3.SchemaRef {
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

// pick returns the branch of s whose object enum is want, else the first
// branch that is not a deleted_* tombstone.
func pick(s *openapi3.SchemaRef, want string) *openapi3.SchemaRef {
	bs := branches(s)
	for _, b := range bs {
		if want != "" && objectEnum(b.Value) == want && !isDeleted(b.Value) {
			return b
		}
	}
	for _, b := range bs {
		if !isDeleted(b.Value) {
			return b
		}
	}
	if len(bs) > 0 {
		return bs[0] // every branch is a tombstone: a delete's answer
	}
	return nil
}

// deletedBranch returns the branch of s that is a tombstone, or nil.
func deletedBranch(s *openapi3.SchemaRef) *openapi3.SchemaRef {
	for _, b := range branches(s) {
		if isDeleted(b.Value) {
			return b
		}
	}
	return nil
}

// isDeleted reports a tombstone schema: a required "deleted" boolean
// whose only value is true (Stripe's deleted_* schemas).
func isDeleted(s *openapi3.Schema) bool {
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

// nullable reports whether a schema admits null (3.0 nullable or a 3.1
// type list with "null").
func nullable(s *openapi3.Schema) bool {
	return s.Nullable || (s.Type != nil && s.Type.IncludesNull())
}

func sortedProps(s *openapi3.Schema) []string {
	keys := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
