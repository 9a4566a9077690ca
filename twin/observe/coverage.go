package observe

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"

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

// What a miss keeps of a request's method and path: a path is up to 64
// KiB on the wire, and a thousand misses kept whole held 190 MB. A longer
// one is kept as its first MaxMissPath bytes (MaxMissMethod for the
// method), its whole length in the report, and misses that agree on the
// kept bytes are counted as one.
const (
	MaxMissPath   = 512
	MaxMissMethod = 32
)

// MaxCoverageBytes bounds, by estimate, what the misses table holds
// altogether, session names included (a hundred names of 128 bytes per
// miss would otherwise be 13 MB at MaxMisses): past it a new miss is only
// counted, as past MaxMisses, and a new session of a known miss only in
// its sessions_more. The table is kept across resets (the report is "since
// start"), so this is what it may ever hold.
const MaxCoverageBytes = 4 << 20

// Estimates of what a miss and one of its session names hold beside their
// bytes: the structs, the map slots, the timestamps.
const (
	missBase    = 256
	sessionBase = 48
)

// Coverage counts what a twin answered since it started.
type Coverage struct {
	now    func() time.Time
	max    int
	routes sync.Map // "METHOD /route/{id}" → *routeHits

	mu      sync.Mutex
	misses  map[string]*miss
	dropped int64
	bytes   int64           // what misses holds, by the estimates above
	mem     *session.Memory // the store's account, told of bytes; nil for none
}

type routeHits struct {
	method, route string
	hits          [prov.Count]atomic.Int64 // by prov.Index
}

type miss struct {
	method, path  string // as kept: substrings of the table's key
	methodBytes   int    // the whole method's length, when it was cut short
	pathBytes     int    // the whole path's length, when it was cut short
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

// AccountTo tells m what the coverage report holds, from now on: the
// store's one budget for what clients grow (session.Memory) counts it.
// The metrics show that budget: wraith_client_memory_bytes by kind
// (journal, coverage, idempotency) beside wraith_client_memory_budget_bytes,
// and wraith_journal_swept_total, the entries dropped to keep within it.
func (o *Observer) AccountTo(m *session.Memory) {
	c := o.cov
	c.mu.Lock()
	c.mem = m
	m.AddCoverage(c.bytes)
	c.mu.Unlock()
	held := prometheus.NewDesc("wraith_client_memory_bytes",
		"Bytes, by estimate, of what clients grow that the journal budget bounds, by kind.", []string{"kind"}, nil)
	o.reg.MustRegister(memoryCollector{m, held},
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "wraith_client_memory_budget_bytes",
			Help: "The journal budget: what journals, coverage misses and idempotency caches may hold together (--journal-memory).",
		}, func() float64 { return float64(m.Budget()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "wraith_journal_swept_total",
			Help: "Journal entries dropped, oldest of any session first, to keep within the journal budget.",
		}, func() float64 { return float64(m.Swept()) }))
}

// memoryCollector reads the three kinds of the store's account at once.
type memoryCollector struct {
	m    *session.Memory
	desc *prometheus.Desc
}

func (mc memoryCollector) Describe(ch chan<- *prometheus.Desc) { ch <- mc.desc }

func (mc memoryCollector) Collect(ch chan<- prometheus.Metric) {
	for _, k := range []struct {
		kind string
		n    int64
	}{{"journal", mc.m.Journal()}, {"coverage", mc.m.Coverage()}, {"idempotency", mc.m.Idempotency()}} {
		ch <- prometheus.MustNewConstMetric(mc.desc, prometheus.GaugeValue, float64(k.n), k.kind)
	}
}

func (c *Coverage) missed(name string, e *session.Entry) {
	now := c.now()
	method, path := cut(e.Method, MaxMissMethod), cut(e.Path, MaxMissPath)
	key := method + " " + path
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.misses[key]
	if m == nil {
		cost := int64(missBase + 2*len(key)) // the key, and the map's copy of its header
		if len(c.misses) >= c.max || c.bytes+cost > MaxCoverageBytes {
			c.dropped++
			return
		}
		m = &miss{method: key[:len(method)], path: key[len(method)+1:], sessions: map[string]bool{}, first: now}
		if len(method) < len(e.Method) {
			m.methodBytes = len(e.Method)
		}
		if len(path) < len(e.Path) {
			m.pathBytes = len(e.Path)
		}
		c.misses[key] = m
		c.charge(cost)
	}
	m.count++
	m.last = now
	if !m.sessions[name] {
		cost := int64(sessionBase + len(name))
		if len(m.sessions) < maxMissSessions && c.bytes+cost <= MaxCoverageBytes {
			m.sessions[strings.Clone(name)] = true // not the request's string, which holds its header
			c.charge(cost)
		} else {
			m.extraSessions++
		}
	}
}

func (c *Coverage) charge(n int64) {
	c.bytes += n
	if c.mem != nil {
		c.mem.AddCoverage(n)
	}
}

// cut returns s's first n bytes, whole characters only.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Report is the coverage report.
type Report struct {
	Routes []RouteReport `json:"routes"`
	Misses []MissReport  `json:"misses"`
	// MissesDropped counts misses of new paths past MaxMisses (or past
	// MaxCoverageBytes): the others, counted but not listed.
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
	Method string `json:"method"`
	Path   string `json:"path"`
	// PathBytes and MethodBytes are the whole lengths of a path or a
	// method longer than the report keeps (MaxMissPath, MaxMissMethod);
	// absent when kept whole.
	PathBytes   int      `json:"path_bytes,omitempty"`
	MethodBytes int      `json:"method_bytes,omitempty"`
	Count       int64    `json:"count"`
	Sessions    []string `json:"sessions"`
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
		mr := MissReport{Method: m.method, Path: m.path, PathBytes: m.pathBytes, MethodBytes: m.methodBytes, Count: m.count, SessionsMore: m.extraSessions,
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
