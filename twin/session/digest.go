package session

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"sort"

	"github.com/wraithdev/wraith/twin/canon"
	"github.com/wraithdev/wraith/twin/world"
)

// Entities returns every entity the session sees, deletions left out,
// sorted by object type and then id: its starting world under its
// changes.
func (st *State) Entities() []*world.Entity {
	out := make([]*world.Entity, 0, st.entityCount())
	st.world.Each(func(e *world.Entity) {
		if _, changed := st.overlay.get(e.ID); !changed {
			out = append(out, e)
		}
	})
	st.overlay.each(func(e *world.Entity) {
		if !e.Deleted {
			out = append(out, e)
		}
	})
	sortEntities(out)
	return out
}

func sortEntities(l []*world.Entity) {
	sort.Slice(l, func(i, j int) bool {
		if l[i].Resource != l[j].Resource {
			return l[i].Resource < l[j].Resource
		}
		return l[i].ID < l[j].ID
	})
}

// Digest returns the sha256 of the session's entities in canonical form
// and how many there are. Each entity contributes its object type, its id
// and its body as canonical JSON (keys sorted, no insignificant space), so
// two sessions that hold the same world have the same digest however they
// got there.
func (st *State) Digest() (string, int) {
	ents := st.Entities()
	h := sha256.New()
	var buf []byte
	for _, e := range ents {
		buf = buf[:0]
		buf = append(buf, e.Resource...)
		buf = append(buf, 0)
		buf = append(buf, e.ID...)
		buf = append(buf, 0)
		h.Write(buf)
		h.Write(canonical(e.Body))
		h.Write([]byte{'\n'})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), len(ents)
}

// canonical returns body as canonical JSON; a body that does not parse
// (which the engine never stores) is hashed as it is.
func canonical(body []byte) []byte {
	c, err := canon.JSON(body)
	if err != nil || c == nil {
		return body
	}
	return c
}

// Update is an entity the session changed: its starting and current
// bodies.
type Update struct {
	Before, After *world.Entity
}

// Diff returns what the session changed since it was provisioned or last
// reset, each list sorted by object type and id: entities it created (and
// still holds), entities of its starting world whose body it changed, and
// entities of its starting world it deleted. An entity changed back to its
// starting body is not an update.
func (st *State) Diff() (created []*world.Entity, updated []Update, deleted []*world.Entity) {
	var changed []*world.Entity
	st.overlay.each(func(e *world.Entity) { changed = append(changed, e) })
	sortEntities(changed)
	for _, e := range changed {
		before := st.world.Get(e.ID)
		switch {
		case before == nil && !e.Deleted:
			created = append(created, e)
		case before == nil:
			// created and deleted again: not in either world
		case e.Deleted:
			deleted = append(deleted, before)
		case !bytes.Equal(canonical(before.Body), canonical(e.Body)):
			updated = append(updated, Update{Before: before, After: e})
		}
	}
	return created, updated, deleted
}
