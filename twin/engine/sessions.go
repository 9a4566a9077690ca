package engine

import (
	"fmt"

	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/world"
)

// FixtureError says a fixture set does not exist.
type FixtureError = compiled.FixtureError

// QualifyFixture turns a fixture name as a user gives it (SET or TWIN:SET)
// into its qualified form, or returns a *FixtureError.
func (e *Engine) QualifyFixture(name string) (string, error) { return e.twin.QualifyFixture(name) }

// Fixtures returns the qualified names of every fixture set, sorted.
func (e *Engine) Fixtures() []string { return e.twin.Fixtures() }

// Store returns the engine's session store.
func (e *Engine) Store() *session.Store { return e.store }

// Defaults returns the serve-wide session settings, fixture qualified.
func (e *Engine) Defaults() session.Settings { return e.defaults }

// ConflictError says a session exists with other settings.
type ConflictError struct {
	Session   string
	Existing  session.Settings
	Requested session.Settings
}

func (c *ConflictError) Error() string {
	return fmt.Sprintf("session %q is already provisioned with other settings; delete it first or use another session name", c.Session)
}

// Provisioned is the outcome of a provisioning call.
type Provisioned struct {
	Created  bool
	Settings session.Settings
	Seeded   int
}

// Provision creates the session name with set (fixture as the user gave
// it), or confirms an existing session with equal settings. It returns a
// *FixtureError for an unknown fixture, a *ProfileError for an unknown
// fault profile, a *ConflictError for an existing
// session with other settings, and session.ErrLimit when full.
func (e *Engine) Provision(name string, set session.Settings) (Provisioned, error) {
	if err := e.CheckProfile(set.FaultProfile); err != nil {
		return Provisioned{}, err
	}
	w := e.twin.World("")
	if set.Fixture != "" {
		q, err := e.QualifyFixture(set.Fixture)
		if err != nil {
			return Provisioned{}, err
		}
		set.Fixture = q
		w = e.twin.World(q)
	}
	s, created, err := e.store.GetOrCreate(name, func() *session.Session {
		return session.New(name, set, w, true)
	})
	if err != nil {
		return Provisioned{}, err
	}
	if !created {
		existing, _ := s.Settings()
		if !existing.Equal(set) {
			return Provisioned{}, &ConflictError{Session: name, Existing: existing, Requested: set}
		}
		if err := s.MarkProvisioned(); err != nil {
			return Provisioned{}, err
		}
	}
	return Provisioned{Created: created, Settings: set, Seeded: w.Seeded()}, nil
}

// Seeded returns how many entities a qualified fixture installs.
func (e *Engine) Seeded(fixture string) int { return e.twin.World(fixture).Seeded() }

// Change is one entity a session created, changed or deleted.
type Change struct {
	ID       string
	Resource string
	Deleted  bool
	Created  bool // not in the starting world
	Body     []byte
}

// Changes returns a session's changes, sorted newest first.
func Changes(st *session.State) []Change {
	var ents []*world.Entity
	st.Overlay(func(e *world.Entity) { ents = append(ents, e) })
	world.SortNewestFirst(ents)
	out := make([]Change, len(ents))
	for i, e := range ents {
		out[i] = Change{ID: e.ID, Resource: e.Resource, Deleted: e.Deleted, Created: st.World().Get(e.ID) == nil, Body: e.Body()}
	}
	return out
}

// Info describes the twin being served.
type Info struct {
	Twin       string
	Provider   string
	Digest     string
	RecordedAt string
	Routes     int
	Resources  []string
	Fixtures   []string
}

// Routes returns the twin's routes as answers name them in X-Wraith-Route
// and the journal ("GET /v1/customers/{id}"): the closed set the metrics
// draw their route label from.
func (e *Engine) Routes() []string {
	table := e.twin.Router.Routes()
	names := make([]string, len(table))
	for i, rt := range table {
		names[i] = rt.Method + " " + rt.Template
	}
	return names
}

// Info returns what the engine serves.
func (e *Engine) Info() Info {
	var res []string
	for _, r := range e.twin.Source.Manifest.Resources {
		res = append(res, r.Name)
	}
	at := ""
	if !e.twin.Source.RecordedAt.IsZero() {
		at = e.twin.Source.RecordedAt.UTC().Format("2006-01-02T15:04:05Z07:00")
	}
	return Info{
		Twin:       e.twin.Name(),
		Provider:   e.twin.Source.Manifest.Provider,
		Digest:     e.twin.Source.Digest,
		RecordedAt: at,
		Routes:     len(e.twin.Router.Routes()),
		Resources:  res,
		Fixtures:   e.twin.Fixtures(),
	}
}
