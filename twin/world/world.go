// Package world holds the starting worlds sessions begin from.
//
// A world is every entity a session sees before it changes anything: the
// entities the recordings observed, overlaid by the entities of one fixture
// set. Worlds are built once per fixture and shared read-only by every
// session that uses that fixture; a session keeps its own changes in an
// overlay (see package session), so an idle session costs almost nothing.
package world

import (
	"slices"
	"sort"
)

// Provenance says where an entity's current body came from. It is a
// byte, not the word it names, so that an entity spends no string on it.
type Provenance uint8

// Provenance values of entities. The zero value is none: a tombstone's,
// as a snapshot may write it.
const (
	Recorded Provenance = iota + 1
	Fixture
	Handler
)

var provenanceNames = [...]string{"", "recorded", "fixture", "handler"}

// ProvenanceNames returns the names an entity's provenance may take.
func ProvenanceNames() []string { return slices.Clone(provenanceNames[1:]) }

// String returns the provenance's name, "" for none.
func (p Provenance) String() string {
	if int(p) < len(provenanceNames) {
		return provenanceNames[p]
	}
	return ""
}

// ParseProvenance returns the provenance named name, and whether name is
// one ("" is none, and is one).
func ParseProvenance(name string) (Provenance, bool) {
	for i, n := range provenanceNames {
		if n == name {
			return Provenance(i), true
		}
	}
	return 0, false
}

// World is an immutable set of entities.
type World struct {
	entities map[string]*Entity
	lists    map[string][]*Entity // per resource, newest first
	seeded   int
}

// Builder assembles a world.
type Builder struct {
	w *World
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder {
	return &Builder{w: &World{entities: map[string]*Entity{}}}
}

// Put adds or replaces e.
func (b *Builder) Put(e *Entity) {
	b.w.entities[e.ID] = e
}

// Remove drops the entity with id.
func (b *Builder) Remove(id string) {
	delete(b.w.entities, id)
}

// Seeded records how many entities a fixture installed.
func (b *Builder) Seeded(n int) { b.w.seeded = n }

// From copies every entity of w into the builder.
func (b *Builder) From(w *World) {
	for id, e := range w.entities {
		b.w.entities[id] = e
	}
}

// Build returns the world. The builder must not be used afterwards.
func (b *Builder) Build() *World {
	w := b.w
	w.lists = map[string][]*Entity{}
	for _, e := range w.entities {
		w.lists[e.Resource] = append(w.lists[e.Resource], e)
	}
	for _, l := range w.lists {
		SortNewestFirst(l)
	}
	b.w = nil
	return w
}

// SortNewestFirst orders entities as providers list them: newest created
// first, ties broken by Seq (later first), then by id.
func SortNewestFirst(l []*Entity) {
	sort.Slice(l, func(i, j int) bool { return Newer(l[i], l[j]) })
}

// Newer reports whether a lists before b.
func Newer(a, b *Entity) bool {
	if a.Created != b.Created {
		return a.Created > b.Created
	}
	if a.Seq != b.Seq {
		return a.Seq > b.Seq
	}
	return a.ID > b.ID
}

// Get returns the entity with id, or nil.
func (w *World) Get(id string) *Entity {
	if w == nil {
		return nil
	}
	return w.entities[id]
}

// List returns the entities of a resource, newest first. The slice must not
// be modified.
func (w *World) List(resource string) []*Entity {
	if w == nil {
		return nil
	}
	return w.lists[resource]
}

// Len returns the number of entities.
func (w *World) Len() int {
	if w == nil {
		return 0
	}
	return len(w.entities)
}

// Seeded returns how many entities the world's fixture installed.
func (w *World) Seeded() int {
	if w == nil {
		return 0
	}
	return w.seeded
}

// Each calls fn for every entity, in no particular order.
func (w *World) Each(fn func(e *Entity)) {
	if w == nil {
		return
	}
	for _, e := range w.entities {
		fn(e)
	}
}
