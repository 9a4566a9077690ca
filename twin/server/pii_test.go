package server

import (
	"net/http"
	"strings"
	"testing"
)

// TestPIIVerbatimFlag: --pii-verbatim serves an agent's own email as it
// sent it; without the flag it comes back tokenized.
func TestPIIVerbatimFlag(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		verbatim bool
	}{{nil, false}, {[]string{"--pii-verbatim", "email"}, true}, {[]string{"--pii-verbatim", "name,email"}, true}} {
		srv, err := openWith(t, nil, nil, tc.args...)
		if err != nil {
			t.Fatal(err)
		}
		serveWith(t, srv)
		resp, body := do(t, srv.URL(), call{method: "POST", path: "/v1/customers", session: "pii", form: "email=jenny%40example.com"})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("create: %d %s", resp.StatusCode, body)
		}
		if have := strings.Contains(string(body), `"jenny@example.com"`); have != tc.verbatim {
			t.Errorf("%v: want the email verbatim %v, have %s", tc.args, tc.verbatim, body)
		}
	}
}
