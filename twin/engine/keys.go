package engine

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/route"
	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/world"
)

// How a session keys its entities: a new entity's ids and key, the
// address an entity is stored under, and the scope of its parents.

// address is the key an entity is stored under in a session: the id for
// a resource addressed by id, else the resource's name and the item
// path's values ("issue:octocat/hello/7"), so an item read under another
// parent misses.
func address(r *compiled.Resource, m *route.Match[*compiled.Endpoint]) string {
	if !r.Keys.Keyed {
		return m.Param("id")
	}
	x := r.Keys
	if byID(x) {
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
func scopeOf(x *compiled.Keys, m *route.Match[*compiled.Endpoint]) []string {
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

func parentValue(x *compiled.Keys, scope []string, name string) string {
	for i, p := range x.Parents {
		if p == name {
			return scope[i]
		}
	}
	return ""
}

// addressOf is the address of an entity of r with scope and key text.
func addressOf(r *compiled.Resource, scope []string, key string) string {
	x := r.Keys
	if !x.Keyed || byID(x) {
		return key
	}
	var b strings.Builder
	b.WriteString(r.Name)
	b.WriteByte(':')
	for _, p := range x.AddrParams {
		b.WriteString(parentValue(x, scope, p))
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

// Resources with parents that are not keyed by path (a customer's tax ids
// and sources, an account's persons and external accounts). Their ids are unique on
// their own, so an entity whose item path is the resource's own
// (/v1/tax_ids/{id}) is stored under its id (byID) and its parents only
// scope it: a path that names a parent (/v1/customers/{customer}/tax_ids/{id})
// reads, changes and deletes only the entities of that parent, and lists
// only them. An entity under another parent is, at that path, as absent
// as at the provider.

// byID reports whether a keyed resource's entities are stored under their
// id alone: the key is "id", unprefixed, and the item path carries no
// parent.
func byID(x *compiled.Keys) bool {
	return x.KeyField == "id" && x.KeyPrefix == "" && len(x.AddrParams) == 0
}

// inPathScope reports whether ent belongs to the parents the matched path
// names; a parent the path does not name matches any value.
func inPathScope(r *compiled.Resource, ent *world.Entity, m *route.Match[*compiled.Endpoint]) bool {
	x := r.Keys
	if len(x.Parents) == 0 {
		return true
	}
	want := make([]string, len(x.Parents))
	named := false
	for i, p := range x.Parents {
		if want[i] = m.Param(p); want[i] != "" {
			named = true
		}
	}
	return !named || inScope(ent.Scope(), want)
}

// scoped returns the session's entity at id when the matched path's
// parents hold it, else nil.
func scoped(r *compiled.Resource, ent *world.Entity, m *route.Match[*compiled.Endpoint]) *world.Entity {
	if ent != nil && !inPathScope(r, ent, m) {
		return nil
	}
	return ent
}

// shownID is the id an answer names for an entity stored at addr: the
// address without its resource name and parents' values, so a keyed
// entity answers its tombstone and not-found with the key its path
// names, "person_1" (or Twilio's "RL…" sid), not "person:acct_1/person_1".
func shownID(r *compiled.Resource, addr string) string {
	x := r.Keys
	if !x.Keyed || byID(x) {
		return addr
	}
	rest, ok := strings.CutPrefix(addr, r.Name+":")
	if !ok {
		return addr
	}
	for range x.AddrParams {
		_, rest, _ = strings.Cut(rest, "/")
	}
	return rest
}

// timeValue is a session time as the resource writes it.
func timeValue(x *compiled.Keys, now int64) any {
	if x.RFC3339 {
		return time.Unix(now, 0).UTC().Format(time.RFC3339)
	}
	return json64(now)
}

// setKey fills the key of an object synthesized for an item path: its id,
// or its key field (a number when the skeleton's is one) for keyed
// resources.
func setKey(o *object.Object, res *compiled.Resource, req *request, scrub func(string, any) any) {
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

// fillIDs sets a new entity's id (by id_kind) and, for a numbered
// resource, its key from the counter of its scope.
func (e *Engine) fillIDs(st *session.State, res *compiled.Resource, scope []string, o *object.Object) {
	x := res.Keys
	id := e.dialect.NewID(st, x.IDKind, res.IDPrefix)
	switch id.(type) {
	case nil:
	case string:
		o.Set("id", e.scrubbed("id", id)) // id as it is: a string made an interface again would be a copy
	default:
		o.Set("id", id)
	}
	if x.Counter != "" {
		o.Set(x.KeyField, json64(st.Next(x.Counter+"\x00"+strings.Join(scope, "/"))))
	}
}

// finishKey returns the key text of a new entity, giving the key field
// its prefix when the request left it out.
func (e *Engine) finishKey(res *compiled.Resource, o *object.Object) string {
	x := res.Keys
	v, _ := o.Get(x.KeyField)
	key := keyText(v)
	if key != "" && x.KeyPrefix != "" && !strings.HasPrefix(key, x.KeyPrefix) {
		key = x.KeyPrefix + key
		o.Set(x.KeyField, key)
	}
	return key
}

func joinSlash(s []string) string { return strings.Join(s, "/") }

func json64(n int64) json.Number {
	return json.Number(strconv.FormatInt(n, 10))
}
