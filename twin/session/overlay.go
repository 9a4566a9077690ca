package session

import (
	"slices"

	"github.com/wraithdev/wraith/twin/world"
)

// overlay is what a session changed over its starting world: new, changed
// and deleted (tombstoned) entities by id, and beside them the ids of each
// resource, so that a list of one resource reads its changes alone and
// never walks another's.
//
// Forks share it copy-on-write. A fork freezes the source's own changes
// into an immutable layer that both sessions then read through, and each
// goes on writing into a fresh set of its own; entities themselves are
// immutable, so nothing is copied up front and a write copies nothing
// either. A chain of frozen layers is flattened once it grows past
// maxLayers, so reads stay a few map lookups deep.
//
// An id names one entity whatever its resource (a session's Get, like its
// world's, takes an id alone), so a layer holds one version of each id and
// a layer above shadows an id whatever resource either version is of.
type overlay struct {
	own    changes // written since the last fork
	frozen *layer  // shared with forks; never written
	n      int     // distinct ids in own and frozen
}

// changes is one layer's set of changes. byRes partitions m's ids by the
// resource of the version m holds: each id of m is in exactly one list,
// its entity's resource's, once, and no list is empty.
type changes struct {
	m     map[string]*world.Entity
	byRes map[string][]string
}

// layer is a frozen, shared set of changes over its parent.
type layer struct {
	changes
	parent *layer
	depth  int
}

// maxLayers bounds the frozen chain: past it, a fork flattens the chain
// into one layer (one pass over the changes, amortised over the forks
// that built it).
const maxLayers = 8

func (o *overlay) get(id string) (*world.Entity, bool) {
	if e, ok := o.own.m[id]; ok {
		return e, true
	}
	for l := o.frozen; l != nil; l = l.parent {
		if e, ok := l.m[id]; ok {
			return e, true
		}
	}
	return nil, false
}

func (o *overlay) put(e *world.Entity) {
	if _, ok := o.get(e.ID); !ok {
		o.n++
	}
	o.own.put(e)
}

// put keeps e as the set's version of its id, and its id in its
// resource's list unless the previous version there was of the same
// resource already.
func (c *changes) put(e *world.Entity) {
	if c.m == nil {
		c.m = map[string]*world.Entity{}
		c.byRes = map[string][]string{}
	}
	prev, had := c.m[e.ID]
	c.m[e.ID] = e
	if had && prev.Resource == e.Resource {
		return
	}
	if had {
		// The id moves to another resource: rare (the engine keeps an id
		// to its resource), so a pass over the old resource's list is fine.
		c.unlist(prev.Resource, e.ID)
	}
	c.byRes[e.Resource] = append(c.byRes[e.Resource], e.ID)
}

// unlist takes id out of resource's list, and drops the list once empty
// so that a resource with a list always has changes.
func (c *changes) unlist(resource, id string) {
	ids := c.byRes[resource]
	if i := slices.Index(ids, id); i >= 0 {
		ids = slices.Delete(ids, i, i+1)
	}
	if len(ids) == 0 {
		delete(c.byRes, resource)
		return
	}
	c.byRes[resource] = ids
}

// len returns how many entities the session created, changed or deleted.
func (o *overlay) len() int { return o.n }

// each calls fn once per id with the session's current version of it.
func (o *overlay) each(fn func(e *world.Entity)) {
	for _, e := range o.own.m {
		fn(e)
	}
	for l := o.frozen; l != nil; l = l.parent {
		for id, e := range l.m {
			if !o.shadowed(id, l) {
				fn(e)
			}
		}
	}
}

// eachOf calls fn once per id whose current version is of resource, with
// that version: a pass over resource's lists, which costs what the
// session changed of resource and a map lookup per layer above each.
func (o *overlay) eachOf(resource string, fn func(e *world.Entity)) {
	for _, id := range o.own.byRes[resource] {
		fn(o.own.m[id])
	}
	for l := o.frozen; l != nil; l = l.parent {
		for _, id := range l.byRes[resource] {
			if !o.shadowed(id, l) {
				fn(l.m[id])
			}
		}
	}
}

// countOf returns at least how many ids eachOf(resource) gives, and at
// most as many more as layers above shadow: a capacity for its results.
func (o *overlay) countOf(resource string) int {
	n := len(o.own.byRes[resource])
	for l := o.frozen; l != nil; l = l.parent {
		n += len(l.byRes[resource])
	}
	return n
}

// has reports whether any id's current version is of resource. A layer's
// first id of resource that no layer above holds answers it; an id above
// of the same resource would have answered there, so only an id that moved
// to another resource is passed over, and the engine moves none.
func (o *overlay) has(resource string) bool {
	if len(o.own.byRes[resource]) > 0 {
		return true
	}
	for l := o.frozen; l != nil; l = l.parent {
		for _, id := range l.byRes[resource] {
			if !o.shadowed(id, l) {
				return true
			}
		}
	}
	return false
}

// shadowed reports whether a layer above l (or own) holds id.
func (o *overlay) shadowed(id string, l *layer) bool {
	if _, ok := o.own.m[id]; ok {
		return true
	}
	for u := o.frozen; u != l; u = u.parent {
		if _, ok := u.m[id]; ok {
			return true
		}
	}
	return false
}

// fork freezes the overlay's own changes and returns a second overlay
// sharing everything with it. Both go on writing into sets of their own.
func (o *overlay) fork() overlay {
	if len(o.own.m) > 0 {
		depth := 1
		if o.frozen != nil {
			depth = o.frozen.depth + 1
		}
		o.frozen = &layer{changes: o.own, parent: o.frozen, depth: depth}
		o.own = changes{}
	}
	if o.frozen != nil && o.frozen.depth > maxLayers {
		flat := changes{m: make(map[string]*world.Entity, o.n), byRes: map[string][]string{}}
		o.each(func(e *world.Entity) {
			flat.m[e.ID] = e
			flat.byRes[e.Resource] = append(flat.byRes[e.Resource], e.ID)
		})
		o.frozen = &layer{changes: flat, depth: 1}
	}
	return overlay{frozen: o.frozen, n: o.n}
}
