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

	"github.com/wraithdev/wraith/twin/session"
)

// Observer collects coverage and metrics.
type Observer struct {
	cov     *Coverage
	reg     *prometheus.Registry
	reqs    *prometheus.CounterVec
	latency *prometheus.HistogramVec
	metrics http.Handler
}

// New returns an observer of store's sessions; now is the wall clock of
// the coverage report's first_at and last_at.
func New(store *session.Store, now func() time.Time) *Observer {
	o := &Observer{cov: newCoverage(now, MaxMisses), reg: prometheus.NewRegistry()}
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
	if route == "" {
		route = "none"
	}
	o.reqs.WithLabelValues(e.Provenance, route, statusLabel(e.Status)).Inc()
	o.latency.WithLabelValues(e.Provenance).Observe(e.Latency.Seconds())
	o.cov.observe(name, e)
}

// Metrics serves the Prometheus text exposition.
func (o *Observer) Metrics() http.Handler { return o.metrics }

// Coverage returns the coverage report.
func (o *Observer) Coverage() Report { return o.cov.report() }

// statusLabel formats common statuses without allocating.
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
