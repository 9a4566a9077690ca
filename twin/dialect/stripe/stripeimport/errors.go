package stripeimport

import (
	"maps"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/openapi"
)

// errorSchema returns the error response schema most operations declare
// (a "default" or 4xx response), ties to the smaller component name.
func (im *importer) errorSchema() *openapi3.SchemaRef {
	count := map[string]int{}
	refs := map[string]*openapi3.SchemaRef{}
	for _, o := range im.Operations() {
		if o.Op.Responses == nil {
			continue
		}
		for _, code := range o.Op.Responses.Keys() {
			if code != "default" && !strings.HasPrefix(code, "4") {
				continue
			}
			r := o.Op.Responses.Value(code)
			if r == nil || r.Value == nil {
				continue
			}
			mt := openapi.JSONMedia(r.Value.Content)
			if mt == nil || mt.Schema == nil {
				continue
			}
			key := mt.Schema.Ref
			if key == "" {
				continue
			}
			count[key]++
			refs[key] = mt.Schema
		}
	}
	best, n := "", 0
	for _, k := range slices.Sorted(maps.Keys(count)) {
		if count[k] > n {
			best, n = k, count[k]
		}
	}
	return refs[best]
}

// errorShapes builds the twin's [errors] from the error schema: the
// sampler's instance with the message, code, param and type fields set
// for each kind of error the engine answers.
func (im *importer) errorShapes() format.Errors {
	s := im.errorSchema()
	if s == nil {
		im.report.AddUnresolved("errors", "no error response schema in the description: errors use Wraith's own shape", "high")
		return format.Errors{}
	}
	shape := func(status int, vals map[string]string, types ...string) *format.Answer {
		body, _ := fillError(im, s, vals, types, 0)
		return &format.Answer{Status: status, Body: openapi.Compact(body)}
	}
	im.report.AddInferred("errors", "schema", openapi.RefName(s), "most common error response", 1)
	return format.Errors{
		NotFound: shape(404, map[string]string{"message": "No such {object}: '{id}'", "code": "resource_missing", "param": "id"}, "invalid_request_error"),
		InvalidRequest: shape(400, map[string]string{"message": "{message}", "param": "{param}"},
			"invalid_request_error"),
		Idempotency: shape(400, map[string]string{"message": "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '{id}' if you meant to execute a different request."},
			"idempotency_error", "invalid_request_error"),
		RateLimited: shape(429, map[string]string{"message": "Too many requests hit the API too quickly.", "code": "rate_limit"},
			"invalid_request_error"),
		UnexpectedState: shape(400, map[string]string{"message": "This {object} ({id}) has a status of {status}; you cannot {action} it.", "code": "{object}_unexpected_state"},
			"invalid_request_error"),
	}
}

// fillError samples an error schema, setting the string fields named in
// vals wherever they appear, and a "type" enum to the first of types it
// allows. It keeps only required properties and those it fills: an
// optional object (Stripe's error.payment_intent, payment_method,
// setup_intent) is kept only when it holds a filled field, since a
// sampled one would be an object the request never produced, and SDKs
// decode it as real.
//
// It also reports whether it filled a field.
func fillError(im *importer, ref *openapi3.SchemaRef, vals map[string]string, types []string, depth int) (any, bool) {
	if ref == nil || ref.Value == nil || depth > 4 {
		return nil, false
	}
	s := ref.Value
	if s.Type == nil || !s.Type.Is("object") {
		return im.Sample(ref), false
	}
	out := map[string]any{}
	filled := false
	for _, k := range openapi.SortedProps(s) {
		p := s.Properties[k]
		if p == nil || p.Value == nil {
			continue
		}
		switch {
		case p.Value.Type != nil && p.Value.Type.Is("object"):
			v, ok := fillError(im, p, vals, types, depth+1)
			if ok || openapi.Required(s, k) {
				out[k] = v
				filled = filled || ok
			}
		case k == "type" && len(p.Value.Enum) > 0:
			e, ok := pickEnum(p.Value.Enum, types)
			out[k] = e
			filled = filled || ok
		case vals[k] != "" && p.Value.Type != nil && p.Value.Type.Is("string"):
			out[k] = vals[k]
			filled = true
		case openapi.Required(s, k):
			out[k] = im.Sample(p)
		}
	}
	return out, filled
}

// pickEnum is the first of prefer that enum allows, else enum's first
// value; ok says whether one of prefer was found.
func pickEnum(enum []any, prefer []string) (v any, ok bool) {
	for _, p := range prefer {
		for _, e := range enum {
			if e == p {
				return e, true
			}
		}
	}
	return enum[0], false
}
