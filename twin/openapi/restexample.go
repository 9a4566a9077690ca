package openapi

import (
	"maps"
	"slices"
	"sort"

	"github.com/getkin/kin-openapi/openapi3"
)

func sortStrings(s []string) { sort.Strings(s) }

// restExample is the rest dialect's answer for a schema: the media
// type's first example that validates, else the first example of the
// schema itself (or of its first oneOf branch) that validates, else the
// sampler's output with its empty strings filled by format (restFormats)
// and every scalar its property's schema refuses replaced by one it
// takes (validScalars).
func (im *Importer) restExample(s *openapi3.SchemaRef, mt *openapi3.MediaType) any {
	for _, ex := range Examples(mt) {
		if validates(s, ex) {
			return Normalize(ex)
		}
	}
	if s != nil && s.Value != nil {
		for _, c := range []*openapi3.SchemaRef{s, firstBranch(s)} {
			if c != nil && c.Value != nil && c.Value.Example != nil && validates(s, c.Value.Example) {
				return Normalize(c.Value.Example)
			}
		}
	}
	v := restFormats(withFormats(im.sp.sample(s), s, 0), s, 0)
	if validates(s, v) {
		return v
	}
	// The sampler takes a oneOf's first branch and an object's required
	// properties as it finds them; conform repairs what that left
	// against the schema (a branch's required property, an enum), and
	// repair what allOf parts require.
	v, _ = im.Conform(v, s)
	v = validScalars(restFormats(im.repair(v, s, 0), s, 0), s, 0)
	if !validates(s, v) {
		if b := im.oneBranch(s); b != nil {
			return b
		}
	}
	return v
}

// oneBranch is, for a schema of oneOf or anyOf branches whose sample
// validates against none of them or several, the sample of the first
// branch that validates against the schema: the branch's own, else with
// one entry sampled in each list the branch has (Box's search results,
// whose two branches differ only in their entries, which an empty list
// leaves both). Each sample validates against its own branch too, so
// that it is an instance of the branch it was made from. nil when none
// does, or maxBranching searches deep: a schema that holds itself ends.
// entrySample is the sample of a list's entry for oneBranch: the
// schema's, with the properties the description gives an example of,
// where that still validates (Box's search result with a shared link,
// whose every property is optional: {} says nothing of it).
func (im *Importer) entrySample(s *openapi3.SchemaRef) any {
	v := im.restExample(s, nil)
	obj, ok := v.(map[string]any)
	if !ok {
		return v
	}
	fuller := maps.Clone(obj)
	if withExamples(fuller, s); validates(s, fuller) {
		return fuller
	}
	return obj
}

const maxBranching = 2

func (im *Importer) oneBranch(s *openapi3.SchemaRef) any {
	if s == nil || s.Value == nil || im.branching >= maxBranching {
		return nil
	}
	im.branching++
	defer func() { im.branching-- }()
	for _, branches := range []openapi3.SchemaRefs{s.Value.OneOf, s.Value.AnyOf} {
		for _, b := range branches {
			if b == nil || b.Value == nil {
				continue
			}
			v := im.restExample(b, nil)
			if validates(b, v) && validates(s, v) {
				return v
			}
			obj, ok := v.(map[string]any)
			if !ok {
				continue
			}
			if im.fillLists(obj, b) && validates(b, obj) && validates(s, obj) {
				return obj
			}
		}
	}
	return nil
}

// fillLists gives each empty or absent list of the object obj, of
// schema s, one entry (entrySample), and reports whether it gave any.
func (im *Importer) fillLists(obj map[string]any, s *openapi3.SchemaRef) bool {
	props, _ := mergedProps(s.Value, 0)
	filled := false
	for _, k := range sortedRefKeys(props) {
		p := props[k].Value
		if p == nil || !p.Type.Is("array") || p.Items == nil || p.WriteOnly {
			continue
		}
		if have, ok := obj[k].([]any); obj[k] == nil || (ok && len(have) == 0) {
			obj[k], filled = []any{im.entrySample(p.Items)}, true
		}
	}
	return filled
}

// repair adds to a sample's objects the properties their schema
// requires through allOf (Box's User--Mini requires name in a part),
// sampled, and repairs their properties likewise.
func (im *Importer) repair(v any, ref *openapi3.SchemaRef, depth int) any {
	if ref == nil || ref.Value == nil || depth > maxSampleDepth {
		return v
	}
	switch t := v.(type) {
	case []any:
		for i := range t {
			t[i] = im.repair(t[i], ref.Value.Items, depth+1)
		}
	case map[string]any:
		if sc, ok := scalarOf(ref, 0); ok {
			// An allOf of a string and its description samples as an
			// object (the sampler merges allOf parts as objects): Box's
			// sequence_id.
			return sc
		}
		s := ref
		if b := firstBranch(ref); b != nil && len(ref.Value.Properties) == 0 && len(ref.Value.AllOf) == 0 {
			s = b
		}
		props, required := mergedProps(s.Value, 0)
		if len(props) == 0 {
			// An allOf of a oneOf and its description (Box's
			// collaboration item): the branch the sampler took.
			for _, part := range s.Value.AllOf {
				if b := firstBranch(part); part.Value != nil && b != nil && b.Value != nil {
					props, required = mergedProps(b.Value, 0)
					break
				}
			}
		}
		for _, k := range required {
			if _, ok := t[k]; ok {
				continue
			}
			if props[k] == nil {
				// Required but never described (Box's shared_link
				// requires accessed, which none of its parts defines):
				// any value is the schema's, and null says nothing.
				t[k] = nil
				continue
			}
			t[k] = restFormats(withFormats(im.sp.sample(props[k]), props[k], 0), props[k], 0)
		}
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if p := props[k]; p != nil {
				t[k] = im.repair(t[k], p, depth+1)
			}
		}
	}
	return v
}

func firstBranch(s *openapi3.SchemaRef) *openapi3.SchemaRef {
	if len(s.Value.OneOf) > 0 {
		return s.Value.OneOf[0]
	}
	if len(s.Value.AnyOf) > 0 {
		return s.Value.AnyOf[0]
	}
	return nil
}

// restFormats fills a sample's empty strings as their schema's format
// or pattern asks (an email, a uri, a uuid; a pattern's simplest match),
// and its properties' from their own examples, so that the answer
// validates where an empty string would not.
func restFormats(v any, ref *openapi3.SchemaRef, depth int) any {
	if ref == nil || ref.Value == nil || depth > maxSampleDepth {
		return v
	}
	s := ref.Value
	switch t := v.(type) {
	case string:
		if t != "" {
			return t
		}
		if ex, ok := s.Example.(string); ok && ex != "" {
			return ex
		}
		if f := formatValue(s.Format); f != "" {
			return f
		}
		if s.Pattern != "" {
			if m, ok := patternMatch(s.Pattern); ok {
				return m
			}
		}
		if s.MinLength > 0 {
			b := make([]byte, s.MinLength)
			for i := range b {
				b[i] = 'a'
			}
			return string(b)
		}
	case []any:
		for i := range t {
			t[i] = restFormats(t[i], s.Items, depth+1)
		}
	case map[string]any:
		props, _ := mergedProps(s, 0)
		if b := firstBranch(ref); b != nil {
			bp, _ := mergedProps(b.Value, 0)
			for k, p := range bp {
				if props[k] == nil {
					props[k] = p
				}
			}
		}
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if p := props[k]; p != nil {
				t[k] = restFormats(t[k], p, depth+1)
			}
		}
	}
	return v
}

// formatValue is a fixed value of a string format, or "" for one it
// does not know.
func formatValue(format string) string {
	switch format {
	case "date-time":
		return "2011-01-26T19:01:12Z"
	case "date":
		return "2011-01-26"
	case "email":
		return "user@example.com"
	case "uri", "url":
		return "https://example.com/"
	case "uri-reference":
		return "/"
	case "uuid":
		return "00000000-0000-4000-8000-000000000000"
	case "hostname":
		return "example.com"
	case "ipv4":
		return "192.0.2.1"
	case "ipv6":
		return "2001:db8::1"
	case "time":
		return "19:01:12Z"
	}
	return ""
}

// scalarOf is a value of a schema whose type, through allOf, is a
// scalar: an example of it or of a part, else its format's value or its
// type's zero; ok is false for an object or array schema, or one of no
// type.
func scalarOf(ref *openapi3.SchemaRef, depth int) (any, bool) {
	if ref == nil || ref.Value == nil || depth > maxSampleDepth {
		return nil, false
	}
	s := ref.Value
	var typ *openapi3.Types
	var example any
	format := s.Format
	parts := append([]*openapi3.SchemaRef{ref}, s.AllOf...)
	for _, p := range parts {
		if p.Value == nil {
			continue
		}
		if p.Value.Type != nil && len(*p.Value.Type) > 0 && typ == nil {
			typ = p.Value.Type
		}
		if example == nil && p.Value.Example != nil {
			example = p.Value.Example
		}
		if format == "" {
			format = p.Value.Format
		}
	}
	switch {
	case typ == nil || typ.Is("object") || typ.Is("array"):
		return nil, false
	case example != nil:
		return Normalize(example), true
	case typ.Is("string"):
		return formatValue(format), true
	case typ.Is("integer"), typ.Is("number"):
		return 0, true
	case typ.Is("boolean"):
		return false, true
	}
	return nil, false
}
