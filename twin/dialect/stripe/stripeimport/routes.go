package stripeimport

import (
	"regexp"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/openapi"
)

// literalPattern matches a url pattern that is a literal path prefix.
var literalPattern = regexp.MustCompile(`^\^(/[A-Za-z0-9_./-]*)$`)

// templateBody is an operation's template answer: a list envelope with no
// items, else an instance of its schema.
func (im *importer) templateBody(s *openapi3.SchemaRef, path string) any {
	if kind, items := isList(s.Value); kind != "" {
		env, _ := im.Sample(s).(map[string]any)
		if env == nil {
			env = map[string]any{}
		}
		// A list the twin cannot model holds one instance of its items,
		// as stripe-mock's does: a template answer is sample data, under
		// --unknown-entity synthesize only; not_found answers the
		// session's (empty) contents instead (SPEC §13).
		data := []any{}
		if ref := openapi.Pick(items, ""); ref != nil {
			if name := openapi.ObjectEnum(schemaOf(ref)); name != "" {
				o, _ := im.instance(ref, name)
				data = append(data, o)
			}
		}
		env["object"], env["data"], env["has_more"] = kind, data, false
		url := path
		if u := s.Value.Properties["url"]; u != nil && u.Value != nil {
			if m := literalPattern.FindStringSubmatch(u.Value.Pattern); m != nil {
				url = m[1]
			}
		}
		if _, ok := s.Value.Properties["url"]; ok {
			env["url"] = url
		}
		return env
	}
	ref := openapi.Pick(s, "")
	if name := openapi.ObjectEnum(schemaOf(ref)); name != "" {
		o, _ := im.instance(ref, name)
		return o
	}
	return im.Sample(s)
}

// isList reports whether s is a list envelope, {object: "list", data: [...]}
// or a search result, and returns the item schema.
func isList(s *openapi3.Schema) (kind string, items *openapi3.SchemaRef) {
	if s == nil {
		return "", nil
	}
	o := openapi.ObjectEnum(s)
	if o != "list" && o != "search_result" {
		return "", nil
	}
	data := s.Properties["data"]
	if data == nil || data.Value == nil || data.Value.Items == nil {
		return "", nil
	}
	return o, data.Value.Items
}
