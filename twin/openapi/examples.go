package openapi

import (
	"maps"
	"slices"
	"sort"

	"github.com/getkin/kin-openapi/openapi3"
)

// Examples lists a media type's examples: example, then examples by
// name, "default" first.
func Examples(mt *openapi3.MediaType) []any {
	if mt == nil {
		return nil
	}
	var out []any
	if mt.Example != nil {
		out = append(out, mt.Example)
	}
	keys := slices.Sorted(maps.Keys(mt.Examples))
	sort.SliceStable(keys, func(i, j int) bool { return keys[i] == "default" && keys[j] != "default" })
	for _, k := range keys {
		if ex := mt.Examples[k]; ex != nil && ex.Value != nil && ex.Value.Value != nil {
			out = append(out, ex.Value.Value)
		}
	}
	return out
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
