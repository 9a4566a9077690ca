package openapi

import (
	"fmt"
	"maps"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"
)

// skeleton sets what a new object of r starts from: the fixture of its
// schema, else an example object of its type, else the sampler's output;
// then the overlay's patch.
func (im *importer) skeleton(r *resource) {
	r.skeleton, r.from = im.instance(r.ref, r.object)
	if ov := im.ov.resource(r.name); ov != nil && ov.Skeleton != nil {
		r.skeleton = mergePatch(r.skeleton, ov.Skeleton)
		r.from += "+overlay"
	}
	im.report.inferred(r.name, "skeleton", r.from, "", confidenceOf(r.from))
}

// instance returns an object of schema ref (of provider type name) and
// where it came from.
func (im *importer) instance(ref *openapi3.SchemaRef, name string) (map[string]any, string) {
	for _, key := range []string{resourceID(ref), refName(ref), name} {
		if key == "" {
			continue
		}
		if o, ok := im.fx[key]; ok {
			return im.conformed(cloneMap(o), ref, name), "fixture"
		}
	}
	var found map[string]any
	for _, ex := range im.examples {
		walkObjects(ex, func(o map[string]any) {
			if found == nil && o["object"] == name && o["id"] != nil {
				found = o
			}
		})
		if found != nil {
			return im.conformed(cloneMap(found), ref, name), "example"
		}
	}
	m, _ := im.sp.sample(ref).(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	if name != "" {
		m["object"] = name
	}
	if _, ok := m["id"]; !ok && ref != nil && ref.Value != nil && ref.Value.Properties["id"] != nil {
		m["id"] = ""
	}
	return m, "sampler"
}

// conformed repairs o against its schema, reporting each repair once per
// type.
func (im *importer) conformed(o map[string]any, ref *openapi3.SchemaRef, name string) map[string]any {
	v, n := conform(im.sp, o, ref, 0)
	if n > 0 && !im.repaired[name] {
		im.repaired[name] = true
		im.report.unresolved(name, fmt.Sprintf("the fixture or example contradicts the schema in %d values; they were replaced by the schema's first enum value or a sampled value", n), "medium")
	}
	m, _ := v.(map[string]any)
	return m
}

// resourceID is a schema's x-resourceId (Stripe names fixtures by it).
func resourceID(ref *openapi3.SchemaRef) string {
	if ref == nil || ref.Value == nil {
		return ""
	}
	v, _ := ref.Value.Extensions["x-resourceId"].(string)
	return v
}

func confidenceOf(from string) float64 {
	switch from {
	case "fixture", "fixture+overlay":
		return 1
	case "example", "example+overlay":
		return 0.9
	}
	return 0.6
}

// mergePatch applies a JSON merge patch (RFC 7386): null removes... except
// that a twin's skeleton keeps the field as null, which is what a provider
// answers for an unset field.
func mergePatch(base, patch map[string]any) map[string]any {
	out := cloneMap(base)
	for _, k := range slices.Sorted(maps.Keys(patch)) {
		pv := patch[k]
		if pm, ok := pv.(map[string]any); ok {
			if bm, ok := out[k].(map[string]any); ok {
				out[k] = mergePatch(bm, pm)
				continue
			}
		}
		out[k] = pv
	}
	return out
}

func cloneMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return cloneMap(t)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = cloneValue(e)
		}
		return out
	}
	return v
}
