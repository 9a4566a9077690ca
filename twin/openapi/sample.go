package openapi

import (
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"strings"

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
		branch := pick(ref, "")
		return discriminated(sampleDepth(branch, depth+1), s, branch)
	case len(s.OneOf) > 0:
		return discriminated(sampleDepth(s.OneOf[0], depth+1), s, s.OneOf[0])
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

// discriminated sets the discriminator property of a oneOf or anyOf
// sample to the value that names the branch it took (GitHub's /user
// answers a private-user or public-user told apart by user_view_type): a
// validator picks the branch by that property, so without it the sample
// matches no branch, even when the branch does not require the property.
// The value is the discriminator mapping's key for the branch, else the
// branch's component name, as OpenAPI defines the implicit mapping.
func discriminated(v any, s *openapi3.Schema, branch *openapi3.SchemaRef) any {
	m, ok := v.(map[string]any)
	if !ok || s.Discriminator == nil || s.Discriminator.PropertyName == "" || branch == nil || branch.Ref == "" {
		return v
	}
	name := branch.Ref[strings.LastIndex(branch.Ref, "/")+1:]
	for _, k := range slices.Sorted(maps.Keys(s.Discriminator.Mapping)) {
		if s.Discriminator.Mapping[k].Ref == branch.Ref {
			name = k
			break
		}
	}
	m[s.Discriminator.PropertyName] = name
	return m
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
