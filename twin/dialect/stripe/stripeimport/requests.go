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
				if r.name == "account" {
					capabilitiesAnswer(op.Params)
				}
			}
		}
	}
}

// markUnanswered marks the parameters of a write of a resource whose
// answer field of the same name has another shape, so that their values
// are not copied into the entity:
//   - an object (or a list envelope) that no id names, where the request
//     sends a string or a list (line_items[0][price]=...);
//   - a scalar where the request sends a hash
//     (capabilities[card_payments][requested]=true answers "active");
//   - a list whose items the answer requires fields of that the request's
//     need not carry (a price's tiers[0][up_to]=inf answers a tier of
//     five amounts).
//
// Objects sent for objects are looked into, at every depth: they merge
// into the entity's own, which has the answer's members.
func markUnanswered(params *reqschema.Schema, answer *openapi3.SchemaRef, modelled map[string]bool) {
	if params == nil || answer == nil || answer.Value == nil {
		return
	}
	for name, p := range params.Properties {
		field := answer.Value.Properties[name]
		if field == nil || field.Value == nil || modelled[name] {
			continue
		}
		unanswered(p, field.Value, 0)
	}
}

// unanswered marks p, sent for the answer field f, as markUnanswered says.
func unanswered(p *reqschema.Schema, f *openapi3.Schema, depth int) {
	if depth > 12 {
		return
	}
	switch {
	case objectOnly(f) && !p.Accepts("object"):
		p.Unanswered = true
	case scalar(f) && (p.Accepts("object") || p.Accepts("array")) && !p.Accepts("string"):
		p.Unanswered = true
	case f.Type.Is("array") && f.Items != nil && f.Items.Value != nil:
		it := p.ItemsOf()
		switch {
		case it == nil || !it.Accepts("object"):
		case requiresMore(f.Items.Value, it):
			p.Unanswered = true
		default:
			for name, sub := range it.Properties {
				// A word where an item's answer holds a number:
				// tiers[0][up_to]=inf answers up_to null.
				if ff := f.Items.Value.Properties[name]; ff != nil && ff.Value != nil && !ff.Value.Type.Is("string") && scalar(ff.Value) && acceptsText(sub) {
					sub.Unanswered = true
				}
			}
		}
	case depth > 0 && scalar(f) && !f.Type.Is("string") && acceptsText(p):
		// A word where a nested answer holds a number:
		// settings[payouts][schedule][delay_days]=minimum answers the
		// days. (At the top, Stripe's now and unchanged are read by the
		// twin's rules, or not at all; they are left to them.)
		p.Unanswered = true
	case objectOnly(f) && p.Type == "object":
		props := f.Properties
		if len(f.AnyOf) == 1 && f.AnyOf[0].Value != nil { // a nullable reference: anyOf [{$ref}]
			props = f.AnyOf[0].Value.Properties
		}
		for name, sub := range p.Properties {
			if ff := props[name]; ff != nil && ff.Value != nil {
				unanswered(sub, ff.Value, depth+1)
			}
		}
	}
}

// acceptsText reports whether p takes a string other than "" (the empty
// string that clears a field, which every answer type allows).
func acceptsText(p *reqschema.Schema) bool {
	if p.Type == "string" && !slices.Equal(p.Enum, []string{""}) {
		return true
	}
	for _, alt := range p.AnyOf {
		if acceptsText(alt) {
			return true
		}
	}
	return false
}

// scalar reports whether an answer's field is a string, number or boolean.
func scalar(s *openapi3.Schema) bool {
	return s.Type.Is("string") || s.Type.Is("integer") || s.Type.Is("number") || s.Type.Is("boolean")
}

// requiresMore reports whether the answer's item schema requires a member
// the request's item schema does not.
func requiresMore(answer *openapi3.Schema, request *reqschema.Schema) bool {
	for _, name := range answer.Required {
		if !slices.Contains(request.Required, name) {
			return true
		}
	}
	return false
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

// capabilitiesAnswer says what Stripe answers for a capability an account
// write requests (capabilities[card_payments][requested]=true): the
// capability's status, "inactive" until the account's requirements are
// met, where the request sent a hash.
func capabilitiesAnswer(params *reqschema.Schema) {
	caps := params.At("capabilities")
	if caps == nil {
		return
	}
	for _, c := range caps.Properties {
		if c.Unanswered {
			c.Answer = "inactive"
		}
	}
}
