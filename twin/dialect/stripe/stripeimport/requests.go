package stripeimport

import (
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/reqschema"
)

// ClosedObjects: Stripe refuses every parameter its description does not
// list, nested ones too (Received unknown parameter: card[foo]), though
// the description closes only the top level with additionalProperties.
func (im *importer) ClosedObjects() bool { return true }

// Requests marks the parameters of writes that name an entity: a string
// parameter whose name is a resource's (customer=cus_…) or a field that
// Stripe's answers expand into one resource (default_price -> price), so
// that under the not_found policy an id the session lacks is refused as
// Stripe refuses it (No such customer: 'cus_x').
func (im *importer) Requests(f *reqschema.File) {
	refs := im.referenceNames()
	for i := range f.Operations {
		op := &f.Operations[i]
		if op.Method == "POST" {
			markRefs(op.Params, refs, 0)
			if r := im.byName[im.ClaimedBy(op.Method, op.Path)]; r != nil {
				markUnanswered(op.Params, r.ref, im.modelled(r))
			}
		}
	}
}

// markUnanswered marks the top-level parameters of a write of a resource
// whose answer field of the same name has another shape: an object (or a
// list envelope) that no id names where the request sends a string or a
// list. Such a value is not copied into the entity.
func markUnanswered(params *reqschema.Schema, answer *openapi3.SchemaRef, modelled map[string]bool) {
	if params == nil || answer == nil || answer.Value == nil {
		return
	}
	for name, p := range params.Properties {
		field := answer.Value.Properties[name]
		if field == nil || field.Value == nil || !objectOnly(field.Value) || modelled[name] {
			continue
		}
		if !p.Accepts("object") {
			p.Unanswered = true
		}
	}
}

// modelled are the top-level fields of r the overlay says how to make
// from a request: a nested default of their elements, or an expansion of
// the ids sent (a subscription's items[0][price]).
func (im *importer) modelled(r *resource) map[string]bool {
	ov := im.ov.Resource(r.name)
	if ov == nil {
		return nil
	}
	top := func(field string) string {
		f, _, _ := strings.Cut(field, ".")
		return strings.TrimSuffix(f, "[]")
	}
	m := map[string]bool{}
	for field := range ov.NestedDefaults {
		m[top(field)] = true
	}
	for _, x := range ov.Expand {
		m[top(x.Field)] = true
	}
	return m
}

// objectOnly reports whether an answer's field is always an object: not
// an id that may be expanded, not a scalar.
func objectOnly(s *openapi3.Schema) bool {
	if len(s.AnyOf) > 0 || len(s.OneOf) > 0 {
		for _, alt := range append(append(openapi3.SchemaRefs{}, s.AnyOf...), s.OneOf...) {
			if alt.Value == nil || !objectOnly(alt.Value) {
				return false
			}
		}
		return true
	}
	return s.Type.Is("object") || (s.Type == nil && len(s.Properties) > 0)
}

// unreferenced are names of resources that Stripe's test mode answers for
// ids no session created: test payment methods (pm_card_visa) and the
// tokens and sources they stand for. A reference to them is not checked.
var unreferenced = []string{"payment_method", "source", "token"}

// referenceNames maps parameter names to the resource whose id they
// carry.
func (im *importer) referenceNames() map[string]string {
	bySchema := map[string]string{}
	refs := map[string]string{}
	for _, r := range im.resources {
		bySchema[r.schema] = r.name
		refs[r.name] = r.name
	}
	for _, name := range sortedKeys(im.doc.Components.Schemas) {
		s := im.doc.Components.Schemas[name]
		if s == nil || s.Value == nil {
			continue
		}
		for _, field := range sortedKeys(s.Value.Properties) {
			if res := expandsTo(s.Value.Properties[field], bySchema); res != "" {
				if _, ok := refs[field]; !ok {
					refs[field] = res
				}
			}
		}
	}
	for name, res := range refs {
		if slices.Contains(unreferenced, res) {
			delete(refs, name)
		}
	}
	return refs
}

// expandsTo is the one declared resource a field's x-expansionResources
// names (its deleted_ variant aside), or "".
func expandsTo(p *openapi3.SchemaRef, bySchema map[string]string) string {
	if p == nil || p.Value == nil {
		return ""
	}
	x, ok := p.Value.Extensions["x-expansionResources"].(map[string]any)
	if !ok {
		return ""
	}
	alts, _ := x["oneOf"].([]any)
	res := ""
	for _, a := range alts {
		m, _ := a.(map[string]any)
		ref, _ := m["$ref"].(string)
		schema := ref[strings.LastIndex(ref, "/")+1:]
		if strings.HasPrefix(schema, "deleted_") {
			continue
		}
		name, ok := bySchema[schema]
		if !ok || (res != "" && res != name) {
			return ""
		}
		res = name
	}
	return res
}

// markRefs sets Ref on the string schemas under s named by refs.
func markRefs(s *reqschema.Schema, refs map[string]string, depth int) {
	if s == nil || depth > 12 {
		return
	}
	for name, p := range s.Properties {
		if res, ok := refs[name]; ok {
			for _, alt := range append([]*reqschema.Schema{p}, p.AnyOf...) {
				if alt.Type == "string" && len(alt.Enum) == 0 {
					alt.Ref = res
				}
			}
		}
		markRefs(p, refs, depth+1)
	}
	markRefs(s.Items, refs, depth+1)
	for _, alt := range s.AnyOf {
		markRefs(alt, refs, depth+1)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
