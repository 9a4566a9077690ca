package openapi

import (
	"maps"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/reqschema"
)

// restWrite is a write a resource serves (its create, its updates), at
// its served path, with the entity's answer schema and item envelope:
// what Requests compares the write's request schema to.
type restWrite struct {
	resource, method, path, env string
	entity                      *openapi3.SchemaRef
}

// ClosedObjects is false: a rest description's objects take names they
// do not list unless they say otherwise (JSON Schema's reading).
func (r *restImport) ClosedObjects() bool { return false }

// Requests types what a resource's writes store by the entity's answer
// schema, not the request's, deciding it here once so that no request
// walks a schema: a field a write sends in a shape the answer refuses
// (Asana's project followers, a comma-separated string of gids,
// answered as a list of users; Box's metadata cascade policy scope,
// sent "enterprise" where the answer's enum is ["global",
// "enterprise_*"]) is marked unanswered in requests.json, so the entity
// keeps its skeleton's value of the answer's schema; a string sent for
// an object is its key (the skeleton has the object with its key, and
// rest.Dialect.FromString sets it). Each is reported for the resource,
// the field and why.
func (r *restImport) Requests(f *reqschema.File) {
	for _, w := range r.writes {
		for i := range f.Operations {
			op := &f.Operations[i]
			if op.Method != w.method || op.Path != w.path || op.Params == nil {
				continue
			}
			p := op.Params
			if w.env != "" && p.Properties[w.env] != nil {
				p = p.Properties[w.env]
			}
			seen := map[string]bool{}
			r.retype(w, p, w.entity, "", seen, 0)
		}
	}
}

// retype marks the members of the request schema p that the answer
// schema a stores otherwise (Requests), at every depth of objects sent
// for objects, reporting each once per resource.
func (r *restImport) retype(w restWrite, p *reqschema.Schema, a *openapi3.SchemaRef, at string, seen map[string]bool, depth int) {
	if p == nil || a == nil || a.Value == nil || depth > maxRequestDepth {
		return
	}
	for _, alt := range p.AnyOf {
		r.retype(w, alt, a, at, seen, depth+1)
	}
	props := answerProps(a)
	for _, k := range slices.Sorted(maps.Keys(p.Properties)) {
		sub, field := p.Properties[k], props[k]
		if sub == nil || field == nil || field.Value == nil || sub.Unanswered || (sub.Type == "" && len(sub.AnyOf) == 0) {
			continue
		}
		name := at + k
		why := ""
		switch {
		case hasBranch(field, sub):
			continue // a oneOf of the answer takes what is sent (Directus's collection: its name, or the object)
		case arraySchema(field) && !sub.Accepts("array"):
			why = "sent as " + kindOf(sub) + ", answered as a list"
		case objectSchema(field) && !sub.Accepts("object"):
			if sub.Accepts("string") && hasKey(field) {
				r.report(w, name, "reference", seen, "a string sent is the key of the object the answer has (the skeleton holds it, with its key)")
				continue
			}
			why = "sent as " + kindOf(sub) + ", answered as an object"
		case objectSchema(field) && sub.Accepts("object"):
			r.retype(w, sub, field, name+".", seen, depth+1)
			continue
		case !arraySchema(field) && !objectSchema(field):
			why = scalarMismatch(sub, field)
		}
		if why != "" {
			sub.Unanswered = true
			r.report(w, name, "unanswered", seen, why+": the entity keeps its sample of the answer's schema")
		}
	}
}

func (r *restImport) report(w restWrite, name, fact string, seen map[string]bool, basis string) {
	if seen[fact+" "+name] {
		return
	}
	seen[fact+" "+name] = true
	r.im.report.AddInferred(w.resource, fact, name, w.method+" "+w.path+": "+basis, 0.8)
}

// scalarMismatch says why a scalar sent as p cannot be the answer's
// scalar a: another type, or enum values a refuses; "" when it can.
func scalarMismatch(p *reqschema.Schema, a *openapi3.SchemaRef) string {
	typ := ""
	for _, part := range append([]*openapi3.SchemaRef{a}, a.Value.AllOf...) {
		if part.Value != nil && part.Value.Type != nil && len(*part.Value.Type) == 1 {
			typ = (*part.Value.Type)[0]
			break
		}
	}
	if typ != "" && p.Type != "" && len(p.AnyOf) == 0 && p.Type != typ && !(typ == "number" && p.Type == "integer") {
		return "sent as " + p.Type + ", answered as " + typ
	}
	var refused []string
	for _, e := range p.Enum {
		var v any = e
		if typ == "integer" || typ == "number" {
			continue // an enum of numbers written as text
		}
		if !validates(a, v) {
			refused = append(refused, e)
		}
	}
	if len(refused) > 0 {
		return "sent as one of " + strings.Join(p.Enum, ", ") + ", of which the answer's schema refuses " + strings.Join(refused, ", ")
	}
	return ""
}

func kindOf(p *reqschema.Schema) string {
	if p.Type == "" {
		return "any type"
	}
	return p.Type
}

func arraySchema(s *openapi3.SchemaRef) bool {
	if s == nil || s.Value == nil {
		return false
	}
	if s.Value.Type.Is("array") {
		return true
	}
	for _, part := range s.Value.AllOf {
		if arraySchema(part) {
			return true
		}
	}
	return false
}

// hasKey reports whether an object schema has one of the key fields.
func hasKey(s *openapi3.SchemaRef) bool {
	props := answerProps(notNull(s))
	for _, k := range keyNames {
		if props[k] != nil {
			return true
		}
	}
	return false
}

// hasBranch reports whether one of the oneOf or anyOf branches of the
// answer's schema a is of a type the request schema p takes.
func hasBranch(a *openapi3.SchemaRef, p *reqschema.Schema) bool {
	for _, branches := range []openapi3.SchemaRefs{a.Value.OneOf, a.Value.AnyOf} {
		for _, b := range branches {
			if b.Value == nil || b.Value.Type == nil {
				continue
			}
			for _, t := range *b.Value.Type {
				if p.Accepts(t) {
					return true
				}
			}
		}
	}
	return false
}
