package engine

import (
	"strings"

	"github.com/wraithdev/wraith/internal/rate"
	"github.com/wraithdev/wraith/twin/fault"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/session"
)

// Fault profiles and rate limits are package fault's; this file is what
// the engine does with them when it is built, faulted.go what it does per
// request.

// ProfileError says a fault profile does not exist.
type ProfileError = fault.ProfileError

// compileProfiles builds the built-in fault profiles and the twin's own.
func (e *Engine) compileProfiles() error {
	set, err := fault.Compile(fault.Twin{
		Name:     e.twin.Name(),
		Profiles: e.twin.Manifest.FaultProfiles,
		Errors:   &e.twin.Manifest.Errors,
		HasRoute: e.hasRoute,
		Shape: func(a *format.Answer, status int) (int, []byte, error) {
			s, err := compileShaped(a, status)
			if err != nil {
				return 0, nil, err
			}
			return s.Status, []byte(s.Body), nil
		},
	})
	if err != nil {
		return err
	}
	e.faults = set
	return nil
}

// hasRoute reports whether tmpl is one of the twin's route templates.
func (e *Engine) hasRoute(method, tmpl string) bool {
	methods := []string{method}
	if method == "" {
		methods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}
	}
	for _, m := range methods {
		if ep, ok := e.router.Match(m, tmpl); ok && routePath(ep.Value) == tmpl {
			return true
		}
	}
	return false
}

// routePath is the path template of an endpoint's route.
func routePath(ep *Endpoint) string {
	r := ep.Route[0]
	return r[strings.IndexByte(r, ' ')+1:]
}

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
func (e *Engine) FaultProfiles() []string { return e.faults.Names() }

// CheckProfile returns a *ProfileError unless name is "" or a profile.
func (e *Engine) CheckProfile(name string) error { return e.faults.Check(name) }
