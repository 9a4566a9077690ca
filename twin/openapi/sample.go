package openapi

import (
	"encoding/json"
	"sort"

	"github.com/getkin/kin-openapi/openapi3"
)

// maxSampleDepth bounds the sampler on recursive schemas.
const maxSampleDepth = 12

// sample returns a deterministic instance of s: the first enum value, null
// for a nullable, an object of its required properties, [] for arrays, 0,
// false and "". It never invents data: a twin's answers must say only what
// the description says.
func sample(s *openapi3.SchemaRef) any {
	return sampleDepth(s, 0)
}

func sampleDepth(ref *openapi3.SchemaRef, depth int) any {
	if ref == nil || ref.Value == nil || depth > maxSampleDepth {
		return nil
	}
	s := ref.Value
	switch {
	case len(s.Enum) > 0:
		return normalize(s.Enum[0])
	case nullable(s):
		return nil
	case s.Example != nil && depth > 0:
		return normalize(s.Example)
	case len(s.AllOf) > 0:
		out := map[string]any{}
		for _, part := range s.AllOf {
			if m, ok := sampleDepth(part, depth+1).(map[string]any); ok {
				for k, v := range m {
					out[k] = v
				}
			}
		}
		return out
	case len(s.AnyOf) > 0:
		return sampleDepth(pick(ref, ""), depth+1)
	case len(s.OneOf) > 0:
		return sampleDepth(s.OneOf[0], depth+1)
	}
	t := s.Type
	switch {
	case t == nil || t.Is("object") || (t.Permits("object") && len(s.Properties) > 0):
		out := map[string]any{}
		req := append([]string(nil), s.Required...)
		sort.Strings(req)
		for _, k := range req {
			if p := s.Properties[k]; p != nil {
				out[k] = sampleDepth(p, depth+1)
			}
		}
		return out
	case t.Is("array"):
		return []any{}
	case t.Is("string"):
		return ""
	case t.Is("integer"), t.Is("number"):
		return json.Number("0")
	case t.Is("boolean"):
		return false
	}
	return nil
}

// normalize turns a decoded example value into what encoding/json
// re-encodes byte for byte: numbers as json.Number.
func normalize(v any) any {
	switch t := v.(type) {
	case float64:
		b, _ := json.Marshal(t)
		return json.Number(b)
	case int:
		b, _ := json.Marshal(t)
		return json.Number(b)
	case int64:
		b, _ := json.Marshal(t)
		return json.Number(b)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = normalize(e)
		}
		return out
	}
	return v
}

// compact encodes v as compact JSON with sorted keys (encoding/json sorts
// map keys, so the bytes are stable).
func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "null"
	}
	return string(b)
}
