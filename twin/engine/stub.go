package engine

import (
	"encoding/json"
	"strings"

	"github.com/wraithdev/wraith/twin/object"
)

// stub is a create's answer where the provider answers a stub of the new
// entity o (format.Keys.CreateBody): tmpl with each string "$" replaced
// by the entity whole (whole, its answer's encoding), each "$.field" by
// that field's value and each {field} in another string by its text. A
// field o does not have is null, or empty text.
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
			fv, _ := o.Get(f)
			return json.RawMessage(object.AppendValue(nil, fv))
		}
		return fillFields(t, o)
	}
	return v
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
