package canon

import (
	"cmp"
	"slices"
	"strings"
)

// FlatParam is one parameter of a flat form: Name=Value when Key is "",
// else Name[Key]=Value.
type FlatParam struct {
	Name, Key, Value string
}

// FlatParams decodes a request's parameters as Params does, without
// building its tree, for the form a client usually sends: a form body, no
// query, and every key a plain name or a name with one bracket key
// (email=..., metadata[order]=...). It appends the parameters to dst,
// sorted by name and then key, a repeated key keeping its last value as
// Params keeps it, and reports true. Params' tree of the same request has
// a string for each plain name and, for each bracketed name, an object of
// its keys.
//
// It reports false, and appends nothing, for every other request: another
// media type or a query; a key of two bracket levels or an appended list
// (a[]=x); a bracket key that is a list index (a[0]=x), which Params may
// turn into a list; a name used both plainly and with brackets; an escape
// or a key that Params refuses. Params then reads the request and says
// what is wrong with it.
func FlatParams(dst []FlatParam, contentType string, body []byte, query string) ([]FlatParam, bool) {
	if query != "" || mediaOf(contentType) != mediaForm {
		return dst, false
	}
	start := len(dst)
	var segs [MaxDepth]string
	for s := string(body); s != ""; {
		var pair string
		pair, s, _ = strings.Cut(s, "&")
		if pair == "" {
			continue
		}
		rawKey, rawValue, _ := strings.Cut(pair, "=")
		key, err := unescape(rawKey)
		if err != nil {
			return dst[:start], false
		}
		value, err := unescape(rawValue)
		if err != nil {
			return dst[:start], false
		}
		name, n, err := splitKey(key, &segs)
		if err != nil || n > 1 {
			return dst[:start], false
		}
		p := FlatParam{Name: name, Value: value}
		if n == 1 {
			if p.Key = segs[0]; p.Key == "" {
				return dst[:start], false
			}
			if _, isIndex := Index(p.Key); isIndex {
				return dst[:start], false
			}
		}
		dst = append(dst, p)
	}
	params := dst[start:]
	slices.SortStableFunc(params, func(a, b FlatParam) int {
		if c := cmp.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	})
	// Keep the last of each run of one name and key; refuse a name that
	// is both plain and bracketed (the plain one sorts first).
	kept := 0
	for i, p := range params {
		if i+1 < len(params) && params[i+1].Name == p.Name {
			if params[i+1].Key == p.Key {
				continue
			}
			if p.Key == "" {
				return dst[:start], false
			}
		}
		params[kept] = p
		kept++
	}
	return dst[:start+kept], true
}
