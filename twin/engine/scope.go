package engine

import (
	"strings"

	"github.com/wraithdev/wraith/twin/route"
	"github.com/wraithdev/wraith/twin/world"
)

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
func (x *Keys) ByID() bool {
	return x.KeyField == "id" && x.KeyPrefix == "" && len(x.AddrParams) == 0
}

// inPathScope reports whether ent belongs to the parents the matched path
// names; a parent the path does not name matches any value.
func (r *Resource) InPathScope(ent *world.Entity, m *route.Match[*Endpoint]) bool {
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
	return !named || InScope(ent.Scope, want)
}

// scoped returns the session's entity at id when the matched path's
// parents hold it, else nil.
func (r *Resource) Scoped(ent *world.Entity, m *route.Match[*Endpoint]) *world.Entity {
	if ent != nil && !r.InPathScope(ent, m) {
		return nil
	}
	return ent
}

// shownID is the id an answer names for an entity stored at addr: the
// address without its resource name and parents' values, so a keyed
// entity whose key is its id answers its tombstone and not-found with
// "person_1", not "person:acct_1/person_1".
func (r *Resource) ShownID(addr string) string {
	x := r.Keys
	if !x.Keyed || x.ByID() || x.KeyField != "id" {
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
