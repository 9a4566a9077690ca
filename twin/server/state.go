package server

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"

	"github.com/wraithdev/wraith/twin/durable"
	"github.com/wraithdev/wraith/twin/engine"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/session"
)

// state is the twin's state folder (--state-dir); a nil *state is no
// folder, and every method of it does nothing.
type state struct {
	store *durable.Store
	log   hclog.Logger
}

// openState opens --state-dir for twin t and recovers what it holds.
func openState(cfg Config, t *format.Twin, log hclog.Logger) (*state, error) {
	if cfg.StateDir == "" {
		return nil, nil
	}
	log = log.Named("state")
	ds, err := durable.Open(durable.Options{Dir: cfg.StateDir, Twin: t.Name(), TwinDigest: t.Digest, CheckpointBytes: cfg.StateCheckpoint, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("--state-dir %s: %w", cfg.StateDir, err)
	}
	return &state{store: ds, log: log}, nil
}

func (s *state) persister() session.Persister {
	if s == nil {
		return nil
	}
	return s.store
}

// restore puts the recovered sessions back into eng's store. A session
// whose settings this twin cannot serve (a fault profile or fixture it no
// longer has) stops the start with the reason, rather than being dropped.
// The state goes through the session's checks of its bookkeeping
// (session.RestoreWritten), not through the parse of every body that a
// PUT snapshot gets: the folder was written by this twin from sessions
// whose bodies were JSON objects, its digest is checked and every record
// and checkpoint carries a checksum, and parsing 100,000 bodies would take
// most of a restart.
func (s *state) restore(eng *engine.Engine, t *format.Twin) error {
	if s == nil {
		return nil
	}
	recovered := s.store.Recovered()
	err := s.store.Quiet(func() error {
		// Sessions are independent: put back side by side, one worker
		// per core, a restart takes a fraction of the time.
		return parallel(len(recovered), func(i int) error {
			r := &recovered[i]
			doc := &r.Snapshot
			set, perr := doc.CheckHead(t.Name(), t.Digest)
			if perr != nil {
				return fmt.Errorf("--state-dir %s: session %q: %s: serve it with the flags and twin it was written with, or remove the folder to start over", s.store.Dir(), doc.Session, perr.Message)
			}
			sess, err := restoreOne(eng, doc.Session, set, &doc.StateDoc)
			if err != nil {
				return fmt.Errorf("--state-dir %s: session %q: %w: serve it with the flags and twin it was written with, or remove the folder to start over", s.store.Dir(), doc.Session, err)
			}
			sess.SetProvisioned(r.Provisioned)
			return nil
		})
	})
	if err != nil {
		return err
	}
	rep := s.store.Report()
	s.log.Info("recovered sessions", "dir", s.store.Dir(), "sessions", rep.Sessions, "entities", rep.Entities, "journal_records", rep.Records, "took", rep.Took)
	return nil
}

// parallel runs fn(0..n-1) on one worker per core and returns the first
// error by index, so the same folder always reports the same session.
func parallel(n int, fn func(i int) error) error {
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				errs[i] = fn(i)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func restoreOne(eng *engine.Engine, name string, set session.Settings, d *session.StateDoc) (*session.Session, error) {
	if err := eng.CheckProfile(set.FaultProfile); err != nil {
		return nil, err
	}
	w, err := eng.World(set.Fixture)
	if err != nil {
		return nil, err
	}
	return eng.Store().RestoreWritten(name, set, w, d)
}

// Recovered reports how many sessions the state folder held at start
// (0 without --state-dir).
func (s *Server) Recovered() int {
	if s.state == nil {
		return 0
	}
	return s.state.store.Report().Sessions
}

func (s *state) close() error {
	if s == nil {
		return nil
	}
	return s.store.Close()
}
