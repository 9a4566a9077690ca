package control

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/wraithdev/wraith/twin/dialect"

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

// sessionView is a session as the control plane answers it: its name,
// its settings in their one shape (session.SettingsJSON) and what the
// answer adds.
type sessionView struct {
	Session     string `json:"session"`
	Provisioned *bool  `json:"provisioned,omitempty"`
	session.SettingsJSON
	EntitiesSeeded *int    `json:"entities_seeded,omitempty"`
	Requests       *uint64 `json:"requests,omitempty"`
	Entities       *int    `json:"entities,omitempty"`
	Reset          bool    `json:"reset,omitempty"`
	Deleted        bool    `json:"deleted,omitempty"`
}

func viewOf(name string, s session.Settings) sessionView {
	return sessionView{Session: name, SettingsJSON: s.JSON()}
}

func ptr[T any](v T) *T { return &v }

func (h *Handler) provision(w http.ResponseWriter, r *http.Request) error {
	var body provisionBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	name := r.PathValue("session")
	switch {
	case name != "" && body.Session != "" && body.Session != name:
		return apierr.Errorf(apierr.SessionMismatch,
			"the path names session %q but the body names %q; send one", name, body.Session)
	case name == "":
		name = body.Session
	}
	if name == "" {
		return apierr.New(apierr.InvalidSession, `the body needs "session": the session name to provision`)
	}
	if err := session.ValidateName(name); err != nil {
		return apierr.New(apierr.InvalidSession, err.Error())
	}
	set, err := h.settingsFrom(&body)
	if err != nil {
		return err
	}
	p, err := h.eng.Provision(name, set)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if p.Created {
		status = http.StatusCreated
		h.log.Info("session provisioned", "session", name, "fixture", p.Settings.Fixture, "seed", p.Settings.Seed, "clock", p.Settings.Clock.Mode, "fault_profile", p.Settings.FaultProfile, "rate_limit", p.Settings.RateLimit.String())
	}
	out := viewOf(name, p.Settings)
	out.EntitiesSeeded = ptr(p.Seeded)
	return writeJSON(w, status, out)
}

// settingsFrom fills omitted provisioning fields from the serve-wide
// settings and validates the rest.
func (h *Handler) settingsFrom(b *provisionBody) (session.Settings, error) {
	set := h.eng.Defaults()
	if b.Fixture != nil {
		set.Fixture = *b.Fixture
	}
	if b.Seed != nil {
		var seed uint64
		if _, err := fmt.Sscan(b.Seed.String(), &seed); err != nil || b.Seed.String() != fmt.Sprint(seed) {
			return set, apierr.Errorf(apierr.InvalidSeed,
				"seed %s must be a whole number from 0 to 18446744073709551615", b.Seed)
		}
		set.Seed = seed
	}
	if b.FaultProfile != nil {
		set.FaultProfile = *b.FaultProfile
	}
	if b.RateLimit != nil {
		lim, err := rate.Parse(*b.RateLimit)
		if err != nil {
			return set, apierr.New(apierr.InvalidRateLimit, "rate_limit: "+err.Error()+`, or "" for none`)
		}
		set.RateLimit = lim
	}
	if b.PIIVerbatim != nil {
		fields, err := session.PIIFields(*b.PIIVerbatim)
		if err != nil {
			return set, apierr.New(apierr.InvalidPIIVerbatim, "pii_verbatim: "+err.Error()+`; send a list of field names such as ["email","name"], or [] for none`)
		}
		set.PIIVerbatim = fields
	}
	if c := b.Clock; c != nil {
		if !session.ValidClockMode(c.Mode) {
			return set, apierr.Errorf(apierr.InvalidClock, "clock.mode %q: want real, deterministic or fixed", c.Mode)
		}
		if c.Mode == session.ClockReal && (c.BaseEpoch != nil || c.BaseEpochSecs != nil) {
			field := "clock.base_epoch"
			if c.BaseEpoch == nil {
				field = "clock.base_epoch_secs"
			}
			return set, apierr.New(apierr.InvalidClock,
				field+` means nothing to a real clock, which reads the wall clock: drop it, or use "mode": "deterministic" or "fixed"`).With("field", field)
		}
		if c.BaseEpoch != nil && c.BaseEpochSecs != nil && *c.BaseEpoch != *c.BaseEpochSecs {
			return set, apierr.New(apierr.InvalidClock, "clock.base_epoch and clock.base_epoch_secs differ; send one")
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
		return set, err
	}
	return set, nil
}

func (h *Handler) listSessions(w http.ResponseWriter, r *http.Request) error {
	all := h.eng.Store().All()
	list := make([]sessionView, 0, len(all))
	for _, s := range all {
		sum := s.Summary()
		v := viewOf(sum.Name, sum.Settings)
		v.Provisioned, v.Requests, v.Entities = ptr(sum.Provisioned), ptr(sum.Requests), ptr(sum.Entities)
		list = append(list, v)
	}
	return writeJSON(w, http.StatusOK, map[string]any{"sessions": list})
}

// lookup finds the session the {session} path value names.
func (h *Handler) lookup(r *http.Request) (*session.Session, error) {
	name, err := sessionName(r)
	if err != nil {
		return nil, err
	}
	s := h.eng.Store().Get(name)
	if s == nil {
		return nil, apierr.Errorf(apierr.SessionNotFound, "no session %q in this process", name).With("session", name)
	}
	return s, nil
}

func (h *Handler) resetSession(w http.ResponseWriter, r *http.Request) error {
	s, err := h.lookup(r)
	if err != nil {
		return err
	}
	if err := s.Reset(); err != nil {
		return err
	}
	h.log.Info("session reset", "session", s.Name())
	set, _ := s.Settings()
	out := viewOf(s.Name(), set)
	out.Reset, out.EntitiesSeeded = true, ptr(h.eng.Seeded(set.Fixture))
	return writeJSON(w, http.StatusOK, out)
}

func (h *Handler) deleteSession(w http.ResponseWriter, r *http.Request) error {
	s, err := h.lookup(r)
	if err != nil {
		return err
	}
	h.eng.Store().Delete(s.Name())
	h.log.Info("session deleted", "session", s.Name())
	set, _ := s.Settings()
	out := viewOf(s.Name(), set)
	out.Deleted = true
	return writeJSON(w, http.StatusOK, out)
}

func (h *Handler) resetAll(w http.ResponseWriter, r *http.Request) error {
	all := h.eng.Store().All()
	var errs []error
	for _, s := range all {
		errs = append(errs, s.Reset())
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	h.log.Info("reset every session", "sessions", len(all))
	return writeJSON(w, http.StatusOK, map[string]any{"reset": true, "sessions": len(all)})
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

// state is debug-only (its route says so): the table's adapter answers
// debug-disabled before it runs.
func (h *Handler) state(w http.ResponseWriter, r *http.Request) error {
	s, err := h.lookup(r)
	if err != nil {
		return err
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
	return writeJSON(w, http.StatusOK, out)
}

type clockMove struct {
	AdvanceSecs *int64 `json:"advance_secs"`
	SetEpoch    *int64 `json:"set_epoch"`
}

func (h *Handler) clock(w http.ResponseWriter, r *http.Request) error {
	s, err := h.lookup(r)
	if err != nil {
		return err
	}
	var mv clockMove
	if err := decode(w, r, &mv); err != nil {
		return err
	}
	if (mv.AdvanceSecs == nil) == (mv.SetEpoch == nil) {
		return apierr.New(apierr.InvalidClock, `send exactly one of {"advance_secs": N} or {"set_epoch": SECS}`)
	}
	if mv.AdvanceSecs != nil && *mv.AdvanceSecs < 0 || mv.SetEpoch != nil && (*mv.SetEpoch < 0 || *mv.SetEpoch > session.MaxEpoch) {
		return apierr.Errorf(apierr.InvalidClock,
			"a clock moves to times from 0 to %d (the end of 2199), and advance_secs must not be negative", session.MaxEpoch)
	}
	var mode string
	var now int64
	tooFar := false
	var due []dialect.Delivery
	err = s.Do(func(st *session.State) {
		mode = st.ClockMode()
		if mode == session.ClockReal {
			return
		}
		now = st.Now(h.now)
		if mv.AdvanceSecs != nil && *mv.AdvanceSecs > session.MaxEpoch-now {
			tooFar = true
			return
		}
		from := now
		if mv.AdvanceSecs != nil {
			st.Advance(*mv.AdvanceSecs)
		} else {
			st.SetEpoch(*mv.SetEpoch)
		}
		now = st.Now(h.now)
		// What fell due on the way runs now, in order (a clock set back
		// runs nothing): renewals, trial ends, retries.
		due = h.eng.Tick(st, from, now)
	})
	if err != nil {
		return err
	}
	h.eng.Advanced(s, now, due)
	if tooFar {
		return apierr.Errorf(apierr.InvalidClock,
			"advancing %d seconds from %d would pass %d (the end of 2199), the latest time a clock reaches", *mv.AdvanceSecs, now, session.MaxEpoch)
	}
	if mode == session.ClockReal {
		return apierr.Errorf(apierr.ClockNotMovable,
			"session %q uses the real clock; provision it with a deterministic or fixed clock to move time", s.Name())
	}
	h.log.Info("session clock moved", "session", s.Name(), "now", now)
	set, _ := s.Settings()
	out := viewOf(s.Name(), set)
	out.Clock.Now = &now
	return writeJSON(w, http.StatusOK, out)
}
