package rest

import (
	"slices"
	"strings"

	"github.com/wraithdev/wraith/twin/canon"
)

// Params reads a request as every dialect does (canon), then, unless the
// body is JSON, reads a name that starts with a capital letter as its
// snake_case form: form-encoding APIs take FriendlyName and answer
// friendly_name (Twilio), and an entity's fields are the answer's
// names; a dotted name of such parts (AutoCreation.WebhookUrl) sets the
// nested field (auto_creation.webhook_url). A JSON body keeps its names
// as sent. A multipart body is read as the form it stands for (formOf).
func (Dialect) Params(contentType string, body []byte, query string) (map[string]any, error) {
	contentType, body, err := formOf(contentType, body)
	if err != nil {
		return nil, err
	}
	p, err := canon.Params(contentType, body, query)
	if err != nil || isJSON(contentType) {
		return p, err
	}
	for _, k := range slices.Sorted(mapKeys(p)) {
		if path, ok := dotted(k); ok {
			nest(p, path, p[k])
			delete(p, k)
			continue
		}
		if s, ok := snake(k); ok {
			if _, taken := p[s]; !taken {
				p[s] = p[k]
			}
			delete(p, k)
		}
	}
	return p, nil
}

// dotted is a name of PascalCase parts joined by dots as the path of
// snake_case fields it sets (Twilio's AutoCreation.WebhookUrl sets
// auto_creation.webhook_url); ok is false for any other name.
func dotted(name string) ([]string, bool) {
	if !strings.Contains(name, ".") {
		return nil, false
	}
	parts := strings.Split(name, ".")
	for i, part := range parts {
		s, ok := snake(part)
		if !ok {
			return nil, false
		}
		parts[i] = s
	}
	return parts, true
}

// nest sets v at path in p, making the objects on the way; a value
// already there that is no object is kept, and v dropped.
func nest(p map[string]any, path []string, v any) {
	for _, k := range path[:len(path)-1] {
		next, ok := p[k].(map[string]any)
		if !ok {
			if _, taken := p[k]; taken {
				return
			}
			next = map[string]any{}
			p[k] = next
		}
		p = next
	}
	if _, taken := p[path[len(path)-1]]; !taken {
		p[path[len(path)-1]] = v
	}
}

// FlatParams is Params' fast path, renaming alike.
func (Dialect) FlatParams(dst []canon.FlatParam, contentType string, body []byte, query string) ([]canon.FlatParam, bool) {
	start := len(dst)
	contentType, body, err := formOf(contentType, body)
	if err != nil {
		return dst, false // Params refuses it
	}
	flat, ok := canon.FlatParams(dst, contentType, body, query)
	if !ok || isJSON(contentType) {
		return flat, ok
	}
	renamed := false
	for i := start; i < len(flat); i++ {
		if strings.Contains(flat[i].Name, ".") {
			return dst, false // a dotted name nests: Params reads it
		}
		if s, ok := snake(flat[i].Name); ok {
			flat[i].Name, renamed = s, true
		}
	}
	if renamed {
		// Params' answer is sorted by name, then key; a name sent in both
		// spellings is refused to Params, which keeps the snake_case one.
		slices.SortStableFunc(flat[start:], func(a, b canon.FlatParam) int {
			if c := strings.Compare(a.Name, b.Name); c != 0 {
				return c
			}
			return strings.Compare(a.Key, b.Key)
		})
		for i := start + 1; i < len(flat); i++ {
			if flat[i].Name == flat[i-1].Name && flat[i].Key == flat[i-1].Key {
				return dst, false
			}
		}
	}
	return flat, true
}

// Repeated is canon.Repeated under the names Params reads them as
// (Permission=a&Permission=b is permission's list); a dotted name of
// PascalCase parts, which Params nests, is left to it, and where both
// spellings repeat, the snake_case one's list is the name's, as in
// Params. The engine takes a list only where its last value is the
// tree's.
func (Dialect) Repeated(contentType string, body []byte, query string) map[string][]any {
	contentType, body, err := formOf(contentType, body)
	if err != nil {
		return nil
	}
	rep := canon.Repeated(contentType, body, query)
	if rep == nil || isJSON(contentType) {
		return rep // Params renames nothing beside a JSON body
	}
	out := make(map[string][]any, len(rep))
	for k, vs := range rep {
		if _, nests := dotted(k); nests {
			continue // Params nests it: not a top-level name
		}
		s := Snake(k)
		if _, both := rep[s]; both && s != k {
			continue // the snake_case spelling is sent too, and Params keeps it
		}
		out[s] = vs
	}
	return out
}

func isJSON(contentType string) bool { return strings.Contains(contentType, "json") }

// FormPath is the field path a form or query parameter name is read as
// (see Params): a dotted name's snake_case parts, a PascalCase name's
// snake_case form, else the name itself.
func FormPath(name string) []string {
	if path, ok := dotted(name); ok {
		return path
	}
	return []string{Snake(name)}
}

// Snake is the name a form or query parameter is read as: a PascalCase
// name's snake_case form (see Params), else the name itself.
func Snake(name string) string {
	if s, ok := snake(name); ok {
		return s
	}
	return name
}

// snake is a PascalCase name's snake_case form (FriendlyName:
// friendly_name, SmsUrl: sms_url, SIPDomainSid: sip_domain_sid); ok is
// false for a name that does not start with a capital letter or holds
// anything but letters and digits.
func snake(name string) (string, bool) {
	if name == "" || name[0] < 'A' || name[0] > 'Z' {
		return "", false
	}
	var b strings.Builder
	b.Grow(len(name) + 4)
	for i := 0; i < len(name); i++ {
		c := name[i]
		upper := 'A' <= c && c <= 'Z'
		if !upper && !('a' <= c && c <= 'z') && !('0' <= c && c <= '9') {
			return "", false
		}
		if upper && i > 0 {
			prev := name[i-1]
			nextLower := i+1 < len(name) && 'a' <= name[i+1] && name[i+1] <= 'z'
			if !('A' <= prev && prev <= 'Z') || nextLower {
				b.WriteByte('_')
			}
		}
		if upper {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String(), true
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
