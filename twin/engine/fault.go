package engine

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/wraithdev/wraith/twin/session"
)

// rateLimit is a parsed --rate-limit.
type rateLimit struct {
	n      int
	window time.Duration
}

func parseRate(s string) (rateLimit, error) {
	if s == "" {
		return rateLimit{}, nil
	}
	num, unit, ok := strings.Cut(s, "/")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 1 || (unit != "s" && unit != "m") {
		return rateLimit{}, fmt.Errorf("rate limit %q: want N/s or N/m", s)
	}
	w := time.Second
	if unit == "m" {
		w = time.Minute
	}
	return rateLimit{n: n, window: w}, nil
}

// limited reports whether the session is over its rate limit, answering
// with the provider's 429 and Retry-After when it is.
func (e *Engine) limited(st *session.State, a *answer) bool {
	if e.rate.n == 0 {
		return false
	}
	ok, wait := st.Allow(e.now(), e.rate.n, e.rate.window)
	if ok {
		return false
	}
	a.prov, a.status = ProvFault, http.StatusTooManyRequests
	a.header = http.Header{"Retry-After": {strconv.Itoa(wait)}, "Content-Type": jsonType}
	if e.errors.rateLimited != nil {
		e.errors.rateLimited.set(a, nil)
	} else {
		a.wraith = true
		a.body = errorBody("rate-limited", fmt.Sprintf("this session sent more than %d requests per %s", e.rate.n, e.rate.window), nil)
	}
	setLength(a.header, len(a.body))
	return true
}
