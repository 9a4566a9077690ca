package canon

import "strings"

// Repeated is every plain name (no bracket key) that a request's query or
// form body sends more than once, with its values in the order sent:
// OpenAPI's form style, exploded, sends a list so
// (Permission=a&Permission=b), where Params keeps the last value. A name
// the form body sends in any form (a, a[k], a[]) replaces the query's,
// as in Params; so does every top-level name of a JSON body, which sends
// its own lists as JSON. nil when no name repeats, or when the request
// does not read (Params then refuses it).
func Repeated(contentType string, body []byte, query string) map[string][]any {
	var fromBody map[string][]any
	var bodyNames map[string]bool
	switch mediaOf(contentType) {
	case mediaForm:
		var ok bool
		if fromBody, bodyNames, ok = plainValues(string(body)); !ok {
			return nil
		}
	case mediaJSON:
		p, err := jsonParams(body)
		if err != nil {
			return nil
		}
		bodyNames = make(map[string]bool, len(p))
		for k := range p {
			bodyNames[k] = true
		}
	}
	fromQuery, _, ok := plainValues(query)
	if !ok {
		return nil
	}
	var out map[string][]any
	add := func(k string, vs []any) {
		if len(vs) < 2 {
			return
		}
		if out == nil {
			out = map[string][]any{}
		}
		out[k] = vs
	}
	for k, vs := range fromQuery {
		if !bodyNames[k] {
			add(k, vs)
		}
	}
	for k, vs := range fromBody {
		add(k, vs)
	}
	return out
}

// plainValues is every value of each plain name of the encoded pairs s,
// in order, and the set of every name s sends, plainly or with brackets;
// ok is false when a key or value does not unescape.
func plainValues(s string) (vals map[string][]any, names map[string]bool, ok bool) {
	for s != "" {
		var pair string
		pair, s, _ = strings.Cut(s, "&")
		if pair == "" {
			continue
		}
		rawKey, rawValue, _ := strings.Cut(pair, "=")
		key, err := unescape(rawKey)
		if err != nil {
			return nil, nil, false
		}
		name := key
		if i := indexBracket(key); i >= 0 {
			name = key[:i]
		}
		if names == nil {
			names = map[string]bool{}
		}
		names[name] = true
		if name != key || name == "" {
			continue // a bracketed key: Params builds its list or object
		}
		value, err := unescape(rawValue)
		if err != nil {
			return nil, nil, false
		}
		if vals == nil {
			vals = map[string][]any{}
		}
		vals[name] = append(vals[name], value)
	}
	return vals, names, true
}
