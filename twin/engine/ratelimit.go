package engine

import (
	"net/http"
	"strconv"
	"time"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/session"
)

// limited reports whether the session is over its rate limit, answering
// with the provider's 429 and Retry-After when it is. The limit is the
// session's own (provisioned, or the serve-wide --rate-limit) and counts
// on the session's clock: on a deterministic clock exactly N requests of
// each session-second pass, whatever the wall clock does. A refused
// request is still a request of the session, so its clock has moved
// (req.now), and an agent that waits out Retry-After gets through.
func (e *Engine) limited(st *session.State, req *request, a *answer) bool {
	lim := st.RateLimit()
	if lim.N == 0 {
		return false
	}
	ok, wait := st.Allow(time.Unix(req.now, 0), lim.N, lim.Window)
	if ok {
		return false
	}
	a.prov = ProvFault
	a.header = http.Header{"Retry-After": {strconv.Itoa(wait)}, "Content-Type": jsonType}
	if e.errors.rateLimited != nil {
		e.errors.rateLimited.set(a, nil)
	} else {
		a.fail(apierr.Errorf(apierr.RateLimited, "this session sent more than %d requests per %s, its rate limit: wait Retry-After seconds", lim.N, map[time.Duration]string{time.Second: "second", time.Minute: "minute"}[lim.Window]))
	}
	setLength(a.header, len(a.body))
	return true
}
