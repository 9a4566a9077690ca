package server

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
)

// TestHeadLikeGet: HEAD answers as GET does, in each provenance, with the
// same status, provenance and Content-Length, and no body.
func TestHeadLikeGet(t *testing.T) {
	srv, err := openWith(t, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	serveWith(t, srv)
	base := srv.URL()
	resp, body := do(t, base, call{method: "POST", path: "/v1/customers", session: "head", form: "email=jenny@example.com"})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("create: %d %s", resp.StatusCode, body)
	}
	var created struct{ ID string }
	json.Unmarshal(body, &created)
	for _, tc := range []struct{ path, provenance string }{
		{"/v1/customers/cus_123", "recorded"},
		{"/v1/customers/cus_neverseen", "template"},
		{"/v1/customers/" + created.ID, "handler"},
		{"/v1/no/such/route", "miss"},
	} {
		t.Run(tc.provenance, func(t *testing.T) {
			get, getBody := do(t, base, call{method: "GET", path: tc.path, session: "head"})
			head, headBody := do(t, base, call{method: "HEAD", path: tc.path, session: "head"})
			if p := get.Header.Get("X-Wraith-Provenance"); p != tc.provenance {
				t.Fatalf("GET %s: want provenance %s, have %s", tc.path, tc.provenance, p)
			}
			if head.StatusCode != get.StatusCode || head.Header.Get("X-Wraith-Provenance") != tc.provenance {
				t.Errorf("HEAD %s: want %d %s as GET, have %d %s", tc.path, get.StatusCode, tc.provenance, head.StatusCode, head.Header.Get("X-Wraith-Provenance"))
			}
			if want, have := get.Header.Get("Content-Length"), head.Header.Get("Content-Length"); want == "" && have != "" || want != "" && have != want {
				t.Errorf("HEAD %s: want Content-Length %q as GET (body %d bytes), have %q", tc.path, want, len(getBody), have)
			}
			if len(headBody) != 0 {
				t.Errorf("HEAD %s: want no body, have %q", tc.path, headBody)
			}
		})
	}
}

// TestRequestLog: at debug level one structured line per application
// request; at info only misses.
func TestRequestLog(t *testing.T) {
	for _, level := range []hclog.Level{hclog.Debug, hclog.Info} {
		t.Run(level.String(), func(t *testing.T) {
			var out syncBuffer
			log := hclog.New(&hclog.LoggerOptions{Output: &out, Level: level, JSONFormat: true})
			srv, err := openWith(t, nil, log)
			if err != nil {
				t.Fatal(err)
			}
			serveWith(t, srv)
			do(t, srv.URL(), call{method: "GET", path: "/v1/customers/cus_123", session: "agent-1"})
			do(t, srv.URL(), call{method: "GET", path: "/v1/nope", session: "agent-2"})
			do(t, srv.URL(), call{method: "POST", path: "/__wraith/reset"})
			lines := map[string]map[string]any{}
			for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				var m map[string]any
				if json.Unmarshal([]byte(l), &m) == nil {
					lines[m["@message"].(string)] = m
				}
			}
			req, ok := lines["request"]
			if level == hclog.Debug {
				if !ok {
					t.Fatalf("no request line at debug:\n%s", out.String())
				}
				for k, v := range map[string]any{"session": "agent-1", "method": "GET", "path": "/v1/customers/cus_123",
					"route": "GET /v1/customers/{id}", "status": float64(200), "provenance": "recorded", "@level": "debug"} {
					if req[k] != v {
						t.Errorf("request line: want %s=%v, have %v (%v)", k, v, req[k], req)
					}
				}
				if _, ok := req["duration"]; !ok {
					t.Errorf("request line has no duration: %v", req)
				}
			} else if ok {
				t.Errorf("a request line at info: %v", req)
			}
			miss := lines["miss"]
			if miss["@level"] != "info" || miss["path"] != "/v1/nope" || miss["session"] != "agent-2" || miss["status"] != float64(501) {
				t.Errorf("miss line: want info, /v1/nope, agent-2, 501; have %v\n%s", miss, out.String())
			}
			if r := lines["reset every session"]; r["@level"] != "info" {
				t.Errorf("want the global reset logged at info, have %v\n%s", r, out.String())
			}
		})
	}
}

// syncBuffer is a log output the server's goroutines and the test share.
type syncBuffer struct{ lockedBuffer }

var _ io.Writer = (*syncBuffer)(nil)
