// Package durable keeps a twin's sessions on disk, in a state folder
// (--state-dir), so that a restarted twin serves every session exactly as
// it left it: every write a client was answered for, its ids, clock,
// counters and idempotency cache.
//
// It is a session.Persister. A change is captured under the session's
// lock (a delta, or the session whole when it is made or replaced),
// queued, and acknowledged once it is on disk; the write's request waits
// for that after the lock is free, so other requests, other sessions and
// reads never wait on the disk. One goroutine commits: whatever queued
// while the last group was being synced goes out in one write and one
// fdatasync (group commit).
//
// The folder holds two files. journal.wal is append-only: a header line,
// then records, each framed by its length and a CRC-32C, whose payload
// carries the snapshot codec's shapes (session.Snapshot, session.StateDoc)
// in a binary form (codec.go).
// state.db is a bbolt database holding the folder's format and twin, and a
// checkpoint: each session whole, with the sequence number of the last
// record it includes. When the journal passes a size, it is retired (to
// journal.old) and a new one takes the next records, while the sessions
// the old one names are checkpointed into state.db beside the commits;
// then journal.old is removed. So the folder's size follows the live
// data, not the history, and no write waits for a checkpoint. At start
// the checkpoint is read, journal.old (if a checkpoint was under way) and
// the journal replayed over it (records a checkpoint already holds are
// skipped by sequence number), and a torn last record,
// a write the process died in, is cut off and reported. bbolt's file lock
// keeps a second process out of the folder. docs/durable.md is the
// user's account of all this.
package durable

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	bolt "go.etcd.io/bbolt"

	"github.com/wraithdev/wraith/twin/session"
)

// Format is the version of a state folder's layout and records. Format 2
// added journal.old (a journal being checkpointed) and the zeros a
// journal is written ahead with: a wraith of format 1 would not replay
// journal.old, and would lose its records, so it must refuse the folder.
// Format 3 writes checkpoints and records in a binary form (codec.go),
// which an older wraith would not read. A folder of format 1 or 2 holds
// nothing format 3 reads otherwise (its JSON checkpoints and records
// still read), and is taken (its header rewritten).
const Format = 3

// DefaultCheckpointBytes is the journal size past which the sessions it
// names are checkpointed and the journal starts over.
const DefaultCheckpointBytes = 64 << 20

// File names inside a state folder.
const (
	dbFile      = "state.db"
	journalFile = "journal.wal"
)

// Options configure Open.
type Options struct {
	// Dir is the state folder; it is made if missing.
	Dir string
	// Twin and TwinDigest name the twin served: a folder written for
	// another digest is refused.
	Twin, TwinDigest string
	// CheckpointBytes is the journal size past which it is checkpointed;
	// 0 means DefaultCheckpointBytes.
	CheckpointBytes int64
	// Logger logs recovery and failures; nil logs nothing.
	Logger hclog.Logger
}

// Store is an open state folder: the Persister of a session store.
type Store struct {
	opts  Options
	log   hclog.Logger
	db    *bolt.DB
	j     *journal
	older bool // the folder is of an older format: stampHeader once it is recovered

	mu      sync.Mutex
	seq     uint64                      // the last sequence number handed out
	cur     *batch                      // what queues for the next commit
	dirty   map[string]*session.Session // sessions with records since the last checkpoint; nil: deleted
	live    map[string]*session.Session // the session stored under each name, as the records say
	failed  error                       // set once a write failed: every later write is refused
	quiet   bool                        // while the recovered sessions are put back: they are on disk already
	closing bool

	maxRecord int64 // maxRecord; tests lower it
	// testHook, when set, is called by the checkpoint rotate starts at
	// each step ("checkpoint", before state.db is written; "drop",
	// before journal.old is removed): a test stops it there, to look at
	// the folder as a crash at that moment would leave it.
	testHook func(step string)

	// What Stats reports; the committer and checkpoints count it.
	commits, records, syncNanos, gatherNanos, checkpoints atomic.Int64

	kick     chan struct{} // a record queued
	done     chan struct{} // the committer ended
	ckptDone chan struct{} // closed when the checkpoint rotate started is written; nil before the first; the committer's

	recovered []Recovered
	report    Report
}

// Recovered is a session as the folder held it.
type Recovered struct {
	Provisioned bool
	Snapshot    session.Snapshot
}

// Report says what Open found in the folder.
type Report struct {
	Sessions int   // sessions recovered
	Entities int   // entities they hold of their own (changed over their worlds)
	Records  int   // journal records replayed over the checkpoint
	CutAt    int64 // offset at which a torn journal tail was cut; -1 for none
	CutBytes int64 // bytes cut there
	Took     time.Duration
}

// header is the folder's identity, kept in state.db.
type header struct {
	Format     int    `json:"format"`
	Twin       string `json:"twin"`
	TwinDigest string `json:"twin_digest"`
}

var (
	metaBucket     = []byte("meta")
	sessionsBucket = []byte("sessions")
	headerKey      = []byte("header")
)

// ErrLocked is what Open's error wraps when another process has the
// folder open.
var ErrLocked = errors.New("state folder in use")

// Open opens (or makes) the state folder o.Dir for the twin o.Twin,
// recovers what it holds, and starts committing. The sessions it held are
// in Recovered; put them back (Restore) before serving.
func Open(o Options) (*Store, error) {
	start := time.Now()
	if o.CheckpointBytes <= 0 {
		o.CheckpointBytes = DefaultCheckpointBytes
	}
	log := o.Logger
	if log == nil {
		log = hclog.NewNullLogger()
	}
	if err := makeDir(o.Dir); err != nil {
		return nil, fmt.Errorf("state folder %s: %w: make it, or pick another --state-dir", o.Dir, err)
	}
	_, statErr := os.Stat(filepath.Join(o.Dir, dbFile))
	db, err := openDB(o.Dir)
	if err != nil {
		if errors.Is(err, bolt.ErrTimeout) {
			return nil, fmt.Errorf("%w: %s is held by another process (another wraith serving it): stop that process, or give this one another --state-dir", ErrLocked, o.Dir)
		}
		return nil, fmt.Errorf("state folder %s: open %s: %w: remove the folder to start over, or pick another --state-dir", o.Dir, dbFile, err)
	}
	if os.IsNotExist(statErr) {
		// A new file's name is durable once its folder is synced: a
		// crash could otherwise lose state.db with the header in it.
		if err := syncDir(o.Dir); err != nil {
			db.Close()
			return nil, fmt.Errorf("state folder %s: sync it after making %s: %w", o.Dir, dbFile, err)
		}
	}
	st := &Store{opts: o, log: log, db: db, cur: newBatch(), dirty: map[string]*session.Session{}, live: map[string]*session.Session{},
		maxRecord: maxRecord, kick: make(chan struct{}, 1), done: make(chan struct{})}
	if err := st.recover(); err != nil {
		db.Close()
		if st.j != nil {
			st.j.close()
		}
		return nil, err
	}
	st.report.Took = time.Since(start)
	go st.commit()
	return st, nil
}

// makeDir makes dir and the folders above it that are missing, and syncs
// the folder each was made in, so that the names survive a crash.
func makeDir(dir string) error {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		} else if !os.IsNotExist(err) {
			return err
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for _, d := range missing { // deepest first: each name, then its parent's
		if err := syncDir(filepath.Dir(d)); err != nil {
			return err
		}
	}
	return nil
}

// checkHeader records the folder's identity when it is new, and refuses
// a folder of another format or twin. A folder of an older format it
// reads is noted (st.older), and its header rewritten only once its
// recovery has succeeded (stampHeader): a start that fails leaves the
// folder to the wraith that wrote it.
func (st *Store) checkHeader() error {
	want := header{Format: Format, Twin: st.opts.Twin, TwinDigest: st.opts.TwinDigest}
	return st.db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucketIfNotExists(metaBucket)
		if err != nil {
			return err
		}
		if _, err := tx.CreateBucketIfNotExists(sessionsBucket); err != nil {
			return err
		}
		raw := meta.Get(headerKey)
		if raw == nil {
			return writeHeader(meta, want)
		}
		var have header
		if err := json.Unmarshal(raw, &have); err != nil {
			return fmt.Errorf("state folder %s: its header does not read (%v): it is not a wraith state folder; pick another --state-dir", st.opts.Dir, err)
		}
		switch {
		case have.Format >= 1 && have.Format < Format && have.TwinDigest == want.TwinDigest:
			st.older = true
			return nil
		case have.Format != Format:
			return fmt.Errorf("state folder %s is of state format %d; this wraith reads format %d: serve it with the wraith that wrote it, or pick another --state-dir", st.opts.Dir, have.Format, Format)
		case have.TwinDigest != want.TwinDigest:
			return fmt.Errorf("state folder %s holds sessions of twin %s %s, and this process serves %s %s: serve the twin it was written for, or pick another --state-dir (remove the folder to start over)", st.opts.Dir, have.Twin, have.TwinDigest, want.Twin, want.TwinDigest)
		}
		return nil
	})
}

// stampHeader rewrites the header of a folder of an older format as this
// format's, in tx, once its recovery has succeeded.
func (st *Store) stampHeader(tx *bolt.Tx) error {
	if !st.older {
		return nil
	}
	return writeHeader(tx.Bucket(metaBucket), header{Format: Format, Twin: st.opts.Twin, TwinDigest: st.opts.TwinDigest})
}

// openDB opens state.db, waiting a moment for its lock: a folder another
// process serves stays locked, and waiting longer would only delay the
// refusal.
func openDB(dir string) (*bolt.DB, error) {
	return bolt.Open(filepath.Join(dir, dbFile), 0o600, &bolt.Options{Timeout: 100 * time.Millisecond, FreelistType: bolt.FreelistMapType})
}

func writeHeader(meta *bolt.Bucket, h header) error {
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	return meta.Put(headerKey, b)
}

// putHeader replaces the folder's header; tests make foreign folders
// with it.
func putHeader(db *bolt.DB, h header) error {
	return db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucketIfNotExists(metaBucket)
		if err != nil {
			return err
		}
		return writeHeader(meta, h)
	})
}

// Recovered returns the sessions the folder held, once; the store then
// drops them.
func (st *Store) Recovered() []Recovered {
	r := st.recovered
	st.recovered = nil
	return r
}

// Report says what Open found.
func (st *Store) Report() Report { return st.report }

// Stats counts what the store has written since Open.
type Stats struct {
	Commits     int64         // group commits: one write and one sync each
	Records     int64         // records they carried
	Syncing     time.Duration // time spent in their writes and syncs
	Gathering   time.Duration // time the committer waited for a group to grow (gather)
	Checkpoints int64
}

// Stats says what the store has written since Open: the benchmarks read
// it for the writes that share a sync and a sync's mean time.
func (st *Store) Stats() Stats {
	return Stats{Commits: st.commits.Load(), Records: st.records.Load(), Syncing: time.Duration(st.syncNanos.Load()), Gathering: time.Duration(st.gatherNanos.Load()), Checkpoints: st.checkpoints.Load()}
}

// Dir is the state folder.
func (st *Store) Dir() string { return st.opts.Dir }

// Quiet makes the store record nothing while fn runs: the recovered
// sessions are put back into the session store through it, and they are
// on disk already.
func (st *Store) Quiet(fn func() error) error {
	st.mu.Lock()
	st.quiet = true
	st.mu.Unlock()
	defer func() {
		st.mu.Lock()
		st.quiet = false
		st.mu.Unlock()
	}()
	return fn()
}

// Close commits what is queued, checkpoints the journal (unless a write
// failed), and releases the folder. Writes after Close are refused.
func (st *Store) Close() error {
	st.mu.Lock()
	if st.closing {
		st.mu.Unlock()
		return nil
	}
	st.closing = true
	st.mu.Unlock()
	select {
	case st.kick <- struct{}{}:
	default:
	}
	<-st.done
	if st.ckptDone != nil {
		<-st.ckptDone
	}
	st.mu.Lock()
	failed := st.failed
	st.mu.Unlock()
	var err error
	if failed == nil {
		// After a failed write the folder stays as of its last good
		// record: memory holds changes that were refused.
		err = st.checkpointAll()
	}
	return errors.Join(err, st.j.close(), st.db.Close())
}
