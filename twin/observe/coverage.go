package observe

import (
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wraithdev/wraith/twin/prov"
	"github.com/wraithdev/wraith/twin/session"
)

// MaxMisses bounds the misses table: past this many distinct method and
// path pairs, further new ones are only counted (Report.MissesDropped).
// Agents probing many ids of one unknown route would otherwise grow it
// without limit.
const MaxMisses = 1000

// maxMissSessions bounds the session names kept per miss; the count goes
// on.
const maxMissSessions = 100

// Coverage counts what a twin answered since it started.
type Coverage struct {
	now    func() time.Time
	max    int
	routes sync.Map // "METHOD /route/{id}" → *routeHits

	mu      sync.Mutex
	misses  map[string]*miss
	dropped int64
}

type routeHits struct {
	method, route string
	hits          [prov.Count]atomic.Int64 // by prov.Index
}

type miss struct {
	method, path  string
	count         int64
	sessions      map[string]bool
	first, last   time.Time
	extraSessions int64
}

func newCoverage(now func() time.Time, max int) *Coverage {
	return &Coverage{now: now, max: max, misses: map[string]*miss{}}
}

func (c *Coverage) observe(name string, e *session.Entry) {
	if e.Route != "" {
		v, ok := c.routes.Load(e.Route)
		if !ok {
			method, route := splitRoute(e.Route)
			v, _ = c.routes.LoadOrStore(e.Route, &routeHits{method: method, route: route})
		}
		if i := prov.Index(e.Provenance); i >= 0 {
			v.(*routeHits).hits[i].Add(1)
		}
	}
	if e.Provenance == prov.Miss {
		c.missed(name, e)
	}
}

func splitRoute(r string) (string, string) {
	for i := 0; i < len(r); i++ {
		if r[i] == ' ' {
			return r[:i], r[i+1:]
		}
	}
	return "", r
}

func (c *Coverage) missed(name string, e *session.Entry) {
	now := c.now()
	key := e.Method + " " + e.Path
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.misses[key]
	if m == nil {
		if len(c.misses) >= c.max {
			c.dropped++
			return
		}
		m = &miss{method: e.Method, path: e.Path, sessions: map[string]bool{}, first: now}
		c.misses[key] = m
	}
	m.count++
	m.last = now
	if !m.sessions[name] {
		if len(m.sessions) < maxMissSessions {
			m.sessions[name] = true
		} else {
			m.extraSessions++
		}
	}
}

// Report is the coverage report.
type Report struct {
	Routes []RouteReport `json:"routes"`
	Misses []MissReport  `json:"misses"`
	// MissesDropped counts misses of new paths past MaxMisses.
	MissesDropped int64 `json:"misses_dropped"`
	MissesLimit   int   `json:"misses_limit"`
}

// RouteReport is one route's hits by provenance.
type RouteReport struct {
	Method string           `json:"method"`
	Route  string           `json:"route"`
	Hits   map[string]int64 `json:"hits"`
}

// MissReport is one method and path the twin could not answer.
type MissReport struct {
	Method   string   `json:"method"`
	Path     string   `json:"path"`
	Count    int64    `json:"count"`
	Sessions []string `json:"sessions"`
	// SessionsMore counts sessions past the ones listed.
	SessionsMore int64  `json:"sessions_more,omitempty"`
	FirstAt      string `json:"first_at"`
	LastAt       string `json:"last_at"`
}

func (c *Coverage) report() Report {
	r := Report{Routes: []RouteReport{}, Misses: []MissReport{}, MissesLimit: c.max}
	c.routes.Range(func(_, v any) bool {
		rh := v.(*routeHits)
		rr := RouteReport{Method: rh.method, Route: rh.route, Hits: map[string]int64{}}
		for i, p := range prov.All {
			rr.Hits[p] = rh.hits[i].Load()
		}
		r.Routes = append(r.Routes, rr)
		return true
	})
	c.mu.Lock()
	for _, m := range c.misses {
		mr := MissReport{Method: m.method, Path: m.path, Count: m.count, SessionsMore: m.extraSessions,
			FirstAt: m.first.UTC().Format(time.RFC3339), LastAt: m.last.UTC().Format(time.RFC3339)}
		for s := range m.sessions {
			mr.Sessions = append(mr.Sessions, s)
		}
		sort.Strings(mr.Sessions)
		r.Misses = append(r.Misses, mr)
	}
	r.MissesDropped = c.dropped
	c.mu.Unlock()
	SortReport(&r)
	return r
}

// SortReport puts a report in its documented order: routes by route and
// method, misses most asked first (then by path and method).
func SortReport(r *Report) {
	sort.Slice(r.Routes, func(i, j int) bool {
		if r.Routes[i].Route != r.Routes[j].Route {
			return r.Routes[i].Route < r.Routes[j].Route
		}
		return r.Routes[i].Method < r.Routes[j].Method
	})
	sort.Slice(r.Misses, func(i, j int) bool {
		a, b := r.Misses[i], r.Misses[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Method < b.Method
	})
}

// MergeSessions unites two misses' session lists (sorted, as reports list
// them), keeping at most the report's bound of names and counting the
// rest in the returned more, as one process's report would.
func MergeSessions(a []string, aMore int64, b []string, bMore int64) ([]string, int64) {
	out := make([]string, 0, len(a)+len(b))
	out = append(append(out, a...), b...)
	slices.Sort(out)
	out = slices.Compact(out)
	more := aMore + bMore
	if len(out) > maxMissSessions {
		more += int64(len(out) - maxMissSessions)
		out = out[:maxMissSessions]
	}
	return out, more
}
