package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/observe"
)

func TestFleetFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args     []string
		env      map[string]string
		want     *fleetOptions
		wantCode int
		wantErr  string
	}{
		{args: []string{"sessions", "--replicas", "http://127.0.0.1:1/,http://127.0.0.1:2"},
			want: &fleetOptions{Action: "sessions", Replicas: []string{"http://127.0.0.1:1", "http://127.0.0.1:2"}, Format: "text", Timeout: 5 * time.Second}},
		{args: []string{"reset", "--format", "json", "--timeout", "1s", "--control-token-env", "TOK"}, env: map[string]string{"TOK": "s3cret"},
			want: &fleetOptions{Action: "reset", Format: "json", Timeout: time.Second, ControlTokenEnv: "TOK"}},
		{args: []string{}, wantCode: exitUsage, wantErr: "takes one action"},
		{args: []string{"purge"}, wantCode: exitUsage, wantErr: `unknown action "purge"`},
		{args: []string{"sessions", "--replicas", "127.0.0.1:8081"}, wantCode: exitUsage, wantErr: "want http://HOST:PORT"},
		{args: []string{"sessions", "--replicas", "http://a:1,http://a:1/"}, wantCode: exitUsage, wantErr: "twice"},
		{args: []string{"metrics", "--format", "yaml"}, wantCode: exitUsage, wantErr: "--format"},
		{args: []string{"metrics", "--control-token-env", "UNSET"}, wantCode: exitUsage, wantErr: "empty or unset"},
		{args: []string{"fork", "agent-1", "agent-2", "--proxy", "http://127.0.0.1:8080/"},
			want: &fleetOptions{Action: "fork", Sessions: []string{"agent-1", "agent-2"}, Proxy: "http://127.0.0.1:8080", Format: "text", Timeout: 5 * time.Second}},
		{args: []string{"fork", "agent-1"}, wantCode: exitUsage, wantErr: "takes two sessions"},
		{args: []string{"fork", "agent-1", "agent-2"}, wantCode: exitUsage, wantErr: "give --proxy URL"},
		{args: []string{"fork", "agent-1", "agent-2", "--proxy", "http://a:1", "--replicas", "http://b:1"}, wantCode: exitUsage, wantErr: "no --replicas"},
		{args: []string{"fork", "agent-1", "bad/name", "--proxy", "http://a:1"}, wantCode: exitUsage, wantErr: `session "bad/name"`},
		{args: []string{"fork", "agent-1", "agent-1", "--proxy", "http://a:1"}, wantCode: exitUsage, wantErr: "into itself"},
		{args: []string{"fork", "agent-1", "agent-2", "--proxy", "a:1"}, wantCode: exitUsage, wantErr: "want http://HOST:PORT"},
		{args: []string{"sessions", "--proxy", "http://a:1"}, wantCode: exitUsage, wantErr: "for fleet fork only"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, _, stderr := testFactory(t.TempDir(), tt.env)
			var have *fleetOptions
			root := newRootCmd(f)
			for i, c := range root.Commands() {
				if c.Name() == "fleet" {
					root.RemoveCommand(root.Commands()[i])
					break
				}
			}
			root.AddCommand(newFleetCmd(f, func(_ context.Context, o *fleetOptions) error { have = o; return nil }))
			root.SetArgs(append([]string{"fleet"}, tt.args...))
			err := root.Execute()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("want an error mentioning %q, have %v (stderr %s)", tt.wantErr, err, stderr)
				}
				if code := exitCode(err); code != tt.wantCode {
					t.Errorf("exit code: want %d, have %d", tt.wantCode, code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			have.f = nil
			if !reflect.DeepEqual(have, tt.want) {
				t.Errorf("options:\nwant %+v\nhave %+v", tt.want, have)
			}
		})
	}
}

// exitCode is the code run maps err to.
func exitCode(err error) int {
	if _, ok := err.(*usageError); ok || isUnknownCommand(err) {
		return exitUsage
	}
	return exitRuntime
}

// replicaStub answers one control path with a canned body, as a replica
// of a newer wraith would; the merge logic is what is under test.
func replicaStub(tb testing.TB, path string, status int, body string) string {
	tb.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"error":{"code":"control-not-found","message":"no such endpoint"}}`))
			return
		}
		if r.Header.Get("Authorization") != "Bearer tok" {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":{"code":"control-unauthorized","message":"token"}}`))
			return
		}
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	tb.Cleanup(srv.Close)
	return srv.URL
}

// runFleetCmd runs `wraith fleet args...` in-process with the token in TOK.
func runFleetCmd(tb testing.TB, args ...string) (code int, stdout, stderr string) {
	tb.Helper()
	f, out, errb := testFactory(tb.TempDir(), map[string]string{"TOK": "tok"})
	code = run(append([]string{"fleet", "--control-token-env", "TOK"}, args...), f)
	return code, out.String(), errb.String()
}

func TestFleetCoverageMerges(t *testing.T) {
	t.Parallel()
	a := replicaStub(t, "/__wraith/coverage", 200, `{"routes":[{"method":"GET","route":"/v1/customers/{id}","hits":{"recorded":2,"handler":1}}],
		"misses":[{"method":"GET","path":"/v1/nope","count":3,"sessions":["a","b"],"first_at":"2026-01-01T00:00:05Z","last_at":"2026-01-01T00:00:09Z"}],
		"misses_dropped":2,"misses_limit":1000}`)
	b := replicaStub(t, "/__wraith/coverage", 200, `{"routes":[{"method":"GET","route":"/v1/customers/{id}","hits":{"recorded":5,"miss":1}},{"method":"POST","route":"/v1/customers","hits":{"handler":4}}],
		"misses":[{"method":"GET","path":"/v1/nope","count":1,"sessions":["c"],"sessions_more":4,"first_at":"2026-01-01T00:00:01Z","last_at":"2026-01-01T00:00:02Z"},
		          {"method":"GET","path":"/v1/other","count":2,"sessions":["x"],"first_at":"2026-01-01T00:00:03Z","last_at":"2026-01-01T00:00:03Z"}],
		"misses_dropped":1,"misses_limit":1000}`)
	code, stdout, stderr := runFleetCmd(t, "coverage", "--format", "json", "--replicas", a+","+b)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var have fleetCoverage
	if err := json.Unmarshal([]byte(stdout), &have); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	wantRoutes := []observe.RouteReport{
		{Method: "POST", Route: "/v1/customers", Hits: map[string]int64{"handler": 4}},
		{Method: "GET", Route: "/v1/customers/{id}", Hits: map[string]int64{"recorded": 7, "handler": 1, "miss": 1}},
	}
	if !reflect.DeepEqual(have.Routes, wantRoutes) {
		t.Errorf("routes:\nwant %+v\nhave %+v", wantRoutes, have.Routes)
	}
	// The merged report keeps the coverage report's shape (SPEC §9):
	// sessions by name, sessions_more, misses_dropped and misses_limit.
	wantMisses := []observe.MissReport{
		{Method: "GET", Path: "/v1/nope", Count: 4, Sessions: []string{"a", "b", "c"}, SessionsMore: 4, FirstAt: "2026-01-01T00:00:01Z", LastAt: "2026-01-01T00:00:09Z"},
		{Method: "GET", Path: "/v1/other", Count: 2, Sessions: []string{"x"}, FirstAt: "2026-01-01T00:00:03Z", LastAt: "2026-01-01T00:00:03Z"},
	}
	if have.MissesDropped != 3 || have.MissesLimit != 1000 {
		t.Errorf("misses_dropped %d (want 3), misses_limit %d (want 1000)", have.MissesDropped, have.MissesLimit)
	}
	if !reflect.DeepEqual(have.Misses, wantMisses) {
		t.Errorf("misses:\nwant %+v\nhave %+v", wantMisses, have.Misses)
	}
}

func TestFleetMetricsLabelsReplicas(t *testing.T) {
	t.Parallel()
	text := "# HELP wraith_requests_total Requests.\n# TYPE wraith_requests_total counter\nwraith_requests_total{provenance=\"recorded\"} 3\n" +
		"# HELP wraith_sessions Sessions alive.\n# TYPE wraith_sessions gauge\nwraith_sessions 2\n"
	a := replicaStub(t, "/__wraith/metrics", 200, text)
	b := replicaStub(t, "/__wraith/metrics", 200, text)
	code, stdout, stderr := runFleetCmd(t, "metrics", "--replicas", a+","+b)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	want := "# HELP wraith_requests_total Requests.\n# TYPE wraith_requests_total counter\n" +
		"wraith_requests_total{replica=\"" + a + "\",provenance=\"recorded\"} 3\n" +
		"wraith_requests_total{replica=\"" + b + "\",provenance=\"recorded\"} 3\n" +
		"# HELP wraith_sessions Sessions alive.\n# TYPE wraith_sessions gauge\n" +
		"wraith_sessions{replica=\"" + a + "\"} 2\n" +
		"wraith_sessions{replica=\"" + b + "\"} 2\n"
	if stdout != want {
		t.Errorf("want:\n%s\nhave:\n%s", want, stdout)
	}
}

// TestFleetPartialFailure: unreachable replicas, and replicas without the
// endpoint, are errors on stderr and exit 1; the others' answers print.
func TestFleetPartialFailure(t *testing.T) {
	t.Parallel()
	ok := replicaStub(t, "/__wraith/reset", 200, `{"reset":true,"sessions":4}`)
	old := replicaStub(t, "/__wraith/session", 200, `{"sessions":[]}`)
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	code, stdout, stderr := runFleetCmd(t, "reset", "--replicas", ok+","+deadURL)
	if code != exitRuntime {
		t.Errorf("exit code: want %d, have %d", exitRuntime, code)
	}
	if !strings.Contains(stdout, "reset 4 sessions on 1 replicas") {
		t.Errorf("stdout: want the reachable replica's count, have %q", stdout)
	}
	if !strings.Contains(stderr, "replica "+deadURL+": unreachable") || !strings.Contains(stderr, "1 of 2 replicas did not answer") {
		t.Errorf("stderr: want the unreachable replica named, have %q", stderr)
	}

	code, _, stderr = runFleetCmd(t, "coverage", "--replicas", old)
	if code != exitRuntime || !strings.Contains(stderr, "GET /__wraith/coverage is not a control endpoint of this replica") || !strings.Contains(stderr, "upgrade") {
		t.Errorf("a replica without coverage: want exit 1 and a clear message, have %d %q", code, stderr)
	}

	f, _, errb := testFactory(t.TempDir(), nil)
	code = run([]string{"fleet", "reset", "--replicas", ok}, f)
	if code != exitRuntime || !strings.Contains(errb.String(), "--control-token-env") {
		t.Errorf("no token: want exit 1 saying to pass --control-token-env, have %d %q", code, errb.String())
	}
}

// TestFleetProjectTokens: without --replicas, `wraith fleet` and `wraith
// coverage` ask the twins of the project that wraith up runs, each with
// the token its own control_token_env names.
func TestFleetProjectTokens(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs wraith up; skipped with -short")
	}
	p := newProject(t, "[[twins]]\nname = \"billing\"\ncontrol_token_env = \"BILLING_TOKEN\"\n\n"+
		"[[twins]]\nname = \"shop\"\ntwin = \"checkout\"\ncontrol_token_env = \"SHOP_TOKEN\"\n",
		"BILLING_TOKEN=billing-token-1", "SHOP_TOKEN=shop-token-2")
	if out, errOut, code := p.wraith(t, "up", "--detach"); code != 0 {
		t.Fatalf("wraith up --detach: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code := p.wraith(t, "fleet", "sessions", "--format", "json")
	if code != 0 {
		t.Fatalf("wraith fleet sessions: exit %d\n%s%s", code, out, errOut)
	}
	var doc fleetSessions
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("wraith fleet sessions --format json: %v\n%s", err, out)
	}
	if out, errOut, code := p.wraith(t, "coverage", "--format", "json"); code != 0 {
		t.Errorf("wraith coverage: exit %d\n%s%s", code, out, errOut)
	}
	// One token for every twin, from the command line, overrides theirs.
	p.env = append(p.env, "ONE_TOKEN=billing-token-1")
	_, errOut, code = p.wraith(t, "fleet", "reset", "--control-token-env", "ONE_TOKEN")
	if code != exitRuntime || !strings.Contains(errOut, "1 of 2 replicas did not answer") || !strings.Contains(errOut, "401") {
		t.Errorf("one token for two twins with their own: want exit 1 with one 401, have %d\n%s", code, errOut)
	}
}
