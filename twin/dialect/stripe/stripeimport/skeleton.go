package stripeimport

import (
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/openapi"
)

// skeleton sets what a new object of r starts from: its schema's
// properties, empty (openapi.Importer.Skeleton), its object type, then
// the overlay's patch. Not the fixture: that is another object's values
// (SPEC §13), which the baseline fixture set and template answers keep.
func (im *importer) skeleton(r *resource) {
	r.skeleton, r.from = im.Skeleton(r.ref), "schema"
	if r.object != "" {
		r.skeleton["object"] = r.object
	}
	if m, ok := r.skeleton["metadata"]; ok && m == nil {
		// Stripe answers {} for an object's metadata until it is set,
		// though its description allows null; clients set keys on it
		// (customer.metadata["k"] = "v") without looking.
		r.skeleton["metadata"] = map[string]any{}
	}
	if ov := im.ov.Resource(r.name); ov != nil && ov.Patch != nil {
		r.skeleton = openapi.MergePatch(r.skeleton, ov.Patch)
		r.from += "+overlay"
	}
	im.report.AddInferred(r.name, "skeleton", r.from, "", openapi.Confidence(r.from))
}

// instance returns an object of schema ref (of provider type name) and
// where it came from.
func (im *importer) instance(ref *openapi3.SchemaRef, name string) (map[string]any, string) {
	for _, key := range []string{resourceID(ref), openapi.RefName(ref), name} {
		if key == "" {
			continue
		}
		if o, ok := im.fx[key]; ok {
			return im.conformed(openapi.CloneMap(o), ref, name), "fixture"
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
			return im.conformed(openapi.CloneMap(found), ref, name), "example"
		}
	}
	m, _ := im.Sample(ref).(map[string]any)
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
	v, n := im.Conform(o, ref)
	if n > 0 && !im.repaired[name] {
		im.repaired[name] = true
		im.report.AddUnresolved(name, fmt.Sprintf("the fixture or example contradicts the schema in %d values; they were replaced by the schema's first enum value or a sampled value", n), "medium")
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
