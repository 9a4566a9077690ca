package openapi

import (
	"maps"
	"slices"
	"sort"

	"github.com/getkin/kin-openapi/openapi3"
)

// Examples lists a media type's examples: example, then examples by
// name, "default" first. An example holding a "$ref" member is left out:
// GitHub's description writes references to components/examples inside
// example values ({"$ref": "#/components/examples/issue"}), which
// kin-openapi leaves as they are, since an example's value is data, not a
// schema. Served, the reference would be scaffolding in an answer (and a
// skeleton built over it kept the member in every new issue).
func Examples(mt *openapi3.MediaType) []any {
	if mt == nil {
		return nil
	}
	var out []any
	if mt.Example != nil && !hasRef(mt.Example, 0) {
		out = append(out, mt.Example)
	}
	keys := slices.Sorted(maps.Keys(mt.Examples))
	sort.SliceStable(keys, func(i, j int) bool { return keys[i] == "default" && keys[j] != "default" })
	for _, k := range keys {
		if ex := mt.Examples[k]; ex != nil && ex.Value != nil && ex.Value.Value != nil && !hasRef(ex.Value.Value, 0) {
			out = append(out, ex.Value.Value)
		}
	}
	return out
}

// hasRef reports whether a decoded example holds a "$ref" member at any
// depth. Past maxSampleDepth it says yes: an example that deep is not one
// to serve.
func hasRef(v any, depth int) bool {
	if depth > maxSampleDepth {
		return true
	}
	switch t := v.(type) {
	case map[string]any:
		if _, ok := t["$ref"]; ok {
			return true
		}
		for _, e := range t {
			if hasRef(e, depth+1) {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if hasRef(e, depth+1) {
				return true
			}
		}
	}
	return false
}

// withFormats fills the sampler's empty date-time and date strings with a
// fixed instant, so a template answer passes format validation.
func withFormats(v any, ref *openapi3.SchemaRef, depth int) any {
	if ref == nil || ref.Value == nil || depth > maxSampleDepth {
		return v
	}
	s := ref.Value
	switch t := v.(type) {
	case string:
		switch {
		case t != "":
		case s.Format == "date-time":
			return "2011-01-26T19:01:12Z"
		case s.Format == "date":
			return "2011-01-26"
		}
	case map[string]any:
		for _, part := range s.AllOf {
			withFormats(t, part, depth+1)
		}
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if p := s.Properties[k]; p != nil {
				t[k] = withFormats(t[k], p, depth+1)
			}
		}
	}
	return v
}
