package session

import (
	"maps"
	"slices"

	"github.com/wraithdev/wraith/twin/world"
)

// A durable store writes a session whole when it is made or replaced
// (Change.Whole) and, after every other change, only what changed: the
// state's counters, generator and clock, and the entities and remembered
// answers the change wrote. Both are read in the shape snapshots have
// (StateDoc), so the disk and GET snapshot share one codec. The state
// keeps the list of what changed only for a store that asks (track): a
// store without a persister does no bookkeeping at all.

// TakeDelta returns what changed in s since the last TakeDelta or Whole:
// the whole of the state's counters, generator, sequence and clock, and
// the entities (tombstones included) and remembered answers written
// since, each once, in the order they were last written. Call it only
// from Persister.Persist, where the state cannot change.
func (s *Session) TakeDelta() (StateDoc, error) {
	st := &s.st
	d, err := st.scalars()
	if err != nil {
		return d, err
	}
	d.Entities = make([]EntityDoc, 0, len(st.dirty))
	seen := make(map[string]bool, len(st.dirty))
	for i := len(st.dirty) - 1; i >= 0; i-- { // the last write of an id wins
		e := st.dirty[i]
		if !seen[e.ID] {
			seen[e.ID] = true
			d.Entities = append(d.Entities, entityDoc(e))
		}
	}
	slices.Reverse(d.Entities)
	if len(st.dirtyIdem) > 0 {
		d.Idempotency = make(map[string]*Replay, len(st.dirtyIdem))
		for _, k := range st.dirtyIdem {
			d.Idempotency[k] = st.idem[k]
		}
	}
	st.clearDirty()
	return d, nil
}

// Whole returns s as a snapshot of the twin named twin with digest
// twinDigest, as SnapshotOf does, without taking s's lock and without the
// session's digest, which would hash its whole world on every creation
// and reset (a restore never reads it). Call it only from
// Persister.Persist, where the state cannot change.
func (s *Session) Whole(twin, twinDigest string) (Snapshot, error) {
	doc := s.snapshotHead(twin, twinDigest)
	var err error
	doc.StateDoc, err = s.st.Doc()
	s.st.clearDirty()
	return doc, err
}

// SetProvisioned sets whether the session counts as provisioned, as a
// durable store read it back, without telling the persister (the store
// already knows).
func (s *Session) SetProvisioned(p bool) { s.provisioned.Store(p) }

// scalars is the state's counters, generator, sequence and clock.
func (st *State) scalars() (StateDoc, error) {
	gen, err := st.rng.MarshalBinary()
	if err != nil {
		return StateDoc{}, err
	}
	return StateDoc{
		ClockPos: st.pos.Load(), Generator: gen, Seq: st.seq, Requests: st.requests.Load(),
		Counters: maps.Clone(st.counters), RateEnd: st.rateEnd, RateCount: st.rateCount,
		FaultCounts: slices.Clone(st.fault.counts),
	}, nil
}

// noteEntity remembers that e was written, for the next TakeDelta.
func (st *State) noteEntity(e *world.Entity) {
	if st.track {
		st.dirty = append(st.dirty, e)
	}
}

// noteReplay remembers that the answer under key was stored.
func (st *State) noteReplay(key string) {
	if st.track {
		st.dirtyIdem = append(st.dirtyIdem, key)
	}
}

func (st *State) clearDirty() {
	clear(st.dirty)
	st.dirty = st.dirty[:0]
	st.dirtyIdem = st.dirtyIdem[:0]
}
