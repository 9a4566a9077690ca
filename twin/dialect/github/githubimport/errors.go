package githubimport

import (
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/openapi"
)

// githubDocs is where GitHub's error answers point.
const githubDocs = "https://docs.github.com/rest"

// errors builds the twin's [errors] from GitHub's shared responses:
// not_found (basic-error, {message, documentation_url, status}) for a
// 404, validation_failed (validation-error, with errors [{resource,
// field, code}]) for a 422, and basic-error shapes for the rest.
func (g *ghImporter) errors() format.Errors {
	basic := g.sharedSchema("not_found")
	validation := g.sharedSchema("validation_failed")
	if basic == nil {
		g.report.AddUnresolved("errors", "no components/responses/not_found: errors use Wraith's own shape", "high")
		return format.Errors{}
	}
	g.report.AddInferred("errors", "schema", openapi.RefName(basic), "components/responses/not_found", 1)
	answer := func(status int, s *openapi3.SchemaRef, vals map[string]any) *format.Answer {
		body := map[string]any{}
		for _, k := range openapi.SortedProps(s.Value) {
			if v, ok := vals[k]; ok {
				body[k] = v
			} else if openapi.Required(s.Value, k) {
				body[k] = g.Sample(s.Value.Properties[k])
			}
		}
		return &format.Answer{Status: status, Body: openapi.Compact(body)}
	}
	status := func(code string) map[string]any {
		return map[string]any{"documentation_url": githubDocs, "status": code}
	}
	with := func(m map[string]any, k string, v any) map[string]any { m[k] = v; return m }
	out := format.Errors{
		NotFound:        answer(404, basic, with(status("404"), "message", "Not Found")),
		InvalidRequest:  answer(422, basic, with(status("422"), "message", "{message}")),
		Idempotency:     answer(400, basic, with(status("400"), "message", "Idempotency-Key '{id}' was used with different parameters: use a new key")),
		RateLimited:     answer(429, basic, with(status("429"), "message", "API rate limit exceeded")),
		UnexpectedState: answer(422, basic, with(status("422"), "message", "This {object} is {status}: you cannot {action} it")),
	}
	if validation != nil {
		g.report.AddInferred("errors", "validation", openapi.RefName(validation), "components/responses/validation_failed", 1)
		out.Validation = answer(422, validation, with(with(status("422"), "message", "Validation Failed"), "errors",
			[]any{map[string]any{"resource": "{resource}", "field": "{param}", "code": "{code}"}}))
	}
	return out
}

// sharedSchema is the JSON schema of components/responses/<name>, or nil.
func (g *ghImporter) sharedSchema(name string) *openapi3.SchemaRef {
	r := g.doc.Components.Responses[name]
	if r == nil || r.Value == nil {
		return nil
	}
	mt := openapi.JSONMedia(r.Value.Content)
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return nil
	}
	return mt.Schema
}
