package session

import "github.com/wraithdev/wraith/twin/world"

// overlay is what a session changed over its starting world: new, changed
// and deleted (tombstoned) entities by id.
//
// Forks share it copy-on-write. A fork freezes the source's own changes
// into an immutable layer that both sessions then read through, and each
// goes on writing into a fresh map of its own; entities themselves are
// immutable, so nothing is copied up front and a write copies nothing
// either. A chain of frozen layers is flattened once it grows past
// maxLayers, so reads stay a few map lookups deep.
type overlay struct {
	own    map[string]*world.Entity // written since the last fork
	frozen *layer                   // shared with forks; never written
	n      int                      // distinct ids in own and frozen
}

// layer is a frozen, shared set of changes over its parent.
type layer struct {
	m      map[string]*world.Entity
	parent *layer
	depth  int
}

// maxLayers bounds the frozen chain: past it, a fork flattens the chain
// into one layer (one pass over the changes, amortised over the forks
// that built it).
const maxLayers = 8

func (o *overlay) get(id string) (*world.Entity, bool) {
	if e, ok := o.own[id]; ok {
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
	e.Renew()
	if _, ok := o.get(e.ID); !ok {
		o.n++
	}
	if o.own == nil {
		o.own = map[string]*world.Entity{}
	}
	o.own[e.ID] = e
}

// len returns how many entities the session created, changed or deleted.
func (o *overlay) len() int { return o.n }

// each calls fn once per id with the session's current version of it.
func (o *overlay) each(fn func(e *world.Entity)) {
	for _, e := range o.own {
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

// shadowed reports whether a layer above l (or own) holds id.
func (o *overlay) shadowed(id string, l *layer) bool {
	if _, ok := o.own[id]; ok {
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
// sharing everything with it. Both go on writing into maps of their own.
func (o *overlay) fork() overlay {
	if len(o.own) > 0 {
		depth := 1
		if o.frozen != nil {
			depth = o.frozen.depth + 1
		}
		o.frozen = &layer{m: o.own, parent: o.frozen, depth: depth}
		o.own = nil
	}
	if o.frozen != nil && o.frozen.depth > maxLayers {
		flat := make(map[string]*world.Entity, o.n)
		o.each(func(e *world.Entity) { flat[e.ID] = e })
		o.frozen = &layer{m: flat, depth: 1}
	}
	return overlay{frozen: o.frozen, n: o.n}
}
