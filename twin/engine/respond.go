package engine

import (
	"errors"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/wraithdev/wraith/ipc"
	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/session"
)

// answer is a response being built under a session's lock and written
// after it is released.
type answer struct {
	status   int
	header   http.Header // recorded headers, replayed as they are
	body     []byte
	prov     string
	exchange []string
	replayed bool
	ignored  []string
	limit    apierr.Code   // the code of a Wraith limit the request passed, for X-Wraith-Limit
	wraith   bool          // body is a Wraith error, not the provider's
	link     []string      // a Link header, for lists paged GitHub's way
	fault    []string      // X-Wraith-Fault: the fault rule that fired
	reset    bool          // close the connection instead of answering
	delay    time.Duration // wait this long before answering (a slow fault on a real clock)
}

func (a *answer) fromRecorded(rec *recorded) {
	a.status, a.header, a.body, a.prov, a.exchange = rec.status, rec.header, rec.body, ProvRecorded, rec.exchange
}

// fail sets a Wraith error as the answer: the status its code has, the
// body in Wraith's shape.
func (a *answer) fail(err *apierr.Error) {
	a.status, a.body, a.wraith = err.Status(), err.Body(), true
}

// missf sets a structured miss: Wraith's own error shape, type wraith_miss.
func (a *answer) missf(code apierr.Code, format string, args ...any) {
	a.fail(apierr.Errorf(code, format, args...).With("type", "wraith_miss"))
	a.prov = ProvMiss
}

// Precomputed header values, so writing a response allocates little.
var (
	jsonType = []string{"application/json"}
	provVals = map[string][]string{
		ProvRecorded: {ProvRecorded}, ProvTemplate: {ProvTemplate}, ProvHandler: {ProvHandler},
		ProvFixture: {ProvFixture}, ProvFault: {ProvFault}, ProvMiss: {ProvMiss},
	}
	trueVal = []string{"true"}
)

func (e *Engine) write(w http.ResponseWriter, sess *session.Session, ep *endpoint, a *answer) {
	if a.reset {
		resetConn(w)
		return
	}
	h := w.Header()
	for k, v := range a.header {
		h[k] = v
	}
	if a.header == nil {
		h["Content-Type"] = jsonType
		setLength(h, len(a.body))
	}
	if a.link != nil {
		h["Link"] = a.link
	}
	if a.replayed {
		h["Idempotent-Replayed"] = trueVal
	}
	if !e.opts.NoControlHeaders {
		h["X-Wraith-Provenance"] = provVals[a.prov]
		if ep != nil {
			h["X-Wraith-Route"] = ep.route
		}
		if a.exchange != nil {
			h["X-Wraith-Exchange"] = a.exchange
		}
		age, at := e.age.values(e.now())
		h["X-Wraith-Twin-Age"] = age
		h["X-Wraith-Recorded-At"] = at
		h[ipc.SessionHeader] = sess.HeaderValue()
		if len(a.ignored) > 0 {
			h["X-Wraith-Ignored-Params"] = []string{ignoredHeader(a.ignored)}
			h["X-Wraith-Ignored-Params-Count"] = []string{strconv.Itoa(len(a.ignored))}
		}
		if a.limit != "" {
			h["X-Wraith-Limit"] = []string{string(a.limit)}
		}
		if a.fault != nil {
			h["X-Wraith-Fault"] = a.fault
		}
	}
	w.WriteHeader(a.status)
	w.Write(a.body)
}

// countedBody is the size below which net/http counts a body itself: a
// handler's first 2 KiB stay in its buffer, and when the handler returns
// with the whole body still there, net/http sends the Content-Length from
// it without a header map entry or an allocation.
const countedBody = 2048

// setLength sets Content-Length for a body net/http would otherwise send
// chunked.
func setLength(h http.Header, n int) {
	if n >= countedBody {
		h["Content-Length"] = []string{strconv.Itoa(n)}
	}
}

// Bounds of X-Wraith-Ignored-Params: a request may ignore tens of
// thousands of names, and common clients refuse header lines of more than
// a few KiB. X-Wraith-Ignored-Params-Count says how many there were.
const (
	maxIgnoredNames = 50
	maxIgnoredBytes = 1024
)

// ignoredHeader lists the first ignored names, in sorted order, that fit
// in maxIgnoredBytes, at most maxIgnoredNames of them; a name longer than
// the whole budget is cut short and ends in "...".
func ignoredHeader(names []string) string {
	b := make([]byte, 0, min(maxIgnoredBytes, 64*len(names)))
	for i, s := range names {
		if i == maxIgnoredNames {
			break
		}
		if i > 0 {
			if len(b)+1+len(s) > maxIgnoredBytes {
				break
			}
			b = append(b, ',')
		} else if len(s) > maxIgnoredBytes {
			s = s[:maxIgnoredBytes-3] + "..."
		}
		b = append(b, s...)
	}
	return string(b)
}

func joinComma(l []string) string {
	n := 0
	for _, s := range l {
		n += len(s) + 1
	}
	b := make([]byte, 0, n)
	for i, s := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, s...)
	}
	return string(b)
}

func (e *Engine) writeMiss(w http.ResponseWriter, name string, r *http.Request) {
	var a answer
	if e.router.PathKnown(r.URL.Path) {
		a.missf(apierr.RouteMiss, "the twin has %s but no %s route for it", r.URL.Path, r.Method)
	} else {
		a.missf(apierr.RouteMiss, "no route of twin %s matches %s %s", e.twin.Name(), r.Method, r.URL.Path)
	}
	h := w.Header()
	h["Content-Type"] = jsonType
	if !e.opts.NoControlHeaders {
		h["X-Wraith-Provenance"] = provVals[ProvMiss]
		age, at := e.age.values(e.now())
		h["X-Wraith-Twin-Age"] = age
		h["X-Wraith-Recorded-At"] = at
		h[ipc.SessionHeader] = []string{name}
	}
	w.WriteHeader(a.status)
	w.Write(a.body)
}

// writeSessionError answers a session that could not be had, and returns
// the status it wrote.
func (e *Engine) writeSessionError(w http.ResponseWriter, err error) int {
	fail := apierr.New(apierr.Internal, err.Error())
	if errors.Is(err, session.ErrLimit) {
		fail = apierr.New(apierr.SessionLimit, err.Error())
	}
	apierr.Write(w, fail)
	return fail.Status()
}

// ageHeader caches the twin-age header values for the current second.
type ageHeader struct {
	recordedAt time.Time
	cur        atomic.Pointer[ageValues]
}

type ageValues struct {
	unix int64
	age  []string
	at   []string
}

func (h *ageHeader) values(now time.Time) (age, at []string) {
	sec := now.Unix()
	if v := h.cur.Load(); v != nil && v.unix == sec {
		return v.age, v.at
	}
	v := &ageValues{unix: sec, at: []string{h.recordedAt.UTC().Format(time.RFC3339)}}
	a := int64(0)
	if !h.recordedAt.IsZero() {
		a = sec - h.recordedAt.Unix()
	}
	v.age = []string{strconv.FormatInt(a, 10)}
	h.cur.Store(v)
	return v.age, v.at
}

// TwinAge returns the twin's age in seconds at now.
func (e *Engine) TwinAge(now time.Time) int64 {
	if e.twin.RecordedAt.IsZero() {
		return 0
	}
	return now.Unix() - e.twin.RecordedAt.Unix()
}
