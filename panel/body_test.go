//go:build panel

package panel_test

import (
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/openapi"
)

// requestSchema is an operation's request body schema in the media type
// the client sends (requestType), or nil.
func requestSchema(op *openapi.Operation) *openapi3.SchemaRef {
	if op == nil || op.Op.RequestBody == nil || op.Op.RequestBody.Value == nil {
		return nil
	}
	if mt := op.Op.RequestBody.Value.Content.Get(requestType(op)); mt != nil {
		return mt.Schema
	}
	return nil
}

// requestBody is a body for op: its schema's required properties, each
// a plain value of its type, plus up to marked optional string properties
// set to mark, so that a flow can see them echoed. Inside an item
// envelope env, the body is the envelope member's (wrap wraps it). A
// body that is not an object is nil.
func requestBody(op *openapi.Operation, env string, marked int, mark string) map[string]any {
	s := requestSchema(op)
	if s == nil || s.Value == nil {
		return nil
	}
	props, required := properties(s.Value, 0)
	if enveloped(op, env) {
		props, required = properties(props[env].Value, 0)
	}
	if len(props) == 0 {
		return nil
	}
	out := map[string]any{}
	for _, k := range required {
		out[k] = instance(props[k], 0)
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if marked == 0 {
			break
		}
		p := props[k].Value
		// A dotted name (Twilio's Bindings.Email.Address) is a nested
		// field sent flat, which no entity field holds as sent.
		if _, ok := out[k]; ok || p == nil || !plainString(p) || p.ReadOnly || strings.Contains(k, ".") {
			continue
		}
		out[k] = mark
		marked--
	}
	// A required plain string carries the mark too when nothing else does.
	if marked > 0 {
		for _, k := range required {
			if p := props[k]; p != nil && p.Value != nil && plainString(p.Value) && !strings.Contains(k, ".") {
				out[k] = mark
				break
			}
		}
	}
	return out
}

// plainString is a string schema a free text fits: no enum, format or
// pattern to break.
func plainString(s *openapi3.Schema) bool {
	return s.Type != nil && s.Type.Is("string") && len(s.Enum) == 0 && s.Format == "" && s.Pattern == "" && s.MinLength <= 12 && (s.MaxLength == nil || *s.MaxLength >= 24)
}

// properties are an object schema's properties and required names,
// through allOf.
func properties(s *openapi3.Schema, depth int) (map[string]*openapi3.SchemaRef, []string) {
	props := map[string]*openapi3.SchemaRef{}
	var required []string
	if depth > 8 {
		return props, nil
	}
	for _, part := range s.AllOf {
		if part.Value != nil {
			p, r := properties(part.Value, depth+1)
			for k, v := range p {
				props[k] = v
			}
			required = append(required, r...)
		}
	}
	for k, v := range s.Properties {
		props[k] = v
	}
	// A body that is one of several shapes (DigitalOcean's image
	// actions) is sent as its first.
	if len(props) == 0 {
		for _, branches := range [][]*openapi3.SchemaRef{s.OneOf, s.AnyOf} {
			if len(branches) > 0 && branches[0].Value != nil {
				return properties(branches[0].Value, depth+1)
			}
		}
	}
	return props, append(required, s.Required...)
}

// instance is a plain value of a schema: its example, where the
// schema takes it (DigitalOcean's maintenance start_time, a string, has
// the example 720, which a client could not send), else the first enum
// value, else a value of its type and format.
func instance(ref *openapi3.SchemaRef, depth int) any {
	if ref == nil || ref.Value == nil {
		// A required name the schema does not describe (Directus's
		// field datatype, DigitalOcean's uptime check method): any value
		// is one it takes, and a client sends one.
		return "panel"
	}
	if depth > 6 {
		return nil
	}
	s := ref.Value
	if s.Example != nil && s.VisitJSON(s.Example) == nil {
		return s.Example
	}
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	if s.Default != nil {
		return s.Default
	}
	if len(s.OneOf) > 0 {
		return instance(s.OneOf[0], depth+1)
	}
	if len(s.AnyOf) > 0 {
		return instance(s.AnyOf[0], depth+1)
	}
	// An allOf of a scalar and its description (Asana's status update
	// parent, a gid) is that scalar.
	if s.Type == nil {
		for _, part := range s.AllOf {
			if t := part.Value; t != nil && t.Type != nil && !t.Type.Is("object") && !t.Type.Is("array") {
				return instance(part, depth+1)
			}
		}
	}
	switch {
	case s.Type == nil && len(s.AllOf) == 0:
		return "panel"
	case s.Type.Is("integer"), s.Type.Is("number"):
		if s.Min != nil {
			return *s.Min
		}
		return 1
	case s.Type.Is("boolean"):
		return true
	case s.Type.Is("array"):
		// One element: a required list sent empty is, in a form, not
		// sent at all.
		if s.Items != nil {
			return []any{instance(s.Items, depth+1)}
		}
		return []any{}
	case s.Type.Is("string"):
		switch strings.ToLower(s.Format) {
		case "date-time":
			return "2026-01-02T03:04:05Z"
		case "date":
			return "2026-01-02"
		case "email":
			return "panel@example.com"
		case "uri", "url":
			return "https://example.com/panel"
		case "uuid":
			return "00000000-0000-4000-8000-000000000001"
		}
		return "panel"
	}
	props, required := properties(s, 0)
	out := map[string]any{}
	for _, k := range required {
		out[k] = instance(props[k], depth+1)
	}
	return out
}
