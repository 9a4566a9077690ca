package server

import (
	"bytes"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestRefusedRequestsCounted: requests refused before their session's
// lock (a bad session name, a body over --max-body, parameters past the
// request limits, the session limit) are counted by metrics and coverage
// with their status and provenance, and journaled nowhere.
func TestRefusedRequestsCounted(t *testing.T) {
	srv := startServer(t, "checkout", "--max-body", "300000", "--max-sessions", "1")
	base := srv.URL()
	provisionDet(t, base, "only")
	do(t, base, call{path: "/v1/customers/cus_123", session: "bad name!"})
	do(t, base, call{method: "POST", path: "/v1/customers", session: "only", form: "description=" + strings.Repeat("x", 400000)})
	do(t, base, call{method: "POST", path: "/v1/customers", session: "only", form: "a" + strings.Repeat("&a", 100_001)})
	do(t, base, call{path: "/v1/customers/cus_123", session: "second"})

	resp, body := do(t, base, call{path: "/__wraith/metrics"})
	if resp.StatusCode != 200 {
		t.Fatalf("metrics: %d %s", resp.StatusCode, body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	count := func(prov, route, status string) float64 {
		for _, m := range fams["wraith_requests_total"].GetMetric() {
			l := map[string]string{}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			if l["provenance"] == prov && l["route"] == route && l["status"] == status {
				return m.GetCounter().GetValue()
			}
		}
		return 0
	}
	for _, tc := range []struct{ what, prov, route, status string }{
		{"invalid-session", "fault", "none", "400"},
		{"body-too-large", "fault", "POST /v1/customers", "413"},
		{"too-many-params", "handler", "POST /v1/customers", "400"},
		{"session-limit", "fault", "GET /v1/customers/{id}", "503"},
	} {
		if c := count(tc.prov, tc.route, tc.status); c != 1 {
			t.Errorf("%s: want wraith_requests_total{provenance=%q,route=%q,status=%q} 1, have %v", tc.what, tc.prov, tc.route, tc.status, c)
		}
	}
	resp, body = do(t, base, call{path: "/__wraith/coverage"})
	if resp.StatusCode != 200 || !strings.Contains(string(body), `{"method":"POST","route":"/v1/customers","hits":{"fault":1,"fixture":0,"handler":1,`) {
		t.Errorf("coverage: want POST /v1/customers with one fault and one handler hit, have %s", body)
	}
	if j := getJournal(t, base, "only", ""); len(j.Entries) != 0 {
		t.Errorf("refused requests were journaled: %+v", j.Entries)
	}
	if srv.Engine().Store().Len() != 1 {
		t.Errorf("want only the provisioned session, have %d", srv.Engine().Store().Len())
	}
}
