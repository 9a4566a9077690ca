package session

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/wraithdev/wraith/twin/world"
)

// StateDoc is a session's state as a snapshot document carries it: with
// the twin and the session's settings (which rebuild the starting world)
// it recreates the session exactly. Entities are what the session changed
// over its starting world, deletions included.
type StateDoc struct {
	ClockPos    int64              `json:"clock_pos_ns"`
	Generator   []byte             `json:"generator"` // the id generator's state (PCG, binary)
	Seq         uint64             `json:"seq"`
	Requests    uint64             `json:"requests"`
	Counters    map[string]int64   `json:"counters"`
	RateEnd     int64              `json:"rate_window_end_ns"`
	RateCount   int                `json:"rate_window_count"`
	FaultCounts []RuleCount        `json:"fault_counts"`
	Entities    []EntityDoc        `json:"entities"`
	Idempotency map[string]*Replay `json:"idempotency"`
	// Attachment is the session's dialect state (attach.go), absent for
	// none, so documents without it still read. Only snapshots carry it,
	// not a durable store's records.
	Attachment []byte `json:"attachment,omitempty"`
}

// EntityDoc is one changed entity in a snapshot.
type EntityDoc struct {
	ID         string          `json:"id"`
	Object     string          `json:"object"`
	Body       json.RawMessage `json:"body"`
	Created    int64           `json:"created"`
	Seq        uint64          `json:"seq"`
	Provenance string          `json:"provenance"`
	Exchange   string          `json:"exchange,omitempty"`
	Deleted    bool            `json:"deleted,omitempty"`
	Scope      string          `json:"scope,omitempty"`
}

// Doc returns the session's state as a snapshot document.
func (st *State) Doc() (StateDoc, error) {
	gen, err := st.rng.MarshalBinary()
	if err != nil {
		return StateDoc{}, fmt.Errorf("snapshot the id generator: %w", err)
	}
	d := StateDoc{
		ClockPos: st.pos.Load(), Generator: gen, Seq: st.seq, Requests: st.requests.Load(),
		Counters: maps.Clone(st.counters), RateEnd: st.rateEnd, RateCount: st.rateCount,
		FaultCounts: slices.Clone(st.fault.counts), Idempotency: maps.Clone(st.idem),
		Entities: []EntityDoc{},
	}
	var changed []*world.Entity
	st.overlay.each(func(e *world.Entity) { changed = append(changed, e) })
	sortEntities(changed)
	for _, e := range changed {
		d.Entities = append(d.Entities, entityDoc(e))
	}
	return d, nil
}

// entityDoc is e as a snapshot carries it.
func entityDoc(e *world.Entity) EntityDoc {
	return EntityDoc{
		ID: e.ID, Object: e.Resource, Body: e.Body(), Created: e.Created, Seq: e.Seq,
		Provenance: e.Provenance.String(), Exchange: e.Exchange(), Deleted: e.Deleted, Scope: e.Scope(),
	}
}

// Restore returns a session named name with settings set over world w,
// in the state d describes. d comes from outside: it is refused (an
// *apierr.Error, invalid-snapshot) unless Validate passes it.
func Restore(name string, set Settings, w *world.World, d *StateDoc) (*Session, error) {
	return restore(name, set, w, d, checkBodies)
}

// RestoreWritten is Restore for a document a durable store wrote from a
// session of this process and read back whole (each record and
// checkpoint carries a checksum): every check Restore makes but the parse
// of each entity's body, which was a JSON object when the session held it
// and is the same bytes now. Parsing 100,000 bodies again would be most of
// a restart's work.
func RestoreWritten(name string, set Settings, w *world.World, d *StateDoc) (*Session, error) {
	return restore(name, set, w, d, trustBodies)
}

func restore(name string, set Settings, w *world.World, d *StateDoc, bodies bodyCheck) (*Session, error) {
	if err := d.validate(bodies); err != nil {
		return nil, err
	}
	s := New(name, set, w, true)
	st := &s.st
	if err := st.rng.UnmarshalBinary(d.Generator); err != nil {
		return nil, fmt.Errorf("generator: %w", err)
	}
	st.pos.Store(d.ClockPos)
	st.requests.Store(d.Requests)
	st.seq = d.Seq
	st.counters, st.rateEnd, st.rateCount = maps.Clone(d.Counters), d.RateEnd, d.RateCount
	st.fault.counts = slices.Clone(d.FaultCounts)
	st.idem = maps.Clone(d.Idempotency)
	for i, ed := range d.Entities {
		if _, dup := st.overlay.get(ed.ID); dup {
			return nil, invalid(fmt.Sprintf("entities[%d].id", i), "entity %q appears twice: a session holds one version of each", ed.ID)
		}
		provenance, _ := world.ParseProvenance(ed.Provenance) // Validate checked it
		e := &world.Entity{ID: ed.ID, Resource: ed.Object, Created: ed.Created, Seq: ed.Seq,
			Provenance: provenance, Deleted: ed.Deleted}
		e.SetPlace(ed.Exchange, ed.Scope)
		e.SetBody([]byte(ed.Body))
		inWorld := w.Get(e.ID) != nil
		switch {
		case e.Deleted && inWorld:
			st.removed++
		case !e.Deleted && !inWorld:
			st.added++
		}
		st.overlay.put(e)
	}
	s.publish()
	return s, nil
}

// Restore stores the session d describes under name, unless name is
// taken (ErrExists).
func (st *Store) Restore(name string, set Settings, w *world.World, d *StateDoc) (*Session, error) {
	return st.restore(name, set, w, d, checkBodies)
}

// RestoreWritten is Restore through RestoreWritten: for the sessions a
// durable store gives back at start.
func (st *Store) RestoreWritten(name string, set Settings, w *world.World, d *StateDoc) (*Session, error) {
	return st.restore(name, set, w, d, trustBodies)
}

func (st *Store) restore(name string, set Settings, w *world.World, d *StateDoc, bodies bodyCheck) (*Session, error) {
	s, err := restore(name, set, w, d, bodies)
	if err != nil {
		return nil, err
	}
	if err := st.restoreAttachment(s, d.Attachment); err != nil {
		return nil, err
	}
	return st.add(name, s, Restored)
}
