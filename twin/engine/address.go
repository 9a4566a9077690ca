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
func (r *Resource) Address(m *route.Match[*Endpoint]) string {
	if !r.Keys.Keyed {
		return m.Param("id")
	}
	x := r.Keys
	if x.ByID() {
		return m.Param(x.KeyParam)
	}
	var b strings.Builder
	b.WriteString(r.Name)
	b.WriteByte(':')
	for _, p := range x.AddrParams {
		b.WriteString(m.Param(p))
		b.WriteByte('/')
	}
	b.WriteString(x.KeyPrefix)
	b.WriteString(m.Param(x.KeyParam))
	return b.String()
}

// scopeOf returns the values of r's parents for a request: its path's
// values, else the declared defaults ("" for neither).
func (x *Keys) ScopeOf(m *route.Match[*Endpoint]) []string {
	vals := make([]string, len(x.Parents))
	for i, p := range x.Parents {
		if v := m.Param(p); v != "" {
			vals[i] = v
		} else {
			vals[i] = x.ParentDefaults[p]
		}
	}
	return vals
}

func (x *Keys) parentValue(scope []string, name string) string {
	for i, p := range x.Parents {
		if p == name {
			return scope[i]
		}
	}
	return ""
}

// addressOf is the address of an entity of r with scope and key text.
func (r *Resource) AddressOf(scope []string, key string) string {
	x := r.Keys
	if !x.Keyed || x.ByID() {
		return key
	}
	var b strings.Builder
	b.WriteString(r.Name)
	b.WriteByte(':')
	for _, p := range x.AddrParams {
		b.WriteString(x.parentValue(scope, p))
		b.WriteByte('/')
	}
	b.WriteString(key)
	return b.String()
}

// keyText is a key field's value as a path carries it.
func KeyText(v any) string {
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
func InScope(scope string, want []string) bool {
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
func setKey(o *object.Object, res *Resource, req *request, scrub func(string, any) any) {
	if !res.Keys.Keyed {
		o.Set("id", scrub("id", req.match.Param("id")))
		return
	}
	x := res.Keys
	v := x.KeyPrefix + req.match.Param(x.KeyParam)
	if _, isNumber := res.Skeleton.Get(x.KeyField); isNumber {
		if cur, _ := res.Skeleton.Get(x.KeyField); cur != nil {
			if _, ok := cur.(json.Number); ok {
				if n, err := strconv.ParseInt(v, 10, 64); err == nil {
					// Written anew: +7 or 007 in a path is no JSON number.
					o.Set(x.KeyField, json.Number(strconv.FormatInt(n, 10)))
					return
				}
			}
		}
	}
	o.Set(x.KeyField, scrub(x.KeyField, v))
}

// scopeText is the scope of the item a request names.
func (r *Resource) scopeText(req *request) string {
	return joinSlash(r.Keys.ScopeOf(req.match))
}
