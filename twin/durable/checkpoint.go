package durable

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	bolt "go.etcd.io/bbolt"

	"github.com/wraithdev/wraith/twin/session"
)

// oldJournalFile is the journal before the current one, while the
// sessions it names are checkpointed beside the committer; it is removed
// once state.db holds them.
const oldJournalFile = "journal.old"

// rotate retires the journal once it has passed its bound: it becomes
// journal.old, a new journal takes the next records, and the sessions the
// old one names are checkpointed on a goroutine of their own. So no write
// waits for a checkpoint: the committer goes on syncing groups into the
// new journal while state.db is written. The committer calls it between
// commits, and only once the last checkpoint is done, so there is at most
// one old journal.
func (st *Store) rotate() error {
	cur, old := filepath.Join(st.opts.Dir, journalFile), filepath.Join(st.opts.Dir, oldJournalFile)
	if err := os.Rename(cur, old); err != nil {
		return fmt.Errorf("retire %s: %w", journalFile, err)
	}
	if err := st.j.close(); err != nil {
		return fmt.Errorf("close the retired journal: %w", err)
	}
	j, err := newJournal(cur)
	if err != nil {
		return fmt.Errorf("start a new %s: %w", journalFile, err)
	}
	j.ahead = st.ahead()
	// One folder sync makes both names durable: the rename and the new
	// file. Only then may a record go into the new journal.
	if err := syncDir(st.opts.Dir); err != nil {
		j.close()
		return fmt.Errorf("sync %s after starting a new journal: %w", st.opts.Dir, err)
	}
	st.j = j
	// Every record written so far is in journal.old, and every session
	// they name is in dirty. Records queued but not yet committed go
	// into the new journal, and their sessions may be left out of the
	// next dirty set: the checkpoint reads each session after taking
	// this set, so it holds them.
	st.mu.Lock()
	dirty := st.dirty
	st.dirty = map[string]*session.Session{}
	st.mu.Unlock()
	done := make(chan struct{})
	st.ckptDone = done
	go func() {
		defer close(done)
		st.hook("checkpoint")
		if err := st.checkpoint(dirty); err != nil {
			st.fail(fmt.Errorf("checkpoint: %w", err))
			return
		}
		st.hook("drop")
		if err := st.dropOld(); err != nil {
			st.fail(err)
		}
	}()
	return nil
}

func (st *Store) hook(step string) {
	if st.testHook != nil {
		st.testHook(step)
	}
}

// checkpointing reports whether a checkpoint started by rotate is still
// being written.
func (st *Store) checkpointing() bool {
	if st.ckptDone == nil {
		return false
	}
	select {
	case <-st.ckptDone:
		return false
	default:
		return true
	}
}

// dropOld removes journal.old, once state.db holds all it says.
func (st *Store) dropOld() error {
	err := os.Remove(filepath.Join(st.opts.Dir, oldJournalFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("remove %s after checkpointing it: %w", oldJournalFile, err)
	}
	return syncDir(st.opts.Dir)
}

// checkpointAll writes every session the journals name into state.db and
// starts the journal over: what Close does, once the committer and any
// checkpoint started by rotate are done.
func (st *Store) checkpointAll() error {
	st.mu.Lock()
	dirty := st.dirty
	st.dirty = map[string]*session.Session{}
	st.mu.Unlock()
	if err := st.checkpoint(dirty); err != nil {
		return err
	}
	if err := st.dropOld(); err != nil {
		return err
	}
	return st.j.reset()
}

// checkpoint writes the sessions of dirty, whole, into state.db (a nil
// one is deleted from it). Each session is read under its lock with a
// sequence number taken there, so the checkpoint holds exactly its records
// up to that number, and a replay skips them.
func (st *Store) checkpoint(dirty map[string]*session.Session) error {
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
		// Encoded outside the session's lock: its requests need not
		// wait for the encoding of the session whole.
		vals[name] = encodeCheckpoint(&ck)
	}
	// A session deleted (and perhaps made again) after dirty was taken
	// but before it was read here has its deletion queued with a lower
	// number than its checkpoint: writing it would bring it back on
	// replay. Its name is dirty again, for another session or for none;
	// leave it out, and the new journal's records of the name replay
	// over nothing.
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
	st.checkpoints.Add(1)
	return nil
}

// readOld reads journal.old, if there is one. It was synced whole before
// it was retired, so every byte of it must read: a record that does not is
// damage, not a torn write, and the start is refused.
func readOld(dir string) ([]frame, error) {
	path := filepath.Join(dir, oldJournalFile)
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(raw, []byte(journalMagic)) {
		return nil, fmt.Errorf("%s does not start with %q: it is not a journal of this wraith version", path, journalMagic)
	}
	frames, good := readFrames(raw[len(journalMagic):])
	if end := int64(len(journalMagic)) + good; !zeros(raw[end:]) {
		return nil, fmt.Errorf("%w: %s: the record at offset %d does not read, and this journal was synced whole before it was retired: the file was damaged. Nothing was changed: copy the folder aside to keep what it holds, and start the twin with another --state-dir", ErrDamaged, path, end)
	}
	return frames, nil
}
