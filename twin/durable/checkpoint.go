package durable

import (
	"sort"

	bolt "go.etcd.io/bbolt"

	"github.com/wraithdev/wraith/twin/session"
)

// checkpoint writes every session the journal names, whole, into
// state.db, and starts the journal over. It runs in the committer's place
// (between commits, or at Close), so no record is written meanwhile;
// records queued meanwhile go into the new journal. Each session is read
// under its lock with a sequence number taken there, so the checkpoint
// holds exactly its records up to that number, and a replay skips them.
func (st *Store) checkpoint() error {
	st.mu.Lock()
	dirty := st.dirty
	st.dirty = map[string]*session.Session{}
	st.mu.Unlock()
	if len(dirty) == 0 {
		return nil
	}
	names := make([]string, 0, len(dirty))
	for name := range dirty {
		names = append(names, name)
	}
	sort.Strings(names)
	vals := make(map[string][]byte, len(dirty))
	for _, name := range names {
		s := dirty[name]
		if s == nil {
			continue
		}
		var (
			ck  checkpointed
			err error
		)
		s.Hold(func() {
			st.mu.Lock()
			st.seq++
			ck.Seq = st.seq
			st.mu.Unlock()
			_, ck.Provisioned = s.Settings()
			ck.Snapshot, err = s.Whole(st.opts.Twin, st.opts.TwinDigest)
		})
		if err != nil {
			return err
		}
		if vals[name], err = encode(&ck); err != nil {
			return err
		}
	}
	// A session deleted (and perhaps made again) after the swap but before
	// it was read here has its deletion queued with a lower number than
	// its checkpoint: writing it would bring it back on replay. Its name
	// is dirty again, for another session or for none; leave it out, and
	// the new journal's records of the name replay over nothing.
	st.mu.Lock()
	for name := range vals {
		if now, ok := st.dirty[name]; ok && now != dirty[name] {
			delete(vals, name)
		}
	}
	st.mu.Unlock()
	err := st.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(sessionsBucket)
		for _, name := range names {
			v, ok := vals[name]
			if !ok {
				if err := b.Delete([]byte(name)); err != nil {
					return err
				}
				continue
			}
			if err := b.Put([]byte(name), v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return st.j.reset()
}
