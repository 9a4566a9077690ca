package session

import (
	"slices"
	"time"

	"github.com/wraithdev/wraith/twin/apierr"
)

// MaxClockStep is the longest deterministic clock step.
const MaxClockStep = 24 * time.Hour

// Validate checks settings that come from outside, a provisioning call or
// a snapshot: the one set of rules both go through. It answers the first
// problem as a Wraith error naming the field (invalid-clock,
// invalid-pii-verbatim), so a restore refuses what provisioning refuses.
// Whether the fixture and fault profile exist is the engine's to say.
func (s Settings) Validate() *apierr.Error {
	c := s.Clock
	switch {
	case !ValidClockMode(c.Mode):
		return apierr.Errorf(apierr.InvalidClock, "clock mode %q: want real, deterministic or fixed", c.Mode).With("field", "clock.mode")
	case c.Mode != ClockReal && (c.BaseEpoch < 0 || c.BaseEpoch > MaxEpoch):
		return apierr.Errorf(apierr.InvalidClock, "clock epoch %d: want 0 to %d (the end of 2199)", c.BaseEpoch, MaxEpoch).With("field", "clock.base_epoch")
	case c.Mode == ClockDeterministic && (c.Step <= 0 || c.Step > MaxClockStep):
		return apierr.Errorf(apierr.InvalidClock, "clock step %s: a deterministic clock steps by a positive duration up to 24h, such as 1s or 250ms", c.Step).With("field", "clock_step")
	case c.Mode != ClockDeterministic && c.Step != 0:
		return apierr.Errorf(apierr.InvalidClock, "clock step %s: only a deterministic clock steps, and this one is %s; drop the step", c.Step, c.Mode).With("field", "clock_step")
	}
	if len(s.PIIVerbatim) > 0 {
		fields, err := PIIFields(s.PIIVerbatim)
		if err != nil {
			return apierr.New(apierr.InvalidPIIVerbatim, "pii_verbatim: "+err.Error())
		}
		if !slices.Equal(fields, s.PIIVerbatim) {
			return apierr.New(apierr.InvalidPIIVerbatim, "pii_verbatim: field names must be lower-case, sorted and without repeats")
		}
	}
	return nil
}

// StepOf returns the clock step a session with this clock mode keeps:
// step for a deterministic clock, none for the others, which do not step.
func StepOf(mode string, step time.Duration) time.Duration {
	if mode != ClockDeterministic {
		return 0
	}
	return step
}
