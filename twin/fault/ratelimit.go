package fault

import (
	"time"

	"github.com/wraithdev/wraith/internal/rate"
	"github.com/wraithdev/wraith/twin/apierr"
)

// Window is what the rate-limit check needs of a session: its fixed
// window, which counts the session's requests on its own clock and says
// how long until the window ends when it is full. *session.State is one.
type Window interface {
	Allow(now time.Time, limit int, window time.Duration) (ok bool, retryAfter int)
}

// Limit checks a request at now, the session's time, against its rate
// limit lim (zero for none). Over the limit it reports the whole seconds
// until the window ends, for Retry-After. A refused request is still a
// request of the session: its clock has moved to now, so an agent that
// waits out Retry-After gets through.
func Limit(w Window, lim rate.Limit, now time.Time) (over bool, retryAfter int) {
	if lim.N == 0 {
		return false, 0
	}
	ok, wait := w.Allow(now, lim.N, lim.Window)
	return !ok, wait
}

// LimitError is Wraith's own 429 for a session over lim, for a twin that
// does not say how its provider answers one ([errors.rate_limited]).
func LimitError(lim rate.Limit) *apierr.Error {
	var per string
	switch lim.Window {
	case time.Second:
		per = "second"
	case time.Minute:
		per = "minute"
	}
	return apierr.Errorf(apierr.RateLimited, "this session sent more than %d requests per %s, its rate limit: wait Retry-After seconds", lim.N, per)
}
