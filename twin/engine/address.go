package engine

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/route"
)

// address is the key an entity is stored under in a session: the id for
// a resource addressed by id, else the resource's name and the item
// path's values ("issue:octocat/hello/7"), so an item read under another
// parent misses.
func (r *resource) address(m *route.Match[*endpoint]) string {
	if !r.ext.keyed {
		return m.Param("id")
	}
	x := r.ext
	if x.byID() {
		return m.Param(x.keyParam)
	}
	var b strings.Builder
	b.WriteString(r.name)
	b.WriteByte(':')
	for _, p := range x.addrParams {
		b.WriteString(m.Param(p))
		b.WriteByte('/')
	}
	b.WriteString(x.keyPrefix)
	b.WriteString(m.Param(x.keyParam))
	return b.String()
}

// scopeOf returns the values of r's parents for a request: its path's
// values, else the declared defaults ("" for neither).
func (x *ext) scopeOf(m *route.Match[*endpoint]) []string {
	vals := make([]string, len(x.parents))
	for i, p := range x.parents {
		if v := m.Param(p); v != "" {
			vals[i] = v
		} else {
			vals[i] = x.defaults[p]
		}
	}
	return vals
}

func (x *ext) parentValue(scope []string, name string) string {
	for i, p := range x.parents {
		if p == name {
			return scope[i]
		}
	}
	return ""
}

// addressOf is the address of an entity of r with scope and key text.
func (r *resource) addressOf(scope []string, key string) string {
	x := r.ext
	if !x.keyed || x.byID() {
		return key
	}
	var b strings.Builder
	b.WriteString(r.name)
	b.WriteByte(':')
	for _, p := range x.addrParams {
		b.WriteString(x.parentValue(scope, p))
		b.WriteByte('/')
	}
	b.WriteString(key)
	return b.String()
}

// keyText is a key field's value as a path carries it.
func keyText(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case json.Number:
		return string(t)
	}
	return ""
}

// inScope reports whether an entity's scope matches want, position by
// position; "" in want matches anything.
func inScope(scope string, want []string) bool {
	for _, w := range want {
		v, rest, _ := strings.Cut(scope, "/")
		if w != "" && v != w {
			return false
		}
		scope = rest
	}
	return true
}

// setKey fills the key of an object synthesized for an item path: its id,
// or its key field (a number when the skeleton's is one) for keyed
// resources.
func setKey(o *object.Object, res *resource, req *request, scrub func(string, any) any) {
	if !res.ext.keyed {
		o.Set("id", scrub("id", req.match.Param("id")))
		return
	}
	x := res.ext
	v := x.keyPrefix + req.match.Param(x.keyParam)
	if _, isNumber := res.skeleton.Get(x.keyField); isNumber {
		if cur, _ := res.skeleton.Get(x.keyField); cur != nil {
			if _, ok := cur.(json.Number); ok {
				if n, err := strconv.ParseInt(v, 10, 64); err == nil {
					// Written anew: +7 or 007 in a path is no JSON number.
					o.Set(x.keyField, json.Number(strconv.FormatInt(n, 10)))
					return
				}
			}
		}
	}
	o.Set(x.keyField, scrub(x.keyField, v))
}

// scopeText is the scope of the item a request names.
func (r *resource) scopeText(req *request) string {
	return joinSlash(r.ext.scopeOf(req.match))
}
