package server

import (
	"fmt"

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
	ds, err := durable.Open(durable.Options{Dir: cfg.StateDir, Twin: t.Name(), TwinDigest: t.Digest, Logger: log})
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

// restore puts the recovered sessions back into eng's store, through the
// checks a PUT snapshot goes through: a session this build or these
// flags could not serve (a smaller --max-entities, say) stops the start
// with the reason, rather than being dropped.
func (s *state) restore(eng *engine.Engine, t *format.Twin) error {
	if s == nil {
		return nil
	}
	err := s.store.Quiet(func() error {
		for _, r := range s.store.Recovered() {
			doc := &r.Snapshot
			set, perr := doc.Check(t.Name(), t.Digest)
			if perr != nil {
				return fmt.Errorf("--state-dir %s: session %q: %s: serve it with the flags and twin it was written with, or remove the folder to start over", s.store.Dir(), doc.Session, perr.Message)
			}
			sess, err := eng.Restore(doc.Session, set, &doc.StateDoc)
			if err != nil {
				return fmt.Errorf("--state-dir %s: session %q: %w: serve it with the flags and twin it was written with, or remove the folder to start over", s.store.Dir(), doc.Session, err)
			}
			sess.SetProvisioned(r.Provisioned)
		}
		return nil
	})
	if err != nil {
		return err
	}
	rep := s.store.Report()
	s.log.Info("recovered sessions", "dir", s.store.Dir(), "sessions", rep.Sessions, "entities", rep.Entities, "journal_records", rep.Records, "took", rep.Took)
	return nil
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
