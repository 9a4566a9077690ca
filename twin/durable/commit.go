package durable

import (
	"fmt"
	"runtime"
	"time"

	"github.com/wraithdev/wraith/twin/session"
)

// Record operations.
const (
	opWhole       = "whole"       // the session made or replaced: Whole holds it
	opDelta       = "delta"       // what a write changed: Delta holds it
	opProvisioned = "provisioned" // a session its first request made was provisioned
	opDeleted     = "deleted"
)

// record is one journal record. Seq, which the frame carries, orders
// every record of the folder; a checkpoint of a session holds every record
// of it up to its own seq.
type record struct {
	Seq         uint64            `json:"-"`
	Op          string            `json:"op"`
	Session     string            `json:"session"`
	Provisioned bool              `json:"provisioned,omitempty"`
	Whole       *session.Snapshot `json:"whole,omitempty"`
	Delta       *session.StateDoc `json:"delta,omitempty"`
}

// batch is the records of one group commit, framed, and their
// acknowledgement.
type batch struct {
	frames []byte
	n      int // records in frames
	done   chan struct{}
	err    error
}

func newBatch() *batch { return &batch{done: make(chan struct{})} }

// Wait blocks until the batch is on disk.
func (b *batch) Wait() error {
	<-b.done
	return b.err
}

// refused is the Ack of a write the store will not take.
type refused struct{ err error }

func (r refused) Wait() error { return r.err }

// Persist captures change c of s and queues it for the next commit. It is
// called where s cannot change (see session.Persister), never waits for
// the disk, and returns what the write's caller waits on.
func (st *Store) Persist(s *session.Session, c session.Change) session.Ack {
	st.mu.Lock()
	if st.quiet { // a recovered session, put back: it is on disk already
		st.live[s.Name()] = s
		st.mu.Unlock()
		return nil
	}
	st.mu.Unlock()
	rec := &record{Session: s.Name()}
	var err error
	switch {
	case c == session.Deleted:
		rec.Op = opDeleted
	case c == session.Provisioned:
		rec.Op = opProvisioned
	case c.Whole():
		rec.Op = opWhole
		_, rec.Provisioned = s.Settings()
		var doc session.Snapshot
		doc, err = s.Whole(st.opts.Twin, st.opts.TwinDigest)
		rec.Whole = &doc
	default:
		rec.Op = opDelta
		var d session.StateDoc
		d, err = s.TakeDelta()
		rec.Delta = &d
	}
	var p []byte
	if err == nil {
		// Encoded here, beside the other writers, not in the committer:
		// its cycle is the time every waiting write waits.
		if p, err = encodeRecord(rec); err == nil && int64(len(p)) > st.maxRecord {
			err = fmt.Errorf("the record is %d bytes, past %d", len(p), st.maxRecord)
		}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	// A write of a session that was deleted (its request was in flight)
	// changes nothing anyone can read: it must not reach the records,
	// where a session made since under the name would take it.
	switch {
	case c.Whole():
		st.live[rec.Session] = s
	case c == session.Deleted:
		delete(st.live, rec.Session)
	case st.live[rec.Session] != s:
		return nil
	}
	switch {
	case st.failed != nil:
		return refused{st.failed}
	case st.closing:
		return refused{fmt.Errorf("%w: the twin is stopping", session.ErrNotDurable)}
	case err != nil:
		// TakeDelta (or Whole) has cleared what the session changed:
		// its next delta would leave this one out, and a replay would
		// build a state that never was. The store fails, as on a write
		// error, so nothing after this change is acknowledged.
		return refused{st.failLocked(fmt.Errorf("record a change of session %q: %v", s.Name(), err))}
	}
	st.seq++
	rec.Seq = st.seq
	if c == session.Deleted {
		st.dirty[rec.Session] = nil
	} else {
		st.dirty[rec.Session] = s
	}
	b := st.cur
	b.frames = appendFrame(b.frames, rec.Seq, p)
	b.n++
	select {
	case st.kick <- struct{}{}:
	default:
	}
	return b
}

// commit is the one goroutine that writes the journal: each time records
// are queued it takes them all, already framed, writes them in one write
// and one sync, and acknowledges them; what queues meanwhile goes out
// next. When the journal has grown past its bound it retires it, and the
// sessions it names are checkpointed beside the commits (rotate).
func (st *Store) commit() {
	defer close(st.done)
	var spare []byte // the last batch's frames, written: the next batch's buffer
	for range st.kick {
		t0 := time.Now()
		st.gather()
		st.gatherNanos.Add(int64(time.Since(t0)))
		st.mu.Lock()
		b, closing, failed := st.cur, st.closing, st.failed
		st.cur = newBatch()
		st.cur.frames = spare[:0]
		st.mu.Unlock()
		if failed != nil && b.n > 0 {
			// Nothing more goes after a failed write: a record that
			// followed a torn one would be cut off with it at the next
			// start, though it had been acknowledged.
			b.err = failed
			close(b.done)
			if closing {
				return
			}
			continue
		}
		if b.n > 0 {
			t0 := time.Now()
			err := st.j.write(b.frames)
			st.syncNanos.Add(int64(time.Since(t0)))
			st.commits.Add(1)
			st.records.Add(int64(b.n))
			if err != nil {
				b.err = st.fail(fmt.Errorf("write %s: %w", journalFile, err))
			}
			close(b.done)
		}
		if spare = b.frames; cap(spare) > 4<<20 {
			spare = nil // one large session's record need not stay allocated
		}
		b.frames = nil
		if closing {
			return
		}
		if st.j.size > st.opts.CheckpointBytes && failed == nil && !st.checkpointing() {
			if err := st.rotate(); err != nil {
				st.fail(err)
			}
		}
	}
}

// gather lets the writers that can run now queue their records before
// the committer takes the batch: it yields while the batch grows, a few
// times at most. On two cores at 32 connections, a committer that took
// whatever had queued the moment it woke synced two or three writes at a
// time, and the syscalls and wake-ups of each sync were paid by few. With
// nothing else to run, a yield returns at once, so a lone writer does not
// wait for it.
func (st *Store) gather() {
	n := -1
	for range gatherYields {
		st.mu.Lock()
		now := st.cur.n
		st.mu.Unlock()
		if now == n {
			return
		}
		n = now
		runtime.Gosched()
	}
}

// gatherYields bounds gather: each yield lets every goroutine runnable at
// the time run once.
const gatherYields = 4

// fail puts the store in its failed state: the change that failed, and
// every later one, is refused with an error wrapping ErrNotDurable. The
// sessions keep being served from memory; what they change is not kept.
func (st *Store) fail(err error) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.failLocked(err)
}

// failLocked is fail with st.mu held.
func (st *Store) failLocked(err error) error {
	if st.failed == nil {
		st.failed = fmt.Errorf("%w: state folder %s: %v (writes are refused until the twin is restarted; check the disk)", session.ErrNotDurable, st.opts.Dir, err)
		st.log.Error("durable sessions stopped", "error", st.failed)
	}
	return st.failed
}
