package control

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/wraithdev/wraith/internal/rate"
	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/world"
)

func (h *Handler) digest(w http.ResponseWriter, r *http.Request) error {
	s, err := h.lookup(r)
	if err != nil {
		return err
	}
	var d string
	var n int
	s.Do(func(st *session.State) { d, n = st.Digest() })
	return writeJSON(w, http.StatusOK, map[string]any{"session": s.Name(), "digest": d, "entities": n})
}

// entityJSON is an entity as digest, diff and snapshot show it: its body.
func entityJSON(e *world.Entity) json.RawMessage { return json.RawMessage(e.Body()) }

type updateView struct {
	ID     string          `json:"id"`
	Object string          `json:"object"`
	Before json.RawMessage `json:"before"`
	After  json.RawMessage `json:"after"`
}

type deletedView struct {
	ID     string `json:"id"`
	Object string `json:"object"`
}

func (h *Handler) diff(w http.ResponseWriter, r *http.Request) error {
	s, err := h.lookup(r)
	if err != nil {
		return err
	}
	out := struct {
		Session string            `json:"session"`
		Created []json.RawMessage `json:"created"`
		Updated []updateView      `json:"updated"`
		Deleted []deletedView     `json:"deleted"`
	}{Session: s.Name(), Created: []json.RawMessage{}, Updated: []updateView{}, Deleted: []deletedView{}}
	s.Do(func(st *session.State) {
		created, updated, deleted := st.Diff()
		for _, e := range created {
			out.Created = append(out.Created, entityJSON(e))
		}
		for _, u := range updated {
			out.Updated = append(out.Updated, updateView{ID: u.After.ID, Object: u.After.Resource, Before: entityJSON(u.Before), After: entityJSON(u.After)})
		}
		for _, e := range deleted {
			out.Deleted = append(out.Deleted, deletedView{ID: e.ID, Object: e.Resource})
		}
	})
	return writeJSON(w, http.StatusOK, out)
}

func (h *Handler) fork(w http.ResponseWriter, r *http.Request) error {
	src, err := h.lookup(r)
	if err != nil {
		return err
	}
	var body struct {
		Session string `json:"session"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if err := session.ValidateName(body.Session); err != nil {
		return apierr.New(apierr.InvalidSession, `the body's "session" names the new session: `+err.Error())
	}
	f, err := h.eng.Store().Fork(r.Context(), src, body.Session)
	if err != nil {
		return err
	}
	n := f.Entities()
	h.log.Info("session forked", "session", body.Session, "from", src.Name(), "entities", n)
	return writeJSON(w, http.StatusCreated, map[string]any{"session": body.Session, "from": src.Name(), "entities": n})
}

// SnapshotFormat is the version of snapshot documents.
const SnapshotFormat = 1

// snapshotDoc is the whole session as GET snapshot writes it and PUT
// snapshot reads it.
type snapshotDoc struct {
	Format     int              `json:"format"`
	Twin       string           `json:"twin"`
	TwinDigest string           `json:"twin_digest"`
	Session    string           `json:"session"`
	Settings   snapshotSettings `json:"settings"`
	Digest     string           `json:"digest"`
	session.StateDoc
}

type snapshotSettings struct {
	Fixture      string `json:"fixture"`
	Seed         uint64 `json:"seed"`
	ClockMode    string `json:"clock"`
	BaseEpoch    int64  `json:"clock_epoch"`
	ClockStep    string `json:"clock_step"`
	FaultProfile string `json:"fault_profile"`
	RateLimit    string `json:"rate_limit"`
	// PIIVerbatim is absent for none, so documents without it still read.
	PIIVerbatim []string `json:"pii_verbatim,omitempty"`
}

func (h *Handler) snapshot(w http.ResponseWriter, r *http.Request) error {
	s, err := h.lookup(r)
	if err != nil {
		return err
	}
	set, _ := s.Settings()
	in := h.eng.Info()
	doc := snapshotDoc{
		Format: SnapshotFormat, Twin: in.Twin, TwinDigest: in.Digest, Session: s.Name(),
		Settings: snapshotSettings{
			Fixture: set.Fixture, Seed: set.Seed, ClockMode: set.Clock.Mode, BaseEpoch: set.Clock.BaseEpoch,
			ClockStep: stepString(set.Clock), FaultProfile: set.FaultProfile, RateLimit: set.RateLimit.String(),
			PIIVerbatim: set.PIIVerbatim,
		},
	}
	s.Do(func(st *session.State) {
		doc.Digest, _ = st.Digest()
		doc.StateDoc, err = st.Doc()
	})
	if err != nil {
		return apierr.New(apierr.Internal, err.Error())
	}
	return writeJSON(w, http.StatusOK, doc)
}

// MaxSnapshot bounds a PUT snapshot body, the one control body that may
// pass MaxBody: a session's snapshot is as large as its entities. The
// server's --max-body (10 MiB by default) bounds every request first, so
// this cap applies only when --max-body is set above it; `wraith fleet`
// reads an answer of up to the same size.
const MaxSnapshot = 1 << 30

func (h *Handler) restore(w http.ResponseWriter, r *http.Request) error {
	name, err := sessionName(r)
	if err != nil {
		return err
	}
	var doc snapshotDoc
	if err := decodeMax(w, r, &doc, MaxSnapshot); err != nil {
		return err
	}
	in := h.eng.Info()
	switch {
	case doc.Format != SnapshotFormat:
		return apierr.Errorf(apierr.InvalidSnapshot,
			"format: snapshot format %d: this build reads format %d; take the snapshot with the same wraith version", doc.Format, SnapshotFormat).With("path", "format")
	case doc.TwinDigest != in.Digest:
		return apierr.Errorf(apierr.SnapshotTwinMismatch,
			"the snapshot is of twin %s %s, this process serves %s %s: restore it into a twin with the same digest", doc.Twin, doc.TwinDigest, in.Twin, in.Digest).With("snapshot_digest", doc.TwinDigest).With("twin_digest", in.Digest)
	}
	set, err := doc.Settings.settings()
	if err != nil {
		path := "settings"
		if se := (*settingsError)(nil); errors.As(err, &se) {
			path = se.path
		}
		return apierr.New(apierr.InvalidSnapshot, err.Error()).With("path", path)
	}
	if err := set.Validate(); err != nil { // the rules provisioning goes through
		return settingsProblem(err)
	}
	// The state is checked whole before any of it is used: a value this
	// twin would never have written (a replay status of 0, a provenance
	// nobody names) would otherwise reach a status line or a metrics label.
	if err := doc.StateDoc.Validate(); err != nil {
		return err
	}
	s, err := h.eng.Restore(name, set, &doc.StateDoc)
	if err != nil {
		if p := known(err); p != nil {
			return p
		}
		// What no code names is the snapshot's fault: its state did
		// not restore.
		return apierr.New(apierr.InvalidSnapshot, "the snapshot cannot be restored: "+err.Error())
	}
	var d string
	var n int
	s.Do(func(st *session.State) { d, n = st.Digest() })
	h.log.Info("session restored", "session", name, "entities", n)
	return writeJSON(w, http.StatusCreated, map[string]any{"session": name, "digest": d, "entities": n})
}

// settingsProblem is a settings error of Validate as a restore answers it:
// the code provisioning answers, the message led by the value's JSON path
// in the snapshot, where the settings' fields have other names.
func settingsProblem(err *apierr.Error) *apierr.Error {
	field, _ := err.Details["field"].(string)
	p := "settings"
	switch {
	case field == "clock.mode":
		p = "settings.clock"
	case field == "clock.base_epoch":
		p = "settings.clock_epoch"
	case field == "clock_step":
		p = "settings.clock_step"
	case err.Code == apierr.InvalidPIIVerbatim:
		p = "settings.pii_verbatim"
	}
	out := apierr.New(err.Code, p+": "+err.Message)
	for k, v := range err.Details { // provisioning's own details ("field") stay
		out.With(k, v)
	}
	return out.With("path", p).With("snapshot_field", "settings")
}

func (s snapshotSettings) settings() (session.Settings, error) {
	set := session.Settings{Fixture: s.Fixture, Seed: s.Seed, FaultProfile: s.FaultProfile,
		Clock: session.Clock{Mode: s.ClockMode, BaseEpoch: s.BaseEpoch}}
	if s.ClockStep != "" {
		step, err := time.ParseDuration(s.ClockStep)
		if err != nil {
			return set, &settingsError{"settings.clock_step", fmt.Sprintf("%q: want a duration such as 1s", s.ClockStep)}
		}
		set.Clock.Step = step
	}
	var err error
	if set.RateLimit, err = rate.Parse(s.RateLimit); err != nil {
		return set, &settingsError{"settings.rate_limit", err.Error()}
	}
	set.PIIVerbatim = s.PIIVerbatim
	if fields, err := session.PIIFields(s.PIIVerbatim); err == nil {
		set.PIIVerbatim = fields // else Settings.Validate says what is wrong with the list
	}
	return set, nil
}

// settingsError is a snapshot setting that does not read, at its JSON
// path.
type settingsError struct{ path, problem string }

func (e *settingsError) Error() string { return e.path + ": " + e.problem }

// stepString is a clock's step as a snapshot carries it: only a
// deterministic clock steps; the others carry none ("").
func stepString(c session.Clock) string {
	if step := session.StepOf(c.Mode, c.Step); step != 0 {
		return step.String()
	}
	return ""
}
