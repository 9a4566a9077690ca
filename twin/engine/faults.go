package engine

import (
	"github.com/wraithdev/wraith/internal/rate"
	"github.com/wraithdev/wraith/twin/fault"
	"github.com/wraithdev/wraith/twin/session"
)

// Fault profiles and rate limits are package fault's; this file is what
// the engine does with them when it is built, faulted.go what it does per
// request.

// ProfileError says a fault profile does not exist.
type ProfileError = fault.ProfileError

// faultDefaults fills the serve-wide fault profile and rate limit into
// the default settings, checking both.
func (e *Engine) faultDefaults(def *session.Settings) error {
	if def.FaultProfile == "" {
		def.FaultProfile = e.opts.FaultProfile
	}
	if err := e.CheckProfile(def.FaultProfile); err != nil {
		return err
	}
	if def.RateLimit.IsZero() {
		lim, err := rate.Parse(e.opts.RateLimit)
		if err != nil {
			return err
		}
		def.RateLimit = lim
	}
	return nil
}

// FaultProfiles returns the names of the twin's fault profiles, built-in
// ones included, sorted.
func (e *Engine) FaultProfiles() []string { return e.twin.Faults.Names() }

// CheckProfile returns a *ProfileError unless name is "" or a profile.
func (e *Engine) CheckProfile(name string) error { return e.twin.Faults.Check(name) }
