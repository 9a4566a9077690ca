package control

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/session"
)

// entryView is one journal entry as GET journal shows it.
type entryView struct {
	Index      int64   `json:"index"`
	At         string  `json:"at"`
	Method     string  `json:"method"`
	Path       string  `json:"path"`
	Route      string  `json:"route"`
	Status     int     `json:"status"`
	Provenance string  `json:"provenance"`
	Exchange   string  `json:"exchange,omitempty"`
	Fault      string  `json:"fault,omitempty"`
	LatencyMS  float64 `json:"latency_ms"`
	// Delivery is set on an entry that journals a webhook delivery the
	// twin made (provenance webhook), not a request it answered.
	Delivery *deliveryView `json:"delivery,omitempty"`
}

// deliveryView is what a webhook delivery attempt's entry shows beside a
// request's fields.
type deliveryView struct {
	URL     string `json:"url"`
	Event   string `json:"event"`
	Attempt int    `json:"attempt"`
	Error   string `json:"error,omitempty"`
	RetryAt string `json:"retry_at,omitempty"` // the session time of the next attempt
}

func deliveryOf(e *session.Entry) *deliveryView {
	d := e.Delivery()
	if d == nil {
		return nil
	}
	v := &deliveryView{URL: d.URL, Event: d.Event, Attempt: d.Attempt, Error: d.Error}
	if d.Retry != 0 {
		v.RetryAt = rfc3339(d.Retry)
	}
	return v
}

// journalView is the answer of GET journal.
type journalView struct {
	Session   string      `json:"session"`
	Entries   []entryView `json:"entries"`
	Dropped   int64       `json:"dropped"`
	NextAfter *int64      `json:"next_after"`
}

// journalFilter is the query of GET journal.
type journalFilter struct {
	limit                     int
	after                     int64
	method, route, provenance string
	har                       bool
}

func parseJournalFilter(r *http.Request, max int) (journalFilter, error) {
	q := r.URL.Query()
	f := journalFilter{limit: max, after: -1, method: q.Get("method"), route: q.Get("route"), provenance: q.Get("provenance")}
	for k := range q {
		switch k {
		case "limit", "after", "method", "route", "provenance", "format":
		default:
			return f, fmt.Errorf("unknown parameter %q: the journal takes limit, after, method, route, provenance and format", k)
		}
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > max {
			return f, fmt.Errorf("limit %q: want a whole number from 1 to %d (the journal limit)", v, max)
		}
		f.limit = n
	}
	if v := q.Get("after"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < -1 {
			return f, fmt.Errorf("after %q: want the index of an entry (next_after of the previous page), or -1", v)
		}
		f.after = n
	}
	switch q.Get("format") {
	case "", "json":
	case "har":
		f.har = true
	default:
		return f, fmt.Errorf("format %q: want json or har", q.Get("format"))
	}
	return f, nil
}

func (f journalFilter) keep(e *session.Entry) bool {
	return e.Index > f.after &&
		(f.method == "" || f.method == e.Method) &&
		(f.route == "" || f.route == e.Route) &&
		(f.provenance == "" || f.provenance == e.Provenance)
}

// rfc3339 formats a session clock reading.
func rfc3339(unix int64) string { return time.Unix(unix, 0).UTC().Format(time.RFC3339) }

func (h *Handler) journal(w http.ResponseWriter, r *http.Request) error {
	s, err := h.lookup(r)
	if err != nil {
		return err
	}
	f, err := parseJournalFilter(r, h.eng.Store().JournalLimit())
	if err != nil {
		return apierr.New(apierr.InvalidQuery, err.Error())
	}
	all, dropped := s.Journal().Entries()
	var picked []session.Entry
	for i := range all {
		if len(picked) == f.limit {
			break
		}
		if f.keep(&all[i]) {
			picked = append(picked, all[i])
		}
	}
	if f.har {
		h.writeHAR(w, s.Name(), picked)
		return nil
	}
	out := journalView{Session: s.Name(), Entries: make([]entryView, 0, len(picked)), Dropped: dropped}
	for i := range picked {
		e := &picked[i]
		out.Entries = append(out.Entries, entryView{
			Index: e.Index, At: rfc3339(e.At), Method: e.Method, Path: e.Path, Route: e.Route,
			Status: e.Status, Provenance: e.Provenance, Exchange: e.Exchange, Fault: e.Fault(),
			LatencyMS: float64(e.Latency.Microseconds()) / 1000, Delivery: deliveryOf(e),
		})
	}
	if n := len(picked); n > 0 {
		out.NextAfter = ptr(picked[n-1].Index)
	}
	return writeJSON(w, http.StatusOK, out)
}
