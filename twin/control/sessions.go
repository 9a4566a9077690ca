package control

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/wraithdev/wraith/internal/rate"
	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/engine"
	"github.com/wraithdev/wraith/twin/session"
)

// clockBody is a clock in provisioning requests and answers.
type clockBody struct {
	Mode          string `json:"mode"`
	BaseEpoch     *int64 `json:"base_epoch,omitempty"`
	BaseEpochSecs *int64 `json:"base_epoch_secs,omitempty"`
}

// provisionBody is the body of POST /__wraith/session[/{session}].
type provisionBody struct {
	Session string       `json:"session"`
	Fixture *string      `json:"fixture"`
	Seed    *json.Number `json:"seed"`
	Clock   *clockBody   `json:"clock"`
	// FaultProfile and RateLimit override the serve-wide --fault-profile
	// and --rate-limit for this session.
	FaultProfile *string `json:"fault_profile"`
	RateLimit    *string `json:"rate_limit"`
	// PIIVerbatim names PII-shaped fields this session serves as they
	// are, on top of the serve-wide --pii-verbatim.
	PIIVerbatim *[]string `json:"pii_verbatim"`
}

// sessionView is how the control plane shows a session's settings; the
// field order is the order users read in the docs.
type sessionView struct {
	Session        string    `json:"session"`
	Provisioned    *bool     `json:"provisioned,omitempty"`
	Fixture        *string   `json:"fixture"`
	Seed           uint64    `json:"seed"`
	Clock          clockView `json:"clock"`
	FaultProfile   *string   `json:"fault_profile"`
	RateLimit      *string   `json:"rate_limit"`
	PIIVerbatim    []string  `json:"pii_verbatim,omitempty"`
	EntitiesSeeded *int      `json:"entities_seeded,omitempty"`
	Requests       *uint64   `json:"requests,omitempty"`
	Entities       *int      `json:"entities,omitempty"`
	Reset          bool      `json:"reset,omitempty"`
	Deleted        bool      `json:"deleted,omitempty"`
}

type clockView struct {
	Mode      string `json:"mode"`
	BaseEpoch *int64 `json:"base_epoch"`
	Now       *int64 `json:"now,omitempty"`
}

func viewOf(name string, s session.Settings) sessionView {
	v := sessionView{Session: name, Seed: s.Seed, Clock: clockOf(s.Clock)}
	if s.Fixture != "" {
		f := s.Fixture
		v.Fixture = &f
	}
	if s.FaultProfile != "" {
		v.FaultProfile = ptr(s.FaultProfile)
	}
	if !s.RateLimit.IsZero() {
		v.RateLimit = ptr(s.RateLimit.String())
	}
	v.PIIVerbatim = s.PIIVerbatim
	return v
}

func clockOf(c session.Clock) clockView {
	v := clockView{Mode: c.Mode}
	if c.Mode != session.ClockReal {
		b := c.BaseEpoch
		v.BaseEpoch = &b
	}
	return v
}

func ptr[T any](v T) *T { return &v }

func (h *Handler) provision(w http.ResponseWriter, r *http.Request) {
	var body provisionBody
	if !decode(w, r, &body) {
		return
	}
	name := r.PathValue("session")
	switch {
	case name != "" && body.Session != "" && body.Session != name:
		apierr.Write(w, apierr.Errorf(apierr.SessionMismatch,
			"the path names session %q but the body names %q; send one", name, body.Session))
		return
	case name == "":
		name = body.Session
	}
	if name == "" {
		apierr.Write(w, apierr.New(apierr.InvalidSession, `the body needs "session": the session name to provision`))
		return
	}
	if err := session.ValidateName(name); err != nil {
		apierr.Write(w, apierr.New(apierr.InvalidSession, err.Error()))
		return
	}
	set, ok := h.settingsFrom(w, &body)
	if !ok {
		return
	}
	p, err := h.eng.Provision(name, set)
	var fe *engine.FixtureError
	var ce *engine.ConflictError
	var pe *engine.ProfileError
	switch {
	case errors.As(err, &fe):
		apierr.Write(w, apierr.New(apierr.FixtureNotFound, fe.Error()).With("fixture", fe.Name).With("available", fe.Available))
		return
	case errors.As(err, &pe):
		apierr.Write(w, apierr.New(apierr.FaultProfileNotFound,
			pe.Error()).With("fault_profile", pe.Name).With("available", pe.Available))
		return
	case errors.As(err, &ce):
		apierr.Write(w, &apierr.Error{Code: apierr.SessionProvisionConflict,
			Message: ce.Error(), Details: apierr.Details{"session": name, "existing": viewOf(name, ce.Existing), "requested": viewOf(name, ce.Requested)}})
		return
	case errors.Is(err, session.ErrLimit):
		apierr.Write(w, apierr.New(apierr.SessionLimit, err.Error()))
		return
	case err != nil:
		apierr.Write(w, apierr.New(apierr.Internal, err.Error()))
		return
	}
	status := http.StatusOK
	if p.Created {
		status = http.StatusCreated
		h.log.Info("session provisioned", "session", name, "fixture", p.Settings.Fixture, "seed", p.Settings.Seed, "clock", p.Settings.Clock.Mode, "fault_profile", p.Settings.FaultProfile, "rate_limit", p.Settings.RateLimit.String())
	}
	out := viewOf(name, p.Settings)
	out.EntitiesSeeded = ptr(p.Seeded)
	writeJSON(w, status, out)
}

// settingsFrom fills omitted provisioning fields from the serve-wide
// settings and validates the rest.
func (h *Handler) settingsFrom(w http.ResponseWriter, b *provisionBody) (session.Settings, bool) {
	set := h.eng.Defaults()
	if b.Fixture != nil {
		set.Fixture = *b.Fixture
	}
	if b.Seed != nil {
		var seed uint64
		if _, err := fmt.Sscan(b.Seed.String(), &seed); err != nil || b.Seed.String() != fmt.Sprint(seed) {
			apierr.Write(w, apierr.Errorf(apierr.InvalidSeed,
				"seed %s must be a whole number from 0 to 18446744073709551615", b.Seed))
			return set, false
		}
		set.Seed = seed
	}
	if b.FaultProfile != nil {
		set.FaultProfile = *b.FaultProfile
	}
	if b.RateLimit != nil {
		lim, err := rate.Parse(*b.RateLimit)
		if err != nil {
			apierr.Write(w, apierr.New(apierr.InvalidRateLimit, "rate_limit: "+err.Error()+`, or "" for none`))
			return set, false
		}
		set.RateLimit = lim
	}
	if b.PIIVerbatim != nil {
		fields, err := session.PIIFields(*b.PIIVerbatim)
		if err != nil {
			apierr.Write(w, apierr.New(apierr.InvalidPIIVerbatim, "pii_verbatim: "+err.Error()+`; send a list of field names such as ["email","name"], or [] for none`))
			return set, false
		}
		set.PIIVerbatim = fields
	}
	if c := b.Clock; c != nil {
		if !session.ValidClockMode(c.Mode) {
			apierr.Write(w, apierr.Errorf(apierr.InvalidClock, "clock.mode %q: want real, deterministic or fixed", c.Mode))
			return set, false
		}
		if c.Mode == session.ClockReal && (c.BaseEpoch != nil || c.BaseEpochSecs != nil) {
			field := "clock.base_epoch"
			if c.BaseEpoch == nil {
				field = "clock.base_epoch_secs"
			}
			apierr.Write(w, apierr.New(apierr.InvalidClock,
				field+` means nothing to a real clock, which reads the wall clock: drop it, or use "mode": "deterministic" or "fixed"`).With("field", field))
			return set, false
		}
		if c.BaseEpoch != nil && c.BaseEpochSecs != nil && *c.BaseEpoch != *c.BaseEpochSecs {
			apierr.Write(w, apierr.New(apierr.InvalidClock, "clock.base_epoch and clock.base_epoch_secs differ; send one"))
			return set, false
		}
		set.Clock.Mode = c.Mode
		switch {
		case c.BaseEpoch != nil:
			set.Clock.BaseEpoch = *c.BaseEpoch
		case c.BaseEpochSecs != nil:
			set.Clock.BaseEpoch = *c.BaseEpochSecs
		}
	}
	set.Clock.Step = session.StepOf(set.Clock.Mode, set.Clock.Step)
	if err := set.Validate(); err != nil { // the rules a snapshot's settings go through too
		apierr.Write(w, err)
		return set, false
	}
	return set, true
}

func (h *Handler) listSessions(w http.ResponseWriter, r *http.Request) {
	all := h.eng.Store().All()
	list := make([]sessionView, 0, len(all))
	for _, s := range all {
		sum := s.Summary()
		v := viewOf(sum.Name, sum.Settings)
		v.Provisioned, v.Requests, v.Entities = ptr(sum.Provisioned), ptr(sum.Requests), ptr(sum.Entities)
		list = append(list, v)
	}
	writeJSON(w, http.StatusOK, map[string]any{"sessions": list})
}

func (h *Handler) lookup(w http.ResponseWriter, r *http.Request) (*session.Session, bool) {
	name, ok := sessionName(w, r)
	if !ok {
		return nil, false
	}
	s := h.eng.Store().Get(name)
	if s == nil {
		apierr.Write(w, apierr.Errorf(apierr.SessionNotFound, "no session %q in this process", name).With("session", name))
		return nil, false
	}
	return s, true
}

func (h *Handler) resetSession(w http.ResponseWriter, r *http.Request) {
	s, ok := h.lookup(w, r)
	if !ok {
		return
	}
	s.Reset()
	h.log.Info("session reset", "session", s.Name())
	set, _ := s.Settings()
	out := viewOf(s.Name(), set)
	out.Reset, out.EntitiesSeeded = true, ptr(h.eng.Seeded(set.Fixture))
	writeJSON(w, http.StatusOK, out)
}

func (h *Handler) deleteSession(w http.ResponseWriter, r *http.Request) {
	s, ok := h.lookup(w, r)
	if !ok {
		return
	}
	h.eng.Store().Delete(s.Name())
	h.log.Info("session deleted", "session", s.Name())
	set, _ := s.Settings()
	out := viewOf(s.Name(), set)
	out.Deleted = true
	writeJSON(w, http.StatusOK, out)
}

func (h *Handler) resetAll(w http.ResponseWriter, r *http.Request) {
	all := h.eng.Store().All()
	for _, s := range all {
		s.Reset()
	}
	h.log.Info("reset every session", "sessions", len(all))
	writeJSON(w, http.StatusOK, map[string]any{"reset": true, "sessions": len(all)})
}

// stateView is the debug view of one session.
type stateView struct {
	sessionView
	Changes []changeView `json:"changes"`
}

type changeView struct {
	ID     string          `json:"id"`
	Object string          `json:"object"`
	Change string          `json:"change"` // created, changed or deleted
	Body   json.RawMessage `json:"body"`
}

func (h *Handler) state(w http.ResponseWriter, r *http.Request) {
	if !h.opts.Debug {
		apierr.Write(w, apierr.New(apierr.DebugDisabled, "the session state endpoint needs wraith serve --debug"))
		return
	}
	s, ok := h.lookup(w, r)
	if !ok {
		return
	}
	set, prov := s.Settings()
	out := stateView{sessionView: viewOf(s.Name(), set), Changes: []changeView{}}
	out.Provisioned = ptr(prov)
	s.Do(func(st *session.State) {
		for _, c := range engine.Changes(st) {
			kind := "changed"
			switch {
			case c.Deleted:
				kind = "deleted"
			case c.Created:
				kind = "created"
			}
			out.Changes = append(out.Changes, changeView{ID: c.ID, Object: c.Resource, Change: kind, Body: c.Body})
		}
		out.Clock.Now = ptr(st.Now(h.now))
		out.Requests = ptr(st.Requests())
	})
	out.Entities = ptr(s.Summary().Entities)
	writeJSON(w, http.StatusOK, out)
}

type clockMove struct {
	AdvanceSecs *int64 `json:"advance_secs"`
	SetEpoch    *int64 `json:"set_epoch"`
}

func (h *Handler) clock(w http.ResponseWriter, r *http.Request) {
	s, ok := h.lookup(w, r)
	if !ok {
		return
	}
	var mv clockMove
	if !decode(w, r, &mv) {
		return
	}
	if (mv.AdvanceSecs == nil) == (mv.SetEpoch == nil) {
		apierr.Write(w, apierr.New(apierr.InvalidClock, `send exactly one of {"advance_secs": N} or {"set_epoch": SECS}`))
		return
	}
	if mv.AdvanceSecs != nil && *mv.AdvanceSecs < 0 || mv.SetEpoch != nil && (*mv.SetEpoch < 0 || *mv.SetEpoch > session.MaxEpoch) {
		apierr.Write(w, apierr.Errorf(apierr.InvalidClock,
			"a clock moves to times from 0 to %d (the end of 2199), and advance_secs must not be negative", session.MaxEpoch))
		return
	}
	var mode string
	var now int64
	tooFar := false
	s.Do(func(st *session.State) {
		mode = st.ClockMode()
		if mode == session.ClockReal {
			return
		}
		now = st.Now(h.now)
		if mv.AdvanceSecs != nil && *mv.AdvanceSecs > session.MaxEpoch-now {
			tooFar = true
			return
		}
		if mv.AdvanceSecs != nil {
			st.Advance(*mv.AdvanceSecs)
		} else {
			st.SetEpoch(*mv.SetEpoch)
		}
		now = st.Now(h.now)
	})
	if tooFar {
		apierr.Write(w, apierr.Errorf(apierr.InvalidClock,
			"advancing %d seconds from %d would pass %d (the end of 2199), the latest time a clock reaches", *mv.AdvanceSecs, now, session.MaxEpoch))
		return
	}
	if mode == session.ClockReal {
		apierr.Write(w, apierr.Errorf(apierr.ClockNotMovable,
			"session %q uses the real clock; provision it with a deterministic or fixed clock to move time", s.Name()))
		return
	}
	h.log.Info("session clock moved", "session", s.Name(), "now", now)
	set, _ := s.Settings()
	out := viewOf(s.Name(), set)
	out.Clock.Now = &now
	writeJSON(w, http.StatusOK, out)
}
