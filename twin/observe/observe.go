// Package observe watches a served twin's requests across sessions: the
// coverage report (which routes answered, from where, and what agents
// asked for that the twin could not answer) and the Prometheus metrics.
// It is fed every finished request by the session store (see
// session.Store.OnEntry) and keeps no package state: each server has its
// own Observer and its own metrics registry.
package observe

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/wraithdev/wraith/twin/prov"
	"github.com/wraithdev/wraith/twin/session"
)

// Observer collects coverage and metrics.
//
// A Prometheus label value is kept for the life of the process, whatever
// session it came from and whether that session still exists, so every
// label is drawn from a closed set fixed when the observer is made: the
// provenances of package prov, the twin's routes, and HTTP statuses. A
// value outside its set (which only a bug or a doctored snapshot could
// bring) is counted under "other" rather than minting a new series.
type Observer struct {
	cov     *Coverage
	reg     *prometheus.Registry
	reqs    *prometheus.CounterVec
	latency *prometheus.HistogramVec
	metrics http.Handler
	routes  map[string]bool // the route label's set: the twin's compiled route table
}

// Other is the label value of a provenance or route outside its closed
// set.
const Other = "other"

// New returns an observer of store's sessions; now is the wall clock of
// the coverage report's first_at and last_at. routes are the twin's
// routes as the engine names them ("GET /v1/customers/{id}"); a request
// journaled under any other route is counted under "other".
func New(store *session.Store, now func() time.Time, routes ...string) *Observer {
	o := &Observer{cov: newCoverage(now, MaxMisses), reg: prometheus.NewRegistry(), routes: make(map[string]bool, len(routes))}
	for _, r := range routes {
		o.routes[r] = true
	}
	o.reqs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "wraith_requests_total",
		Help: "Application requests answered, by provenance, route and status.",
	}, []string{"provenance", "route", "status"})
	o.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "wraith_request_duration_seconds",
		Help:    "Time from a request's arrival to its answer written, by provenance.",
		Buckets: []float64{.00005, .0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
	}, []string{"provenance"})
	sessions := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "wraith_sessions",
		Help: "Sessions alive in this process.",
	}, func() float64 { return float64(store.Len()) })
	entities := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "wraith_entities",
		Help: "Entities held by all sessions: each session's starting world under its changes.",
	}, func() float64 { return float64(store.Entities()) }) // never waits for a busy session
	o.reg.MustRegister(o.reqs, o.latency, sessions, entities)
	o.metrics = promhttp.HandlerFor(o.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
	return o
}

// Observe records one finished request of the named session.
func (o *Observer) Observe(name string, e *session.Entry) {
	route := e.Route
	switch {
	case route == "":
		route = "none"
	case !o.routes[route]:
		route = Other
	}
	p := e.Provenance
	if prov.Index(p) < 0 {
		p = Other
	}
	o.reqs.WithLabelValues(p, route, statusLabel(e.Status)).Inc()
	o.latency.WithLabelValues(p).Observe(e.Latency.Seconds())
	o.cov.observe(name, e)
}

// Metrics serves the Prometheus text exposition.
func (o *Observer) Metrics() http.Handler { return o.metrics }

// Coverage returns the coverage report.
func (o *Observer) Coverage() Report { return o.cov.report() }

// statusLabel formats a status without allocating: its three digits for
// 100 to 599, else "0", so the label has at most 501 values.
func statusLabel(code int) string {
	if code >= 100 && code < 600 {
		return statusText[code]
	}
	return "0"
}

var statusText = func() [600]string {
	var t [600]string
	for i := range t {
		t[i] = strconv.Itoa(i)
	}
	return t
}()
