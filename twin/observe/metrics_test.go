package observe

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/session"
)

// TestMetricsLabelsClosed: an entry's provenance and route reach the
// metrics only when they are of their closed sets (package prov's
// provenances, the routes the observer was made with); any other value is
// counted under "other", so invented values never mint series. The old
// observer made a series of every value it was given.
func TestMetricsLabelsClosed(t *testing.T) {
	o := New(session.NewStore(0), time.Now, "GET /v1/customers/{id}")
	for _, e := range []session.Entry{
		{Route: "GET /v1/customers/{id}", Provenance: "recorded", Status: 200},
		{Route: "GET /v1/invented-0", Provenance: "invented-0", Status: 200},
		{Route: "GET /v1/invented-1", Provenance: "invented-1", Status: 1000},
		{Provenance: "miss", Status: 501},
	} {
		o.Observe("s", &e)
	}
	rec := httptest.NewRecorder()
	o.Metrics().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	body := rec.Body.String()
	for _, tc := range []struct {
		line string
		want bool
	}{
		{`wraith_requests_total{provenance="recorded",route="GET /v1/customers/{id}",status="200"} 1`, true},
		{`wraith_requests_total{provenance="other",route="other",status="200"} 1`, true},
		{`wraith_requests_total{provenance="other",route="other",status="0"} 1`, true},
		{`wraith_requests_total{provenance="miss",route="none",status="501"} 1`, true},
		{`invented`, false},
		{`status="1000"`, false},
	} {
		if have := strings.Contains(body, tc.line); have != tc.want {
			t.Errorf("metrics hold %s: want %v, have %v\n%s", tc.line, tc.want, have, body)
		}
	}
}
