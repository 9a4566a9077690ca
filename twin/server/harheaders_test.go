package server

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/session"
)

const boomProfile = `
[[fault_profiles]]
name = "boom"
[[fault_profiles.rules]]
name = "balance-500"
match = { method = "GET", route = "/v1/balance" }
when = { every = 1 }
effect = { error = "api_error" }
`

// TestHARResponseHeadersAsSent: the journal keeps no answer's headers;
// the HAR rebuilds them with the function that wrote them. For every
// provenance (and a replay, ignored parameters, a rate limit's
// Retry-After), the HAR's response headers are the headers the client
// received over real HTTP, header by header, but for the Date and the
// Content-Length net/http adds on the wire.
func TestHARResponseHeadersAsSent(t *testing.T) {
	srv := startServer(t, faultTwin(t, boomProfile), "--fixture", "baseline")
	base := srv.URL()
	provision(t, base, `{"session":"limited","rate_limit":"1/m"}`)
	provision(t, base, `{"session":"faulty","fault_profile":"boom"}`)
	auth := map[string]string{"Authorization": "Bearer sk_test_SECRETSECRET"}
	idem := map[string]string{"Idempotency-Key": "k1"}
	calls := []call{
		{path: "/v1/customers/cus_123", session: "a", header: auth},
		{path: "/v1/customers/cus_7YEsm7HQZxTwoP", session: "a"},
		{path: "/v1/customers/cus_neverseen", session: "a"},
		{method: "POST", path: "/v1/customers", session: "a", form: "email=jenny%40example.com", header: idem},
		{method: "POST", path: "/v1/customers", session: "a", form: "email=jenny%40example.com", header: idem},
		{path: "/v1/customers?limit=1&bogus=1&other=2", session: "a"},
		{path: "/v1/teleporters/tp_1", session: "a"},
		{path: "/v1/customers/cus_123", session: "limited"},
		{path: "/v1/customers/cus_123", session: "limited"},
		{path: "/v1/balance", session: "faulty"},
	}
	sent := map[string][]http.Header{}
	provs := map[string]bool{}
	for _, c := range calls {
		resp, _ := do(t, base, c)
		sent[c.session] = append(sent[c.session], resp.Header)
		provs[resp.Header.Get("X-Wraith-Provenance")] = true
	}
	for _, p := range []string{"recorded", "fixture", "template", "handler", "miss", "fault"} {
		if !provs[p] {
			t.Errorf("no answer of provenance %s: the test no longer covers it (have %v)", p, provs)
		}
	}
	for name, headers := range sent {
		resp, body := do(t, base, call{path: "/__wraith/session/" + name + "/journal?format=har"})
		if resp.StatusCode != 200 {
			t.Fatalf("HAR of %s: %d %s", name, resp.StatusCode, body)
		}
		var doc struct {
			Log struct {
				Entries []struct {
					Response struct {
						Headers []struct{ Name, Value string }
					}
				}
			}
		}
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatalf("HAR of %s: %v", name, err)
		}
		if len(doc.Log.Entries) != len(headers) {
			t.Fatalf("HAR of %s: want %d entries, have %d", name, len(headers), len(doc.Log.Entries))
		}
		for i, ent := range doc.Log.Entries {
			har := http.Header{}
			for _, p := range ent.Response.Headers {
				har[p.Name] = append(har[p.Name], p.Value)
			}
			want := headers[i].Clone()
			want.Del("Date")
			if har.Get("Content-Length") == "" {
				want.Del("Content-Length") // counted by net/http, not by the twin
			}
			for k, vs := range want {
				for j := range vs {
					vs[j] = session.RedactHeader(k, vs[j])
				}
			}
			names := map[string]bool{}
			for k := range want {
				names[k] = true
			}
			for k := range har {
				names[k] = true
			}
			for _, k := range slices.Sorted(maps.Keys(names)) {
				if w, h := strings.Join(want[k], " | "), strings.Join(har[k], " | "); w != h {
					t.Errorf("%s entry %d (%s), header %s: the client received %q, the HAR shows %q", name, i, headers[i].Get("X-Wraith-Provenance"), k, w, h)
				}
			}
		}
	}
}
