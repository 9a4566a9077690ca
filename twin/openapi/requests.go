package openapi

import (
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/reqschema"
)

// RequestHooks is what Hooks implement when their provider reads a
// request's names otherwise than JSON Schema says, or when they know which
// parameters refer to entities (SPEC §13, request validation). Hooks
// without it get the description's schemas as JSON Schema reads them.
type RequestHooks interface {
	// ClosedObjects reports whether the provider refuses a name an
	// object schema does not list even where the description leaves
	// additionalProperties out (Stripe refuses card[foo]; JSON Schema
	// would accept it).
	ClosedObjects() bool
	// Requests adjusts the request schemas once they are built: which
	// parameters name an entity of a declared resource (Schema.Ref).
	Requests(f *reqschema.File)
}

// FormNamer is what Hooks implement when their dialect reads a form's
// parameter names as other fields than the names say (rest's FriendlyName
// is friendly_name, AutoCreation.WebhookUrl is auto_creation.webhook_url):
// a form body's schema is checked under the names its decoder gives.
type FormNamer interface {
	FormPath(name string) []string
}

// maxRequestDepth bounds how deeply a request schema is inlined: deeper
// values are accepted unchecked. Stripe's deepest request shapes have
// seven levels; a recursive schema stops here instead of looping.
const maxRequestDepth = 12

// requests builds the twin's requests.json from the description: one
// schema per operation it serves, of the parameters a client sends in the
// query and the body. It returns nil when no operation has any.
func (im *Importer) requests(hooks Hooks) *reqschema.File {
	rh, _ := hooks.(RequestHooks)
	b := requestBuilder{closed: rh != nil && rh.ClosedObjects()}
	b.namer, _ = hooks.(FormNamer)
	f := &reqschema.File{Format: reqschema.Format, Source: strings.TrimSpace(im.doc.Info.Title + " " + im.doc.Info.Version)}
	seen := map[string]bool{}
	for _, o := range im.ops {
		path := ServedPath(im.doc, o)
		key := o.Method + " " + path
		if seen[key] {
			// Box's /files/{id}#a and /files/{id}#b are one route: a
			// request cannot say which it is, so the first is checked.
			continue
		}
		seen[key] = true
		if reqschema.Indexable(o.Method, path) != nil {
			continue // not served either (Importer.Unservable reports it)
		}
		if p := b.params(o.Op); p != nil {
			f.Operations = append(f.Operations, reqschema.Operation{Method: o.Method, Path: path, Params: p})
		}
	}
	if len(f.Operations) == 0 {
		return nil
	}
	im.accept(f)
	if rh != nil {
		rh.Requests(f)
	}
	return f
}

// requestBuilder converts the description's schemas into request
// schemas.
type requestBuilder struct {
	closed bool      // objects refuse unlisted names unless they declare others
	namer  FormNamer // how a form's names are read; nil: as they are
}

// params is the object schema of an operation's query parameters and body
// members, or nil when the operation's body is not an object of named
// members (a bare array, text, a file), which is then not checked.
func (b requestBuilder) params(op *openapi3.Operation) *reqschema.Schema {
	s := &reqschema.Schema{Type: "object", Properties: map[string]*reqschema.Schema{}}
	if !b.closed {
		s.Additional = &reqschema.Schema{}
	}
	for _, pr := range op.Parameters {
		if pr == nil || pr.Value == nil || pr.Value.In != openapi3.ParameterInQuery {
			continue
		}
		p := pr.Value
		s.Properties[p.Name] = b.schema(p.Schema, 0)
		if sm, err := p.SerializationMethod(); err == nil {
			repeatExploded(s.Properties[p.Name], sm)
		}
		if p.Required {
			s.Required = append(s.Required, p.Name)
		}
	}
	body, media, form := requestBody(op)
	if b.namer != nil && (body == nil || form) {
		s = b.renamed(s) // the query's names are read as the form's are
	}
	if body != nil {
		bs := b.schema(body, 0)
		if form {
			for name, ps := range bs.Properties {
				repeatExploded(ps, media.Encoding[name].SerializationMethod())
			}
		}
		if form && b.namer != nil {
			bs = b.renamed(bs)
		}
		if bs.Type != "object" && bs.AnyOf == nil {
			return nil
		}
		if bs.AnyOf != nil || len(s.Properties) == 0 {
			// A body of alternatives is checked as they are; a query
			// declared beside it is rare enough to leave unchecked.
			return bs
		}
		for name, ps := range bs.Properties {
			s.Properties[name] = ps
		}
		s.Required = append(s.Required, bs.Required...)
		s.Additional = bs.Additional
	}
	if len(s.Properties) == 0 {
		// Nothing declared: a description that lists no parameter may
		// just not say which it takes, so nothing is checked.
		return nil
	}
	slices.Sort(s.Required)
	s.Required = slices.Compact(s.Required)
	return s
}

// requestBody is the schema of an operation's body in the media type its
// clients send, and that media type: a form first (Stripe), then JSON,
// then multipart; form says it is sent as form fields.
func requestBody(op *openapi3.Operation) (s *openapi3.SchemaRef, media *openapi3.MediaType, form bool) {
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return nil, nil, false
	}
	content := op.RequestBody.Value.Content
	for _, mt := range []string{"application/x-www-form-urlencoded", "application/json", "multipart/form-data"} {
		if m := content.Get(mt); m != nil && m.Schema != nil {
			return m.Schema, m, mt != "application/json"
		}
	}
	return nil, nil, false
}

// repeatExploded marks an array sent in OpenAPI's form style, exploded
// (the default of a query parameter and of a form field), as Repeated:
// its name is sent once per element. Stripe's deepObject arrays
// (expand[]=…) are not.
func repeatExploded(s *reqschema.Schema, sm *openapi3.SerializationMethod) {
	if s != nil && s.Type == "array" && sm.Style == openapi3.SerializationForm && sm.Explode {
		s.Repeated = true
	}
}

// renamed is a form body's object schema under the names the dialect
// reads its fields as: a name whose path has several parts is a member of
// nested objects, made as the decoder makes them.
func (b requestBuilder) renamed(s *reqschema.Schema) *reqschema.Schema {
	if s.Type != "object" || len(s.Properties) == 0 {
		return s
	}
	out := *s
	out.Properties = make(map[string]*reqschema.Schema, len(s.Properties))
	out.Required = nil
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		path := b.namer.FormPath(name)
		at := &out
		for _, part := range path[:len(path)-1] {
			next, ok := at.Properties[part]
			if !ok || next.Type != "object" {
				next = &reqschema.Schema{Type: "object", Properties: map[string]*reqschema.Schema{}, Additional: s.Additional}
				at.Properties[part] = next
			}
			at = next
		}
		leaf := path[len(path)-1]
		at.Properties[leaf] = s.Properties[name]
		if required[name] && len(path) == 1 {
			out.Required = append(out.Required, leaf)
		}
	}
	slices.Sort(out.Required)
	if len(s.AnyOf) > 0 {
		// Folded alternatives hold the object's names too
		// (foldAlternatives): the checker reads those.
		out.AnyOf = make([]*reqschema.Schema, len(s.AnyOf))
		for i, alt := range s.AnyOf {
			out.AnyOf[i] = b.renamed(alt)
		}
	}
	return &out
}

// schema converts one schema, inlining what it references.
func (b requestBuilder) schema(ref *openapi3.SchemaRef, depth int) *reqschema.Schema {
	if ref == nil || ref.Value == nil || depth > maxRequestDepth {
		return &reqschema.Schema{}
	}
	v := ref.Value
	out := &reqschema.Schema{Nullable: v.Nullable, MaxLength: maxLength(v)}
	switch {
	case v.Type.Is("object") || (v.Type == nil && (len(v.Properties) > 0 || len(v.Required) > 0)):
		out.Type = "object"
	case v.Type.Is("array"):
		out.Type = "array"
		out.Items = b.schema(v.Items, depth+1)
	case v.Type.Is("string"), v.Type.Is("integer"), v.Type.Is("number"), v.Type.Is("boolean"):
		out.Type = v.Type.Slice()[0]
		out.Format = requestFormat(v.Format)
	}
	if v.Type.Includes("null") {
		out.Nullable = true
	}
	for _, e := range v.Enum {
		if s, ok := enumText(e); ok {
			out.Enum = append(out.Enum, s)
		}
	}
	if out.Type == "object" {
		out.Properties = make(map[string]*reqschema.Schema, len(v.Properties))
		for name, p := range v.Properties {
			if p != nil && p.Value != nil && p.Value.ReadOnly {
				continue
			}
			out.Properties[name] = b.schema(p, depth+1)
		}
		out.Required = slices.Sorted(slices.Values(v.Required))
		byRequired := v.Type == nil && len(v.Properties) == 0 // an object by its required names alone
		switch ap := v.AdditionalProperties; {
		case ap.Schema != nil:
			out.Additional = b.schema(ap.Schema, depth+1)
		case ap.Has != nil && !*ap.Has:
		case ap.Has != nil && *ap.Has:
			out.Additional = &reqschema.Schema{}
		case byRequired && len(v.AllOf) > 0:
			// {"allOf": [X], "required": [...]}: X says which names the
			// object may have (merge).
		case !b.closed, requiresOnly(v):
			// A schema that only requires names ({"required": ["name"]},
			// an allOf part or an anyOf alternative) says nothing of
			// which names an object may have.
			out.Additional = &reqschema.Schema{}
		}
	}
	alts := append(slices.Clone(v.AnyOf), v.OneOf...)
	for _, a := range alts {
		out.AnyOf = append(out.AnyOf, b.schema(a, depth+1))
	}
	if len(v.AllOf) > 0 {
		b.merge(out, v.AllOf, depth)
	}
	foldAlternatives(out)
	return out
}

// requiresOnly reports whether v is an object constraint of required
// names alone: no type, properties, additionalProperties or parts.
func requiresOnly(v *openapi3.Schema) bool {
	ap := v.AdditionalProperties
	return v.Type == nil && len(v.Properties) == 0 && ap.Schema == nil && ap.Has == nil &&
		len(v.AllOf) == 0 && len(v.AnyOf) == 0 && len(v.OneOf) == 0 && len(v.Required) > 0
}

// foldAlternatives makes each object alternative of out an alternative
// of out's own object rules and its own: the checker reads a schema with
// alternatives by those alone, where the description means both
// (DigitalOcean's firewall create: the firewall's properties, "name"
// required, and anyOf inbound_rules or outbound_rules required). Only
// where out has properties and every alternative is an object. A merged
// alternative has the properties of both (the alternative's where both
// describe one, unless it says nothing of it), the required names of
// both, refuses other names where either does, and is folded in turn
// with alternatives of its own.
func foldAlternatives(out *reqschema.Schema) {
	if out.Type != "object" || len(out.Properties) == 0 || len(out.AnyOf) == 0 {
		return
	}
	for _, alt := range out.AnyOf {
		if alt == nil || alt.Type != "object" {
			return
		}
	}
	for i, alt := range out.AnyOf {
		merged := &reqschema.Schema{
			Type: "object", Nullable: out.Nullable && alt.Nullable,
			Properties: maps.Clone(out.Properties),
			Required:   slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(out.Required), alt.Required...)))),
			AnyOf:      alt.AnyOf,
		}
		for name, p := range alt.Properties {
			if merged.Properties[name] == nil || !anything(p) {
				merged.Properties[name] = p
			}
		}
		switch {
		case out.Additional == nil || alt.Additional == nil:
		case anything(alt.Additional):
			merged.Additional = out.Additional
		default:
			merged.Additional = alt.Additional
		}
		foldAlternatives(merged)
		out.AnyOf[i] = merged
	}
}

// anything reports whether s takes any value: a schema that says nothing.
func anything(s *reqschema.Schema) bool {
	return reflect.DeepEqual(s, &reqschema.Schema{})
}

// merge folds allOf's parts into out: their properties, required names
// and type, as one object a value must satisfy all of.
func (b requestBuilder) merge(out *reqschema.Schema, parts openapi3.SchemaRefs, depth int) {
	for _, part := range parts {
		ps := b.schema(part, depth+1)
		if out.Type == "" {
			out.Type = ps.Type
		}
		if ps.Type == "object" {
			if out.Properties == nil {
				out.Properties = map[string]*reqschema.Schema{}
			}
			for name, p := range ps.Properties {
				out.Properties[name] = p
			}
			out.Required = append(out.Required, ps.Required...)
			if ps.Additional != nil && (part.Value == nil || !requiresOnly(part.Value)) {
				out.Additional = ps.Additional
			}
		}
		out.AnyOf = append(out.AnyOf, ps.AnyOf...)
		out.Enum = append(out.Enum, ps.Enum...)
	}
	slices.Sort(out.Required)
	out.Required = slices.Compact(out.Required)
}

// requestFormat is the format the checker reads, of those a description
// writes; others are not checked.
func requestFormat(format string) string {
	switch format {
	case "decimal", "unix-time", "date-time", "date", "email", "uri":
		return format
	}
	return ""
}

// maxLength is a string schema's maxLength, 0 for none (or one past what
// an int holds).
func maxLength(v *openapi3.Schema) int {
	if v.MaxLength == nil || *v.MaxLength > 1<<31 {
		return 0
	}
	return int(*v.MaxLength)
}

// enumText is an enum value as the checker compares it: strings as they
// are, numbers and booleans as their text.
func enumText(e any) (string, bool) {
	switch t := e.(type) {
	case string:
		return t, true
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64), true
	case int:
		return strconv.Itoa(t), true
	case bool:
		return strconv.FormatBool(t), true
	}
	return "", false
}

// accept adds the overlay's accepted parameters to f, reporting each
// that names no operation or no place in its schema.
func (im *Importer) accept(f *reqschema.File) {
	for _, a := range im.ov.Accept {
		method, path, _ := strings.Cut(a.Op, " ")
		var op *reqschema.Operation
		for i := range f.Operations {
			if f.Operations[i].Method == method && f.Operations[i].Path == path {
				op = &f.Operations[i]
			}
		}
		if op == nil || !acceptAt(op.Params, strings.Split(a.Param, "."), a.Type) {
			im.report.AddUnresolved(a.Op, "overlay accept "+a.Param+": no such operation or place in its request schema: not added", "high")
		}
	}
}

// acceptAt adds the property at path (a segment ending in "[]" is an
// array's elements) to s; false when the path does not lead to an object.
func acceptAt(s *reqschema.Schema, path []string, typ string) bool {
	for _, seg := range path[:len(path)-1] {
		name, elems := strings.CutSuffix(seg, "[]")
		next := s.At(name)
		if elems {
			next = next.ItemsOf()
		}
		if next == nil {
			return false
		}
		s = next
	}
	if s.Type != "object" {
		return false
	}
	addProperty(s, path[len(path)-1], &reqschema.Schema{Type: typ})
	return true
}

// addProperty adds the property name to the object s and to each of its
// object alternatives, which hold its names too (foldAlternatives).
func addProperty(s *reqschema.Schema, name string, p *reqschema.Schema) {
	if s.Properties == nil {
		s.Properties = map[string]*reqschema.Schema{}
	}
	s.Properties[name] = p
	for _, alt := range s.AnyOf {
		if alt != nil && alt.Type == "object" {
			addProperty(alt, name, p)
		}
	}
}
