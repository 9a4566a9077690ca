package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wraithdev/wraith/twin/prov"
	"github.com/wraithdev/wraith/twin/session"
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

// TestMissLogBounded: a miss with a 30 KiB method and a 30 KiB path, sent
// over a real connection, is logged with both cut (16 bytes, 1 KiB) and
// their lengths beside them, in a line of a few KiB, not 60.
func TestMissLogBounded(t *testing.T) {
	var out syncBuffer
	log := hclog.New(&hclog.LoggerOptions{Output: &out, Level: hclog.Info, JSONFormat: true})
	srv, err := openWith(t, nil, log)
	if err != nil {
		t.Fatal(err)
	}
	serveWith(t, srv)
	method := strings.Repeat("X", 30<<10)
	path := "/v1/" + strings.Repeat("p", 30<<10-4)
	resp, body := do(t, srv.URL(), call{method: method, path: path, session: "big"})
	if resp.StatusCode != http.StatusNotImplemented {
		t.Fatalf("want the 501 miss, have %d %s", resp.StatusCode, body)
	}
	// The request's line is logged once its answer is written, so the
	// client may read the 501 before the line is there.
	waitUntil(t, "the miss line in the log", func() bool { return strings.Contains(out.String(), `"@message":"miss"`) })
	var miss map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if len(l) > 4<<10 {
			t.Errorf("want every log line under 4 KiB, have one of %d bytes", len(l))
		}
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["@message"] == "miss" {
			miss = m
		}
	}
	if miss == nil {
		t.Fatalf("no miss line:\n%.2000s", out.String())
	}
	for k, want := range map[string]any{
		"method": method[:16], "method_len": float64(30 << 10),
		"path": path[:1024], "path_len": float64(30 << 10),
	} {
		if have := miss[k]; have != want {
			t.Errorf("miss line: want %s=%.40v, have %.40v", k, want, have)
		}
	}
}

// TestMissLogSampling: the first miss of a method and path is logged, then
// one line per doubling with repeated=K, and at most missLines lines per
// missWindow whatever the paths, the held-back ones counted in the next
// line as unlogged=N. The clock is the test's.
func TestMissLogSampling(t *testing.T) {
	type step struct {
		path    string
		times   int
		advance time.Duration // before the step
	}
	for _, tc := range []struct {
		name  string
		steps []step
		// want is each line's path, repeated and unlogged ("" and 0 when
		// absent), in order.
		want []missLine
	}{
		{
			name:  "one path repeated",
			steps: []step{{path: "/v1/a", times: 100}},
			want: []missLine{{"/v1/a", 0, 0}, {"/v1/a", 2, 0}, {"/v1/a", 4, 0}, {"/v1/a", 8, 0},
				{"/v1/a", 16, 0}, {"/v1/a", 32, 0}, {"/v1/a", 64, 0}},
		},
		{
			name: "new paths past the budget",
			steps: func() []step {
				var s []step
				for i := range 25 {
					s = append(s, step{path: fmt.Sprintf("/v1/p%d", i), times: 1})
				}
				return append(s, step{path: "/v1/later", times: 1, advance: missWindow})
			}(),
			want: func() []missLine {
				var w []missLine
				for i := range missLines {
					w = append(w, missLine{fmt.Sprintf("/v1/p%d", i), 0, 0})
				}
				return append(w, missLine{"/v1/later", 0, 25 - missLines})
			}(),
		},
		{
			name: "a window later the budget is back",
			steps: []step{{path: "/v1/a", times: 1}, {path: "/v1/a", times: 1, advance: missWindow - 1},
				{path: "/v1/b", times: 1, advance: 1}},
			want: []missLine{{"/v1/a", 0, 0}, {"/v1/a", 2, 0}, {"/v1/b", 0, 0}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			log := hclog.New(&hclog.LoggerOptions{Output: &out, Level: hclog.Info, JSONFormat: true})
			now := time.Unix(1700000000, 0)
			watch := requestLog(log, func() time.Time { return now })
			for _, s := range tc.steps {
				now = now.Add(s.advance)
				for range s.times {
					watch("s", &session.Entry{Method: "GET", Path: s.path, Provenance: prov.Miss, Status: 501})
				}
			}
			var have []missLine
			for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				var m struct {
					Path     string
					Repeated int
					Unlogged int
				}
				if err := json.Unmarshal([]byte(l), &m); err != nil {
					t.Fatalf("%v: %s", err, l)
				}
				have = append(have, missLine{m.Path, m.Repeated, m.Unlogged})
			}
			if !slices.Equal(tc.want, have) {
				t.Errorf("want lines\n%v\nhave\n%v", tc.want, have)
			}
		})
	}
}

// missLine is what TestMissLogSampling checks of a line.
type missLine struct {
	path               string
	repeated, unlogged int
}

// TestRequestLogCutsAtDebug: the debug line of a request that is not a
// miss cuts its method and path too.
func TestRequestLogCutsAtDebug(t *testing.T) {
	var out bytes.Buffer
	log := hclog.New(&hclog.LoggerOptions{Output: &out, Level: hclog.Debug, JSONFormat: true})
	watch := requestLog(log, time.Now)
	path := "/v1/customers/" + strings.Repeat("é", 20<<10)
	watch("s", &session.Entry{Method: "GET", Path: path, Provenance: prov.Template, Status: 200})
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatalf("%v: %s", err, out.Bytes())
	}
	cutPath, _ := m["path"].(string)
	if !strings.HasPrefix(path, cutPath) || len(cutPath) > maxLogPath || len(cutPath) < maxLogPath-3 || m["path_len"] != float64(len(path)) {
		t.Errorf("want the path cut to %d bytes at a character boundary and path_len=%d, have %d bytes %.40q path_len=%v",
			maxLogPath, len(path), len(cutPath), cutPath, m["path_len"])
	}
}

// TestCut: a logged field is cut at a character boundary within one
// character of the limit, and bytes that are not UTF-8 at the limit itself.
func TestCut(t *testing.T) {
	for _, tc := range []struct {
		name, s  string
		limit    int
		want     string
		wantSize int
	}{
		{"short", "GET", 16, "GET", 0},
		{"ascii", strings.Repeat("a", 20), 16, strings.Repeat("a", 16), 20},
		{"inside a character", strings.Repeat("a", 15) + "é", 16, strings.Repeat("a", 15), 17},
		{"not UTF-8", strings.Repeat("\x80", 20), 16, strings.Repeat("\x80", 16), 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			have, size := cut(tc.s, tc.limit)
			if have != tc.want || size != tc.wantSize {
				t.Errorf("cut(%q, %d): want %q, %d; have %q, %d", tc.s, tc.limit, tc.want, tc.wantSize, have, size)
			}
		})
	}
}
