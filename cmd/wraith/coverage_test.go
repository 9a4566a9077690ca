package main

import (
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/server"
)

// serveCheckout serves the embedded checkout twin in this process on
// 127.0.0.1:0 until the test ends.
func serveCheckout(tb testing.TB) string {
	tb.Helper()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	cfg := server.Flags(fs)
	cfg.Twin = "checkout"
	srv, err := server.Open(*cfg, server.Deps{Getenv: func(string) string { return "" }, Dir: tb.TempDir(), Version: "test"})
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	tb.Cleanup(func() {
		cancel()
		<-done
	})
	return srv.URL()
}

func TestCoverageCommand(t *testing.T) {
	t.Parallel()
	url := serveCheckout(t)
	for _, c := range []struct{ method, path, session string }{
		{"GET", "/v1/customers/cus_123", "a"},
		{"GET", "/v1/teleporters", "a"},
		{"GET", "/v1/teleporters", "b"},
		{"POST", "/v1/wormholes", "b"},
	} {
		req, _ := http.NewRequest(c.method, url+c.path, nil)
		req.Header.Set("X-Wraith-Session", c.session)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	f, out, errb := testFactory(t.TempDir(), nil)
	if code := run([]string{"coverage", "--url", url}, f); code != 0 {
		t.Fatalf("wraith coverage: exit %d: %s", code, errb)
	}
	text := out.String()
	for _, want := range []string{"record next", "2      GET /v1/teleporters  a,b", "POST /v1/wormholes", "GET /v1/customers/{id}  recorded 1"} {
		if !strings.Contains(text, want) {
			t.Errorf("text output lacks %q:\n%s", want, text)
		}
	}
	f, out, _ = testFactory(t.TempDir(), nil)
	if code := run([]string{"coverage", "--url", url, "--format", "json"}, f); code != 0 {
		t.Fatalf("--format json: exit %d", code)
	}
	var rep struct {
		Misses []struct {
			Path  string
			Count int
		}
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || len(rep.Misses) != 2 || rep.Misses[0].Path != "/v1/teleporters" || rep.Misses[0].Count != 2 {
		t.Errorf("json output: %v %s", err, out)
	}
}

func TestCoverageFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"coverage", "--url", "127.0.0.1:1"}, "want http://HOST:PORT"},
		{[]string{"coverage", "--url", "http://127.0.0.1:1", "-f", "x.toml"}, "give one"},
		{[]string{"coverage", "--format", "yaml"}, "--format"},
		{[]string{"coverage", "--control-token-env", "NOPE"}, "empty or unset"},
	} {
		f, _, errb := testFactory(t.TempDir(), nil)
		if code := run(tc.args, f); code != exitUsage || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: want exit 2 saying %q, have %d %s", tc.args, tc.want, code, errb)
		}
	}
	f, _, errb := testFactory(t.TempDir(), nil)
	if code := run([]string{"coverage"}, f); code != exitRuntime || !strings.Contains(errb.String(), "no --url given") {
		t.Errorf("no project: want exit 1 saying no --url given, have %d %s", code, errb)
	}
}
