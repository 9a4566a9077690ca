package canon

import (
	"errors"
	"fmt"
	"strings"
)

// MaxDepth is how many bracket levels a parameter key may have
// (a[b][c] has two) and how deeply a JSON body passed to Params may nest.
const MaxDepth = 32

// Params decodes a request's parameters into a tree of map[string]any and
// []any, the way Stripe reads them. Form and query values are strings:
//
//   - a key a[b][c]=v sets {"a":{"b":{"c":"v"}}};
//   - a[]=x&a[]=y appends: {"a":["x","y"]}; "[]" must be the last bracket;
//   - an object whose keys are exactly 0..n-1 (a[0]=x&a[1]=y,
//     a[0][price]=p) becomes a list, in index order whatever the order of
//     the parameters. Other numeric keys stay object keys, because Stripe
//     metadata may be keyed by numbers (metadata[7]=x), and only the API
//     schema tells the two apart. A list is never built by index, so a
//     hostile a[999999999] costs what any other key costs;
//   - a repeated plain key keeps its last value;
//   - a key used as an object or list after a value (a=1&a[b]=2) is an
//     error, as are malformed brackets, an empty name, and more than
//     MaxDepth levels; a value after an object (a[b]=2&a=1) replaces it;
//   - a JSON body must hold an object; it is decoded with json.Number for
//     numbers, bool for true and false, nil for null. A number that no
//     64-bit float holds (1e999) is a *NumberError naming its key: served
//     back, it would be text that JSON decoders refuse.
//
// Query parameters are read first; a body parameter replaces a query
// parameter of the same top-level name. Bodies of other media types add
// nothing. When the error is nil, the map is not.
func Params(contentType string, body []byte, query string) (map[string]any, error) {
	var params map[string]any
	if query != "" {
		params = map[string]any{}
		if err := decodePairs(params, "query", query); err != nil {
			return nil, err
		}
	}
	var fromBody map[string]any
	switch mediaOf(contentType) {
	case mediaForm:
		fromBody = map[string]any{}
		if err := decodePairs(fromBody, "form", string(body)); err != nil {
			return nil, err
		}
	case mediaJSON:
		var err error
		if fromBody, err = jsonParams(body); err != nil {
			return nil, err
		}
	}
	if len(params) == 0 {
		if fromBody == nil {
			return map[string]any{}, nil
		}
		return fromBody, nil
	}
	for k, v := range fromBody {
		params[k] = v
	}
	return params, nil
}

// decodePairs adds the parameters of a query string or form body s to
// root.
func decodePairs(root map[string]any, kind, s string) error {
	var segs [MaxDepth]string
	for s != "" {
		var pair string
		pair, s, _ = strings.Cut(s, "&")
		if pair == "" {
			continue
		}
		rawKey, rawValue, _ := strings.Cut(pair, "=")
		key, err := unescape(rawKey)
		if err != nil {
			return fmt.Errorf("%s key %q has %w", kind, rawKey, err)
		}
		value, err := unescape(rawValue)
		if err != nil {
			return fmt.Errorf("%s value of key %q has %w", kind, key, err)
		}
		name, n, err := splitKey(key, &segs)
		if err != nil {
			return fmt.Errorf("%s key %q %w", kind, key, err)
		}
		if err := set(root, name, segs[:n], value); err != nil {
			return fmt.Errorf("%s key %q %w", kind, key, err)
		}
	}
	for k, v := range root {
		if m, ok := v.(map[string]any); ok {
			root[k] = listify(m)
		}
	}
	return nil
}

// splitKey splits a decoded key such as a[b][] into its name and bracket
// segments ("a"; "b", ""). Errors complete the sentence `form key "k" ...`.
func splitKey(key string, segs *[MaxDepth]string) (name string, n int, err error) {
	i := indexBracket(key)
	if i < 0 {
		i = len(key)
	}
	if name = key[:i]; name == "" {
		return "", 0, errors.New("has an empty name")
	}
	for rest := key[i:]; rest != ""; {
		if rest[0] == ']' {
			return "", 0, fmt.Errorf("has an unmatched %q", "]")
		}
		if rest[0] != '[' {
			return "", 0, errors.New("has text after a closing bracket")
		}
		j := indexBracket(rest[1:])
		if j < 0 {
			return "", 0, errors.New("has an unclosed bracket")
		}
		if rest[1+j] == '[' {
			return "", 0, fmt.Errorf("has a %q inside brackets", "[")
		}
		if n > 0 && segs[n-1] == "" {
			return "", 0, fmt.Errorf("has %q before another bracket: use an index, as in a[0][b]", "[]")
		}
		if n == MaxDepth {
			return "", 0, fmt.Errorf("nests deeper than %d levels", MaxDepth)
		}
		segs[n] = rest[1 : 1+j]
		n++
		rest = rest[2+j:]
	}
	return name, n, nil
}

// indexBracket returns the position of the first "[" or "]" in s, or -1.
// Keys are short: a loop beats strings.IndexAny, which builds a set of
// its characters first.
func indexBracket(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '[' || s[i] == ']' {
			return i
		}
	}
	return -1
}

// set stores value under name and segs in root. Errors complete the
// sentence `form key "k" ...`.
func set(root map[string]any, name string, segs []string, value string) error {
	m, k := root, name
	for i, seg := range segs {
		if seg == "" { // a[]: splitKey made sure it is the last segment
			switch cur := m[k].(type) {
			case nil:
				m[k] = []any{value}
			case []any:
				m[k] = append(cur, value)
			default:
				return conflict(name, segs[:i], cur)
			}
			return nil
		}
		switch cur := m[k].(type) {
		case nil:
			next := map[string]any{}
			m[k] = next
			m = next
		case map[string]any:
			m = cur
		default:
			return conflict(name, segs[:i], cur)
		}
		k = seg
	}
	// A plain value replaces what an earlier key made of its name, as
	// Stripe's parameter parser (Rack's) lets it: stripe-go sends
	// external_account[token]=tok&external_account=tok for a token. The
	// other way round (a=1&a[b]=2) is refused, as Rack refuses it.
	m[k] = value
	return nil
}

// conflict says that the parameter at name and segs already holds have,
// of another shape than the key being set needs.
func conflict(name string, segs []string, have any) error {
	var b strings.Builder
	b.WriteString(name)
	for _, s := range segs {
		b.WriteString("[" + s + "]")
	}
	shape := "a value"
	switch have.(type) {
	case map[string]any:
		shape = "an object"
	case []any:
		shape = "a list"
	}
	return fmt.Errorf("conflicts with an earlier key: %q is already %s", b.String(), shape)
}

// listify turns, depth first, every object whose keys are exactly
// "0".."n-1" into a list.
func listify(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	dense := true
	for k, c := range m {
		m[k] = listify(c)
		if i, ok := Index(k); !ok || i >= len(m) {
			dense = false
		}
	}
	if !dense {
		return m
	}
	// n distinct indices below n: each of 0..n-1 exactly once.
	list := make([]any, len(m))
	for k, c := range m {
		i, _ := Index(k)
		list[i] = c
	}
	return list
}

// Index reads k as a list index, as a form's a[0] names one: decimal
// digits without a leading zero, at most nine of them.
func Index(k string) (int, bool) {
	if k == "" || len(k) > 9 || (k[0] == '0' && len(k) > 1) {
		return 0, false
	}
	n := 0
	for i := 0; i < len(k); i++ {
		if k[i] < '0' || k[i] > '9' {
			return 0, false
		}
		n = n*10 + int(k[i]-'0')
	}
	return n, true
}
