package durable

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

	bolt "go.etcd.io/bbolt"

	"github.com/wraithdev/wraith/twin/session"
)

// checkpointed is a session as state.db keeps it: whole, as of record Seq.
type checkpointed struct {
	Seq         uint64           `json:"seq"`
	Provisioned bool             `json:"provisioned"`
	Snapshot    session.Snapshot `json:"snapshot"`
}

// replaying is a session being rebuilt from the checkpoint and journal.
type replaying struct {
	checkpointed
	index   map[string]int // entity id → its place in Snapshot.Entities, built on the first delta
	touched bool           // the journal changed it: checkpoint it before serving
}

// recover reads the checkpoint, replays the journal over it, cuts a torn
// tail, and checkpoints what the journal changed, so the journal starts
// empty and serving starts from one place.
func (st *Store) recover() error {
	if err := st.checkHeader(); err != nil {
		return err
	}
	sessions := map[string]*replaying{}
	err := st.db.View(func(tx *bolt.Tx) error {
		// Decoded side by side, one worker per core: the values stay
		// valid while the read transaction is open.
		var keys, vals [][]byte
		tx.Bucket(sessionsBucket).ForEach(func(k, v []byte) error {
			keys, vals = append(keys, k), append(vals, v)
			return nil
		})
		rs := make([]*replaying, len(keys))
		errs := make([]error, len(keys))
		var next atomic.Int64
		var wg sync.WaitGroup
		for range min(runtime.GOMAXPROCS(0), len(keys)) {
			wg.Go(func() {
				for i := int(next.Add(1) - 1); i < len(keys); i = int(next.Add(1) - 1) {
					ck, err := decodeCheckpoint(vals[i])
					rs[i] = &replaying{checkpointed: ck}
					if err != nil {
						errs[i] = fmt.Errorf("%w: the checkpoint of session %q in %s does not read: %v. Nothing was changed: copy the folder aside to keep what it holds, and start the twin with another --state-dir", ErrDamaged, keys[i], dbFile, err)
					}
				}
			})
		}
		wg.Wait()
		for i, r := range rs {
			if errs[i] != nil {
				return errs[i]
			}
			sessions[string(keys[i])] = r
			st.seq = max(st.seq, r.Seq)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("state folder %s: %w", st.opts.Dir, err)
	}
	// journal.old, if a checkpoint of it was under way, comes first: its
	// records are all older than the journal's.
	payloads, err := readOld(st.opts.Dir)
	if err != nil {
		return fmt.Errorf("state folder %s: %w", st.opts.Dir, err)
	}
	path := filepath.Join(st.opts.Dir, journalFile)
	_, statErr := os.Stat(path)
	j, newer, cutAt, cutBytes, err := openJournal(path)
	if err != nil {
		return fmt.Errorf("state folder %s: %w", st.opts.Dir, err)
	}
	st.j = j
	st.j.ahead = st.ahead()
	payloads = append(payloads, newer...)
	if os.IsNotExist(statErr) {
		if err := syncDir(st.opts.Dir); err != nil {
			return err
		}
	}
	st.report.CutAt, st.report.CutBytes = cutAt, cutBytes
	if cutAt >= 0 {
		st.log.Warn("cut a torn record off the end of the journal: the process stopped while writing it, and nobody was answered for it", "file", path, "offset", cutAt, "bytes", cutBytes, "kept", fmt.Sprintf("%s.torn-%d", path, cutAt))
	}
	named := map[string]bool{} // sessions the journal names
	for i, f := range payloads {
		rec, err := decodeRecord(f.payload)
		if err != nil {
			return fmt.Errorf("state folder %s: journal record %d does not read (%v), though its checksum holds: it was written by another wraith version; serve it with that version, or remove the folder to start over", st.opts.Dir, i, err)
		}
		rec.Seq = f.seq
		st.seq = max(st.seq, rec.Seq)
		named[rec.Session] = true
		if apply(sessions, &rec) {
			st.report.Records++
		}
	}
	st.recovered = make([]Recovered, 0, len(sessions))
	for _, r := range sessions {
		st.recovered = append(st.recovered, Recovered{Provisioned: r.Provisioned, Snapshot: r.Snapshot})
		st.report.Entities += len(r.Snapshot.Entities)
	}
	sort.Slice(st.recovered, func(i, j int) bool { return st.recovered[i].Snapshot.Session < st.recovered[j].Snapshot.Session })
	st.report.Sessions = len(st.recovered)
	if st.report.Records == 0 && len(payloads) == 0 {
		if err := st.dropOld(); err != nil { // an old journal with no records
			return err
		}
		return st.db.Update(st.stampHeader)
	}
	// Checkpoint what the journal changed, and start the journal over.
	// An older folder's header says this format in the same transaction:
	// its checkpoints are this format's from here on.
	err = st.db.Update(func(tx *bolt.Tx) error {
		if err := st.stampHeader(tx); err != nil {
			return err
		}
		b := tx.Bucket(sessionsBucket)
		for name := range named {
			if _, ok := sessions[name]; !ok { // deleted since its checkpoint
				if err := b.Delete([]byte(name)); err != nil {
					return err
				}
			}
		}
		for name, r := range sessions {
			if !r.touched {
				continue
			}
			if err := b.Put([]byte(name), encodeCheckpoint(&r.checkpointed)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("state folder %s: checkpoint the journal: %w", st.opts.Dir, err)
	}
	if err := st.dropOld(); err != nil {
		return fmt.Errorf("state folder %s: %w", st.opts.Dir, err)
	}
	return st.j.reset()
}

// ahead is how far the journal is written ahead of its records: growBy,
// or an eighth of a smaller checkpoint bound, so that the folder stays
// near the bound it was given.
func (st *Store) ahead() int64 { return min(growBy, st.opts.CheckpointBytes/8) }

// apply replays rec over sessions, unless the checkpoint already holds
// it; it reports whether it changed anything.
func apply(sessions map[string]*replaying, rec *record) bool {
	r := sessions[rec.Session]
	if r != nil && rec.Seq <= r.Seq {
		return false // the checkpoint holds it
	}
	switch rec.Op {
	case opWhole:
		if rec.Whole == nil {
			return false
		}
		sessions[rec.Session] = &replaying{checkpointed: checkpointed{Seq: rec.Seq, Provisioned: rec.Provisioned, Snapshot: *rec.Whole}, touched: true}
		return true
	case opDeleted:
		if r == nil {
			return false
		}
		delete(sessions, rec.Session)
		return true
	case opProvisioned:
		if r == nil {
			return false
		}
		r.Provisioned, r.Seq, r.touched = true, rec.Seq, true
		return true
	case opDelta:
		if r == nil || rec.Delta == nil {
			return false // a write of a session deleted meanwhile
		}
		r.merge(rec.Delta)
		r.Seq, r.touched = rec.Seq, true
		return true
	}
	return false
}

// merge lays a delta over the session: its counters, generator and clock
// replace the session's, its entities and answers replace or join them.
func (r *replaying) merge(d *session.StateDoc) {
	s := &r.Snapshot.StateDoc
	s.ClockPos, s.Generator, s.Seq, s.Requests = d.ClockPos, d.Generator, d.Seq, d.Requests
	s.Counters, s.RateEnd, s.RateCount, s.FaultCounts = d.Counters, d.RateEnd, d.RateCount, d.FaultCounts
	if len(d.Entities) > 0 && r.index == nil {
		r.index = make(map[string]int, len(s.Entities))
		for i, e := range s.Entities {
			r.index[e.ID] = i
		}
	}
	for _, e := range d.Entities {
		if i, ok := r.index[e.ID]; ok {
			s.Entities[i] = e
			continue
		}
		r.index[e.ID] = len(s.Entities)
		s.Entities = append(s.Entities, e)
	}
	if len(d.Idempotency) > 0 && s.Idempotency == nil {
		s.Idempotency = make(map[string]*session.Replay, len(d.Idempotency))
	}
	for k, v := range d.Idempotency {
		s.Idempotency[k] = v
	}
}

// syncDir makes a new file's name in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
