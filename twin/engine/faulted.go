package engine

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/wraithdev/wraith/internal/rate"
	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/fault"
	"github.com/wraithdev/wraith/twin/session"
)

// Fault profiles and rate limits are package fault's; this file is what
// the engine does with them per request (limited, faulted), and the
// profiles' names and defaults it checks when it is built or a session is
// provisioned.

// limited reports whether the session is over its rate limit, answering
// with the provider's 429 and Retry-After when it is. The limit is the
// session's own (provisioned, or the serve-wide --rate-limit) and counts
// on the session's clock: on a deterministic clock exactly N requests of
// each session-second pass, whatever the wall clock does (see fault.Limit).
func (e *Engine) limited(st *session.State, req *request, a *answer) bool {
	lim := st.RateLimit()
	over, wait := fault.Limit(st, lim, time.Unix(req.now, 0))
	if !over {
		return false
	}
	a.prov = ProvFault
	a.header = http.Header{"Retry-After": {strconv.Itoa(wait)}, "Content-Type": jsonType}
	if e.twin.Errors.RateLimited != nil {
		a.shape(e.twin.Errors.RateLimited, nil)
	} else {
		a.fail(fault.LimitError(lim))
	}
	compiled.SetLength(a.header, len(a.body))
	return true
}

// faulted answers a request under the session's fault profile: the
// first matching rule that fires answers in its stead (pre), after it
// (post: the change is kept, the answer is lost), or late.
func (e *Engine) faulted(st *session.State, req *request, a *answer) {
	p := e.twin.Faults.Profile(st.FaultProfile())
	if p == nil {
		e.dispatch(st, req, a)
		return
	}
	d := p.Decide(st.Seed(), st.RuleCounts(p.Len()), req.method, req.match.Value.Path())
	r := d.Rule
	if r == nil {
		e.dispatch(st, req, a)
		return
	}
	if d.Late && !st.Delay(d.Delay) {
		a.delay = d.Delay
	}
	if r.Effect() == fault.EffectNone || r.Post() {
		e.dispatch(st, req, a)
	}
	a.fault = r.Header()
	if r.Effect() == fault.EffectNone {
		return
	}
	*a = answer{prov: ProvFault, fault: r.Header(), delay: a.delay}
	if r.Effect() == fault.EffectReset {
		a.reset = true
		return
	}
	a.status, a.body, a.wraith = r.Answer()
}

// wait sleeps for a slow answer on a real clock, as long as the client
// waits; false when it went away.
func wait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// resetConn closes the client's connection with no answer, as a provider
// whose load balancer drops it: a TCP reset where the connection is TCP.
func resetConn(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler) // HTTP/2, or a writer that cannot hand over its connection
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

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
