package openapi

import (
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/format"
)

// errorSchema is the description's own error answer: the JSON schema its
// 4xx and default responses give most often (ties to the smaller name),
// and how many give it. A schema written inline counts by its shape
// (errorShape): a bundled description (DigitalOcean's) repeats its error
// schema inline in every response, which is still the API's one error
// answer. With a status, only the responses of that status count (a
// description whose errors say their status in an enum, as Figma's do,
// has one schema per status). Nil when they give none that is an
// object.
func errorSchema(ops []Operation, status string) (*openapi3.SchemaRef, int) {
	count := map[string]int{}
	byName := map[string]*openapi3.SchemaRef{}
	for _, o := range ops {
		if o.Op.Responses == nil {
			continue
		}
		for code, r := range o.Op.Responses.Map() {
			if r == nil || r.Value == nil || (status != "" && code != status) || !(code == "default" || (len(code) == 3 && code[0] == '4')) {
				continue
			}
			mt := JSONMedia(r.Value.Content)
			if mt == nil || mt.Schema == nil || mt.Schema.Value == nil || !(mt.Schema.Value.Type.Is("object") || len(mt.Schema.Value.AllOf) > 0) {
				continue
			}
			name := errorName(mt.Schema)
			count[name]++
			byName[name] = mt.Schema
		}
	}
	names := make([]string, 0, len(count))
	for n := range count {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if count[names[i]] != count[names[j]] {
			return count[names[i]] > count[names[j]]
		}
		return names[i] < names[j]
	})
	if len(names) == 0 {
		return nil, 0
	}
	return byName[names[0]], count[names[0]]
}

// errorName is how errorSchema tells error schemas apart: the component
// name, else the shape of an inline schema.
func errorName(s *openapi3.SchemaRef) string {
	if n := RefName(s); n != "" {
		return n
	}
	return errorShape(s)
}

// errorShape names an inline object schema by its properties, required
// ones marked: {id!, message!, request_id}.
func errorShape(s *openapi3.SchemaRef) string {
	props, required := mergedProps(s.Value, 0)
	req := map[string]bool{}
	for _, k := range required {
		req[k] = true
	}
	var b strings.Builder
	b.WriteString("{")
	for i, k := range sortedRefKeys(props) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k)
		if req[k] {
			b.WriteString("!")
		}
	}
	b.WriteString("}")
	return b.String()
}

// messageFields are the names an error schema's human-readable sentence
// goes in, statusFields those its HTTP status goes in.
var (
	messageFields = map[string]bool{"message": true, "detail": true, "error": true, "error_description": true, "title": true, "description": true, "errorMessage": true, "error_message": true, "err": true}
	statusFields  = map[string]bool{"status": true, "status_code": true, "statusCode": true, "code": true}
)

// errorAnswer is one error answer in the description's error schema:
// its example or sample, with the sentence in every free-text message
// field (an array of strings holds it as its one item, as Jira's
// errorMessages; an array of objects that have such a field, as one
// such object, as Directus's and JSON:API's errors: [{message, ...}])
// and the status in an integer status field. Nil when the schema has no
// field to say the sentence in.
func (im *Importer) errorAnswer(s *openapi3.SchemaRef, status int, sentence string) *format.Answer {
	v, ok := im.errorBody(s, status, sentence, true)
	if !ok {
		return nil
	}
	return &format.Answer{Status: status, Body: Compact(v)}
}

// errorBody is errorAnswer's body and whether it says the sentence; an
// array of error objects is looked into only at the top (outer).
func (im *Importer) errorBody(s *openapi3.SchemaRef, status int, sentence string, outer bool) (map[string]any, bool) {
	v, ok := im.restExample(s, nil).(map[string]any)
	if !ok {
		return nil, false
	}
	props, _ := mergedProps(s.Value, 0)
	said := false
	for _, k := range sortedRefKeys(props) {
		p := props[k].Value
		if p == nil {
			continue
		}
		switch {
		case messageFields[k] && p.Type.Is("string") && len(p.Enum) == 0 && p.Pattern == "" && p.Format == "":
			v[k], said = sentence, true
		case strings.Contains(strings.ToLower(k), "message") && p.Type.Is("array") && p.Items != nil && p.Items.Value != nil && p.Items.Value.Type.Is("string"):
			v[k], said = []any{sentence}, true
		case statusFields[k] && (p.Type.Is("integer") || p.Type.Is("number")):
			// Even where a part of the schema fixes another status in an
			// enum (Figma's 403 schema, reused for a 409): the body says
			// the status it is sent with.
			v[k] = status
		case outer && !said && p.Type.Is("array") && p.Items != nil && p.Items.Value != nil && objectSchema(p.Items):
			if item, ok := im.errorBody(p.Items, status, sentence, false); ok && validates(p.Items, item) {
				v[k], said = []any{item}, true
			}
		}
	}
	return v, said
}
