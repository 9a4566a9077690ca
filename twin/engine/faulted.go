package engine

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/fault"
	"github.com/wraithdev/wraith/twin/session"
)

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
