package openapi

import (
	"maps"
	"slices"
	"sort"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/scrub"
)

// verbatimNames lists the PII-shaped property names (by the default policy)
// whose values a token would make invalid: an enum, a pattern, or an
// object or array holding one (Stripe's payment_method_configuration.zip
// is an object of enums). A twin serves these verbatim, so its answers
// stay valid; free-form strings under PII-shaped names are still
// tokenized. With all, every PII-shaped name is listed: a twin whose
// entities hold only what its agents sent (the rest dialect's) has
// nothing recorded to hide, and a token in place of the agent's own
// name would be an answer the provider never gives; its schemas written
// inline in the operations are walked too.
func verbatimNames(doc *openapi3.T, all bool) []string {
	pii := scrub.New([]byte("names only"), scrub.Policy{})
	names := map[string]bool{}
	seen := map[*openapi3.Schema]bool{}
	var walk func(s *openapi3.SchemaRef, depth int)
	walk = func(s *openapi3.SchemaRef, depth int) {
		if s == nil || s.Value == nil || seen[s.Value] || depth > maxSampleDepth {
			return
		}
		seen[s.Value] = true
		v := s.Value
		for _, k := range SortedProps(v) {
			p := v.Properties[k]
			if pii.IsPII(k) && (all || breaksWhenTokenized(p, 0, map[*openapi3.Schema]bool{})) {
				names[k] = true
			}
			walk(p, depth+1)
		}
		walk(v.Items, depth+1)
		for _, b := range append(append(append([]*openapi3.SchemaRef{}, v.AnyOf...), v.OneOf...), v.AllOf...) {
			walk(b, depth+1)
		}
	}
	if doc.Components != nil {
		for _, k := range slices.Sorted(maps.Keys(doc.Components.Schemas)) {
			walk(doc.Components.Schemas[k], 0)
		}
	}
	// A bundled description (DigitalOcean's) writes its schemas inline in
	// its operations, where the components have none of them. Only a twin
	// of what its agents sent (all) looks there: the Stripe and GitHub
	// twins' lists are the components', as they were made.
	for _, o := range OperationsOf(doc) {
		if !all {
			break
		}
		if rb := o.Op.RequestBody; rb != nil && rb.Value != nil {
			for _, mt := range slices.Sorted(maps.Keys(rb.Value.Content)) {
				walk(rb.Value.Content[mt].Schema, 0)
			}
		}
		if o.Op.Responses == nil {
			continue
		}
		for _, code := range slices.Sorted(maps.Keys(o.Op.Responses.Map())) {
			if r := o.Op.Responses.Value(code); r != nil && r.Value != nil {
				for _, mt := range slices.Sorted(maps.Keys(r.Value.Content)) {
					walk(r.Value.Content[mt].Schema, 0)
				}
			}
		}
	}
	out := slices.Sorted(maps.Keys(names))
	sort.Strings(out)
	return out
}

func breaksWhenTokenized(s *openapi3.SchemaRef, depth int, seen map[*openapi3.Schema]bool) bool {
	if s == nil || s.Value == nil || depth > 4 || seen[s.Value] {
		return false
	}
	seen[s.Value] = true
	v := s.Value
	if len(v.Enum) > 0 || v.Pattern != "" {
		return true
	}
	for _, k := range SortedProps(v) {
		if breaksWhenTokenized(v.Properties[k], depth+1, seen) {
			return true
		}
	}
	if breaksWhenTokenized(v.Items, depth+1, seen) {
		return true
	}
	for _, b := range append(append([]*openapi3.SchemaRef{}, v.AnyOf...), v.OneOf...) {
		if breaksWhenTokenized(b, depth+1, seen) {
			return true
		}
	}
	return false
}
