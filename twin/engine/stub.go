package engine

import (
	"encoding/json"
	"strings"

	"github.com/wraithdev/wraith/twin/object"
)

// stub is a create's answer where the provider answers a stub of the new
// entity o (format.Keys.CreateBody): tmpl with each string "$" replaced
// by the entity whole (whole, its answer's encoding), each "$.field" by
// that field's value, each "$.field as number" by the number a string
// field's text is (Jira answers a project's id "10000" as 10000; text
// that is no JSON number stays the string it is), and each {field} in
// another string by its text. A field o does not have is null, or empty
// text.
func stub(tmpl map[string]any, o *object.Object, whole []byte) []byte {
	b, err := json.Marshal(stubValue(tmpl, o, whole))
	if err != nil {
		return []byte("{}") // the values come from an object that encodes: unreachable
	}
	return b
}

func stubValue(v any, o *object.Object, whole []byte) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = stubValue(e, o, whole)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = stubValue(e, o, whole)
		}
		return out
	case string:
		if t == "$" {
			return json.RawMessage(whole)
		}
		if f, ok := strings.CutPrefix(t, "$."); ok {
			f, number := strings.CutSuffix(f, asNumber)
			fv, _ := o.Get(f)
			if s, ok := fv.(string); ok && number && json.Valid([]byte(s)) && isNumber(s) {
				return json.RawMessage(s)
			}
			return json.RawMessage(object.AppendValue(nil, fv))
		}
		return fillFields(t, o)
	}
	return v
}

// asNumber ends a create_body's "$.field" that answers a string field
// as the number its text is.
const asNumber = " as number"

// isNumber reports whether s, valid JSON, is a number.
func isNumber(s string) bool {
	return s != "" && (s[0] == '-' || s[0] >= '0' && s[0] <= '9')
}

// fillFields replaces each {field} of s by o's field as text.
func fillFields(s string, o *object.Object) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '{')
		j := strings.IndexByte(s[i+1:], '}')
		if i < 0 || j < 0 {
			break
		}
		fv, _ := o.Get(s[i+1 : i+1+j])
		text := keyText(fv)
		if text == "" && fv != nil {
			text = valueText(fv)
		}
		b.WriteString(s[:i])
		b.WriteString(text)
		s = s[i+1+j+1:]
	}
	b.WriteString(s)
	return b.String()
}
