package session

import (
	"errors"
	"fmt"
	"time"

	"github.com/wraithdev/wraith/internal/rate"
	"github.com/wraithdev/wraith/twin/apierr"
)

// SnapshotFormat is the version of snapshot documents.
const SnapshotFormat = 1

// Snapshot is a whole session as GET snapshot writes it and PUT snapshot
// reads it: the twin it belongs to, the session's settings (which rebuild
// the starting world) and its state over that world.
type Snapshot struct {
	Format     int              `json:"format"`
	Twin       string           `json:"twin"`
	TwinDigest string           `json:"twin_digest"`
	Session    string           `json:"session"`
	Settings   SnapshotSettings `json:"settings"`
	Digest     string           `json:"digest"`
	StateDoc
}

// SnapshotSettings are Settings as format 1 carries them. They are a view
// of their own, not the control plane's settings shape: format 1 was
// written flat (the clock's mode, epoch and step side by side, a step as a
// duration string), and documents already taken must keep reading.
type SnapshotSettings struct {
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

// SnapshotOf returns s whole, as a snapshot of the twin named twin with
// digest twinDigest. It holds s's lock while it copies the state.
func SnapshotOf(s *Session, twin, twinDigest string) (Snapshot, error) {
	doc := s.snapshotHead(twin, twinDigest)
	var err error
	s.Do(func(st *State) {
		doc.Digest, _ = st.Digest()
		doc.StateDoc, err = st.Doc()
		if err == nil {
			doc.Attachment, err = st.snapshotAttachment()
		}
	})
	return doc, err
}

// snapshotHead is a snapshot of s without its state: the twin, the name
// and the settings, which never change.
func (s *Session) snapshotHead(twin, twinDigest string) Snapshot {
	set, _ := s.Settings()
	return Snapshot{
		Format: SnapshotFormat, Twin: twin, TwinDigest: twinDigest, Session: s.Name(),
		Settings: SnapshotSettings{
			Fixture: set.Fixture, Seed: set.Seed, ClockMode: set.Clock.Mode, BaseEpoch: set.Clock.BaseEpoch,
			ClockStep: stepString(set.Clock), FaultProfile: set.FaultProfile, RateLimit: set.RateLimit.String(),
			PIIVerbatim: set.PIIVerbatim,
		},
	}
}

// Check reads a snapshot document for the twin named twin with digest
// twinDigest: the settings it restores with, or the first problem as the
// error its restore answers (invalid-snapshot naming the value's JSON path,
// snapshot-twin-mismatch, or a settings code as provisioning answers it).
// The state is checked whole before any of it is used: a value this twin
// would never have written (a replay status of 0, a provenance nobody
// names) would otherwise reach a status line or a metrics label.
func (d *Snapshot) Check(twin, twinDigest string) (Settings, *apierr.Error) {
	set, err := d.CheckHead(twin, twinDigest)
	if err != nil {
		return set, err
	}
	if err := d.StateDoc.Validate(); err != nil {
		return set, err
	}
	return set, nil
}

// CheckHead is Check without the state's validation, for a caller that
// restores the state through Restore, which validates it.
func (d *Snapshot) CheckHead(twin, twinDigest string) (Settings, *apierr.Error) {
	switch {
	case d.Format != SnapshotFormat:
		return Settings{}, apierr.Errorf(apierr.InvalidSnapshot,
			"format: snapshot format %d: this build reads format %d; take the snapshot with the same wraith version", d.Format, SnapshotFormat).With("path", "format")
	case d.TwinDigest != twinDigest:
		return Settings{}, apierr.Errorf(apierr.SnapshotTwinMismatch,
			"the snapshot is of twin %s %s, this process serves %s %s: restore it into a twin with the same digest", d.Twin, d.TwinDigest, twin, twinDigest).With("snapshot_digest", d.TwinDigest).With("twin_digest", twinDigest)
	}
	set, err := d.Settings.settings()
	if err != nil {
		path := "settings"
		if se := (*settingsError)(nil); errors.As(err, &se) {
			path = se.path
		}
		return set, apierr.New(apierr.InvalidSnapshot, err.Error()).With("path", path)
	}
	if err := set.Validate(); err != nil { // the rules provisioning goes through
		return set, settingsProblem(err)
	}
	return set, nil
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

func (s SnapshotSettings) settings() (Settings, error) {
	set := Settings{Fixture: s.Fixture, Seed: s.Seed, FaultProfile: s.FaultProfile,
		Clock: Clock{Mode: s.ClockMode, BaseEpoch: s.BaseEpoch}}
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
	if fields, err := PIIFields(s.PIIVerbatim); err == nil {
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
func stepString(c Clock) string {
	if step := StepOf(c.Mode, c.Step); step != 0 {
		return step.String()
	}
	return ""
}
