package openapi

import (
	"github.com/getkin/kin-openapi/openapi3"
)

// maxValidationSteps bounds the validation of one example against its
// schema. kin-openapi's validator tries every branch of a oneOf or anyOf,
// so an example nested d deep in schemas of w branches costs w^d: a 5.9 KB
// description of oneOfs six wide and eight deep took 3 s and 528 MiB, and
// one more level would take minutes. The costliest of the pinned GitHub
// description's 944 examples takes 3,299 steps.
const maxValidationSteps = 200_000

// validates reports whether ex validates against s, and false, without
// running the validator, when validating it would take more than
// maxValidationSteps (the caller falls back to the sampler).
func validates(s *openapi3.SchemaRef, ex any) bool {
	budget := maxValidationSteps
	validationCost(ex, s, &budget, 0)
	if budget <= 0 {
		return false
	}
	return s.Value.VisitJSON(ex) == nil
}

// validationCost walks ex beside s as the validator does, every branch
// of a oneOf, anyOf and allOf included, counting one step a visit, and
// stops when the budget is spent.
func validationCost(ex any, s *openapi3.SchemaRef, budget *int, depth int) {
	if s == nil || s.Value == nil || *budget <= 0 || depth > 1000 {
		return
	}
	*budget--
	v := s.Value
	for _, group := range [][]*openapi3.SchemaRef{v.AllOf, v.AnyOf, v.OneOf} {
		for _, b := range group {
			validationCost(ex, b, budget, depth+1)
		}
	}
	switch t := ex.(type) {
	case map[string]any:
		for k, e := range t {
			if p := v.Properties[k]; p != nil {
				validationCost(e, p, budget, depth+1)
			} else if ap := v.AdditionalProperties.Schema; ap != nil {
				validationCost(e, ap, budget, depth+1)
			}
		}
	case []any:
		for _, e := range t {
			validationCost(e, v.Items, budget, depth+1)
		}
	}
}
