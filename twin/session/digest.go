package session

import (
	"crypto/sha256"
	"encoding/hex"
	"runtime"
	"sort"
	"sync"

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
// and the sha256 of its body as canonical JSON (keys sorted, no
// insignificant space), so two sessions that hold the same world have the
// same digest however they got there. Body hashes are computed once per
// entity version (see world.Entity.BodyHash), on all cores.
func (st *State) Digest() (string, int) {
	ents := st.Entities()
	bodyHashes(ents)
	h := sha256.New()
	buf := make([]byte, 0, 128)
	for _, e := range ents {
		sum := e.BodyHash()
		buf = append(buf[:0], e.Resource...)
		buf = append(buf, 0)
		buf = append(buf, e.ID...)
		buf = append(buf, 0)
		buf = append(buf, sum[:]...)
		buf = append(buf, '\n')
		h.Write(buf)
	}
	st.digestAttachment(h)
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), len(ents)
}

// bodyHashes computes the entities' body hashes that are not cached yet,
// spread over the available cores.
func bodyHashes(ents []*world.Entity) {
	workers := min(runtime.GOMAXPROCS(0), len(ents)/256+1)
	if workers < 2 {
		return // Digest computes them one by one
	}
	var wg sync.WaitGroup
	chunk := (len(ents) + workers - 1) / workers
	for lo := 0; lo < len(ents); lo += chunk {
		part := ents[lo:min(lo+chunk, len(ents))]
		wg.Go(func() {
			for _, e := range part {
				e.BodyHash()
			}
		})
	}
	wg.Wait()
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
		case before.BodyHash() != e.BodyHash():
			updated = append(updated, Update{Before: before, After: e})
		}
	}
	return created, updated, deleted
}
