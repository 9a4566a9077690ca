package session

// SettingsJSON is a session's settings as the control plane shows them:
// the one shape of provisioning's answer, the session list, the reset,
// delete, clock and state answers and a provisioning conflict's
// "existing" and "requested" (a type that embeds it puts its fields in
// line with its own). Unset settings are null, so a reader tells "none"
// from a value; the field order is the order users read in the docs.
//
// Two other views of Settings exist because their wire shapes differ and
// must keep reading: provisioning's request, where every field is
// optional (absent means the serve-wide default) and the clock takes
// base_epoch_secs as another name for base_epoch (control's provisionBody,
// decoded strictly, so it must not accept this shape's clock.now); and a
// snapshot's SnapshotSettings, format 1's flat layout.
type SettingsJSON struct {
	Fixture      *string   `json:"fixture"`
	Seed         uint64    `json:"seed"`
	Clock        ClockJSON `json:"clock"`
	FaultProfile *string   `json:"fault_profile"`
	RateLimit    *string   `json:"rate_limit"`
	PIIVerbatim  []string  `json:"pii_verbatim,omitempty"`
}

// ClockJSON is a session clock as SettingsJSON shows it. BaseEpoch is
// null for a real clock, which reads the wall clock; Now, the clock's
// reading, is shown by the answers that read it (clock and state).
type ClockJSON struct {
	Mode      string `json:"mode"`
	BaseEpoch *int64 `json:"base_epoch"`
	Now       *int64 `json:"now,omitempty"`
}

// JSON returns s as the control plane shows it.
func (s Settings) JSON() SettingsJSON {
	v := SettingsJSON{Seed: s.Seed, Clock: ClockJSON{Mode: s.Clock.Mode}, PIIVerbatim: s.PIIVerbatim}
	if s.Clock.Mode != ClockReal {
		v.Clock.BaseEpoch = &s.Clock.BaseEpoch
	}
	if s.Fixture != "" {
		v.Fixture = &s.Fixture
	}
	if s.FaultProfile != "" {
		v.FaultProfile = &s.FaultProfile
	}
	if !s.RateLimit.IsZero() {
		limit := s.RateLimit.String()
		v.RateLimit = &limit
	}
	return v
}
