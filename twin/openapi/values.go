package openapi

import (
	"maps"
	"slices"
	"sort"
)

// MergePatch applies a JSON merge patch (RFC 7386) to a copy of base,
// except that a null in the patch keeps the field as null rather than
// removing it: a twin's skeleton says "not set" as a provider answers it.
func MergePatch(base, patch map[string]any) map[string]any {
	out := CloneMap(base)
	for _, k := range slices.Sorted(maps.Keys(patch)) {
		pv := patch[k]
		if pm, ok := pv.(map[string]any); ok {
			if bm, ok := out[k].(map[string]any); ok {
				out[k] = MergePatch(bm, pm)
				continue
			}
		}
		out[k] = pv
	}
	return out
}

// CloneMap is a deep copy of a decoded JSON object.
func CloneMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return CloneMap(t)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = cloneValue(e)
		}
		return out
	}
	return v
}

// Confidence is the report's confidence in a skeleton by where it came
// from: the schema, a fixture, an example, else the sampler (each maybe
// "+overlay").
func Confidence(from string) float64 {
	switch from {
	case "schema", "schema+overlay", "fixture", "fixture+overlay":
		return 1
	case "example", "example+overlay":
		return 0.9
	}
	return 0.6
}

// MergeSorted is the sorted union of a and b, each value once.
func MergeSorted(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range append(append([]string(nil), a...), b...) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
