package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/wraithdev/wraith/twin/hostguard"
)

const testToken = "s3cret-token-7f0c1d"

// openWith opens (without serving) a checkout server with env as its
// environment and args as its flags.
func openWith(tb testing.TB, env map[string]string, log hclog.Logger, args ...string) (*Server, error) {
	tb.Helper()
	return openTwin(tb, "checkout", env, log, args...)
}

// openTwin is openWith for any twin argument.
func openTwin(tb testing.TB, twin string, env map[string]string, log hclog.Logger, args ...string) (*Server, error) {
	tb.Helper()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	cfg := Flags(fs)
	if err := fs.Parse(args); err != nil {
		tb.Fatalf("flags %v: %v", args, err)
	}
	cfg.Twin = twin
	dir, _ := os.Getwd()
	return Open(*cfg, Deps{
		Logger:  log,
		Getenv:  func(k string) string { return env[k] },
		Dir:     filepath.Join(dir, "..", ".."),
		Version: "test",
		Now:     func() time.Time { return frozen },
		Resolve: fakeDNS,
	})
}

// serveWith serves srv until the test ends.
func serveWith(tb testing.TB, srv *Server) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("Run: %v", err)
		}
	})
}

// fakeDNS answers for a few made-up names, so bind checks never touch
// the network.
func fakeDNS(_ context.Context, host string) ([]netip.Addr, error) {
	addrs := map[string][]string{
		"twin.loop":     {"127.0.0.1", "::1"},
		"twin.internal": {"10.1.2.3"},
		"twin.mixed":    {"127.0.0.1", "192.168.1.9"},
	}[host]
	if addrs == nil {
		return nil, errors.New("no such host")
	}
	var out []netip.Addr
	for _, a := range addrs {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}

func TestLoopbackBind(t *testing.T) {
	tests := []struct {
		host    string
		want    bool
		wantErr bool
	}{
		{"127.0.0.1", true, false},
		{"127.9.8.7", true, false},
		{"::1", true, false},
		{"[::1]", true, false},
		{"localhost", true, false},
		{"LOCALHOST", true, false},
		{"twin.loop", true, false},
		{"0.0.0.0", false, false},
		{"::", false, false},
		{"", false, false},
		{"192.168.1.10", false, false},
		{"::ffff:127.0.0.1", true, false},
		{"twin.internal", false, false},
		{"twin.mixed", false, false},
		{"nowhere.invalid", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			have, err := loopbackBind(tt.host, fakeDNS)
			if (err != nil) != tt.wantErr || have != tt.want {
				t.Errorf("loopbackBind(%q): want %v (error %v), have %v (%v)", tt.host, tt.want, tt.wantErr, have, err)
			}
		})
	}
}

func TestLoopbackHostHeader(t *testing.T) {
	tests := []struct {
		host string
		want bool
	}{
		{"127.0.0.1", true},
		{"127.0.0.1:8080", true},
		{"127.1.2.3:1", true},
		{"localhost", true},
		{"LocalHost:41234", true},
		{"[::1]", true},
		{"[::1]:41234", true},
		{"::1", true},
		{"", false},
		{"evil.example", false},
		{"evil.example:41234", false},
		{"localhost.evil.example", false},
		{"127.0.0.1.nip.io", false},
		{"2130706433", false}, // 127.0.0.1 as a decimal: only canonical forms
		{"0x7f.1", false},
		{"0.0.0.0:80", false},
		{"10.0.0.1", false},
		{"127.0.0.1:http", false},
		{"127.0.0.1:", false},
		{"[fe80::1%25lo]:80", false},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			if have := hostguard.LoopbackHost(tt.host); have != tt.want {
				t.Errorf("hostguard.LoopbackHost(%q): want %v, have %v", tt.host, tt.want, have)
			}
		})
	}
}

func TestLoopbackOrigin(t *testing.T) {
	tests := []struct {
		origin string
		want   bool
	}{
		{"http://localhost:3000", true},
		{"https://127.0.0.1", true},
		{"http://[::1]:8080", true},
		{"http://127.0.0.1:8080/page?q=1", true}, // a Referer
		{"null", false},
		{"", false},
		{"http://evil.example", false},
		{"http://localhost.evil.example", false},
		{"file:///home/me/index.html", false},
		{"chrome-extension://abcdef", false},
		{"http://user@localhost", false},
		{"http://evil.example@localhost", false},
		{"ws://localhost", false},
	}
	for _, tt := range tests {
		t.Run(tt.origin, func(t *testing.T) {
			if have := hostguard.LoopbackOrigin(tt.origin); have != tt.want {
				t.Errorf("hostguard.LoopbackOrigin(%q): want %v, have %v", tt.origin, tt.want, have)
			}
		})
	}
}

func TestGuard(t *testing.T) {
	type req struct {
		path   string
		host   string // "" keeps 127.0.0.1:1234, "-" sends none
		header map[string]string
	}
	tests := []struct {
		name      string
		loopback  bool
		token     string
		req       req
		want      int
		wantCode  string
		challenge string
	}{
		{"loopback, no token", true, "", req{path: "/__wraith/session"}, 200, "", ""},
		{"loopback, localhost Host", true, "", req{path: "/__wraith/reset", host: "localhost:1234"}, 200, "", ""},
		{"loopback, evil Host", true, "", req{path: "/__wraith/reset", host: "evil.example:1234"}, 403, "control-forbidden-host", ""},
		{"loopback, empty Host", true, "", req{path: "/__wraith/reset", host: "-"}, 403, "control-forbidden-host", ""},
		{"loopback, evil Origin", true, "", req{path: "/__wraith/reset", header: map[string]string{"Origin": "http://evil.example"}}, 403, "control-forbidden-origin", ""},
		{"loopback, null Origin", true, "", req{path: "/__wraith/reset", header: map[string]string{"Origin": "null"}}, 403, "control-forbidden-origin", ""},
		{"loopback, evil Referer", true, "", req{path: "/__wraith/reset", header: map[string]string{"Referer": "http://evil.example/x"}}, 403, "control-forbidden-origin", ""},
		{"loopback, local Origin", true, "", req{path: "/__wraith/reset", header: map[string]string{"Origin": "http://localhost:5173"}}, 200, "", ""},
		{"exempt health, evil Host", true, "", req{path: "/__wraith/health", host: "evil.example"}, 200, "", ""},
		{"exempt info, no token", true, testToken, req{path: "/__wraith/info"}, 200, "", ""},
		{"exempt ready, no token", false, testToken, req{path: "/__wraith/ready"}, 200, "", ""},
		{"token, none sent", false, testToken, req{path: "/__wraith/session"}, 401, "control-unauthorized", `Bearer realm="wraith-control"`},
		{"token, wrong", false, testToken, req{path: "/__wraith/session", header: map[string]string{"Authorization": "Bearer nope"}}, 401, "control-unauthorized", `Bearer realm="wraith-control", error="invalid_token"`},
		{"token, prefix of the right one", false, testToken, req{path: "/__wraith/session", header: map[string]string{"Authorization": "Bearer " + testToken[:5]}}, 401, "control-unauthorized", `Bearer realm="wraith-control", error="invalid_token"`},
		{"token, Basic scheme", false, testToken, req{path: "/__wraith/session", header: map[string]string{"Authorization": "Basic " + testToken}}, 401, "control-unauthorized", `Bearer realm="wraith-control", error="invalid_token"`},
		{"token, bare", false, testToken, req{path: "/__wraith/session", header: map[string]string{"Authorization": testToken}}, 401, "control-unauthorized", `Bearer realm="wraith-control", error="invalid_token"`},
		{"token, right", false, testToken, req{path: "/__wraith/session", header: map[string]string{"Authorization": "Bearer " + testToken}}, 200, "", ""},
		{"token, right, lower-case scheme", false, testToken, req{path: "/__wraith/session", header: map[string]string{"Authorization": "bearer " + testToken}}, 200, "", ""},
		{"token off loopback ignores Host", false, testToken, req{path: "/__wraith/session", host: "twin.example.com", header: map[string]string{"Authorization": "Bearer " + testToken}}, 200, "", ""},
		{"token on loopback still checks Host", true, testToken, req{path: "/__wraith/session", host: "evil.example", header: map[string]string{"Authorization": "Bearer " + testToken}}, 403, "control-forbidden-host", ""},
		{"dot segments", true, "", req{path: "/__wraith/session/../reset"}, 400, "invalid-path", ""},
		{"dot segments to an exempt path", false, testToken, req{path: "/__wraith/session/../health"}, 400, "invalid-path", ""},
		{"trailing slash", true, "", req{path: "/__wraith/session/"}, 400, "invalid-path", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGuard(tt.loopback, tt.token)
			r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:1234/", nil)
			r.URL.Path = tt.req.path
			switch tt.req.host {
			case "": // httptest's 127.0.0.1:1234
			case "-":
				r.Host = ""
			default:
				r.Host = tt.req.host
			}
			for k, v := range tt.req.header {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			if g.allow(w, r) {
				w.WriteHeader(http.StatusOK)
			}
			if w.Code != tt.want || errorCode(w.Body.Bytes()) != tt.wantCode {
				t.Errorf("want %d %q, have %d %s", tt.want, tt.wantCode, w.Code, w.Body)
			}
			if have := w.Header().Get("WWW-Authenticate"); have != tt.challenge {
				t.Errorf("WWW-Authenticate: want %q, have %q", tt.challenge, have)
			}
		})
	}
}

// errorCode returns error.code of an error body, else error.type (the
// provider's shape), else "".
func errorCode(body []byte) string {
	var e struct {
		Error struct{ Code, Type string }
	}
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
	if e.Error.Code != "" {
		return e.Error.Code
	}
	return e.Error.Type
}

// TestStartupRefusals is the guide's second rule and its neighbours: a
// twin that would expose an open control plane, or has no usable token,
// does not start, and says why and how to fix it.
func TestStartupRefusals(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want []string // substrings of the message
	}{
		{"wildcard IPv4 without a token", nil, []string{"--host", "0.0.0.0"}, []string{"--host 0.0.0.0 is not a loopback address", "--control-token-env"}},
		{"wildcard IPv6 without a token", nil, []string{"--host", "::"}, []string{"not a loopback address", "--host 127.0.0.1"}},
		{"every interface without a token", nil, []string{"--host", ""}, []string{"every interface"}},
		{"LAN address without a token", nil, []string{"--host", "192.168.1.10"}, []string{"192.168.1.10"}},
		{"name resolving off loopback", nil, []string{"--host", "twin.internal"}, []string{"twin.internal is not a loopback address"}},
		{"name resolving partly off loopback", nil, []string{"--host", "twin.mixed"}, []string{"twin.mixed is not a loopback address"}},
		{"unresolvable name", nil, []string{"--host", "nowhere.invalid"}, []string{"cannot resolve"}},
		{"unset token variable", nil, []string{"--control-token-env", "WRAITH_CONTROL_TOKEN"}, []string{"WRAITH_CONTROL_TOKEN is unset or empty", "export WRAITH_CONTROL_TOKEN="}},
		{"empty token variable", map[string]string{"WRAITH_CONTROL_TOKEN": ""}, []string{"--host", "0.0.0.0", "--control-token-env", "WRAITH_CONTROL_TOKEN"}, []string{"unset or empty"}},
		{"blank token", map[string]string{"T": "   "}, []string{"--control-token-env", "T"}, []string{"unset or empty"}},
		{"token with surrounding space", map[string]string{"T": " abc"}, []string{"--control-token-env", "T"}, []string{"white space"}},
		{"token given instead of a name", nil, []string{"--control-token-env", "abc/def+ghi="}, []string{"the name of an environment variable"}},
		{"no entities allowed", nil, []string{"--max-entities", "0"}, []string{"--max-entities 0: want 1 or more"}},
		{"clock step past a day", nil, []string{"--clock-step", "25h"}, []string{"--clock-step 25h0m0s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, err := openWith(t, tt.env, nil, tt.args...)
			if err == nil {
				srv.ln.Close()
				t.Fatalf("Open %v: want a usage error, have a server on %s", tt.args, srv.URL())
			}
			var ue *UsageError
			if !errors.As(err, &ue) {
				t.Errorf("want a *UsageError (exit 2), have %T: %v", err, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q does not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "abc/def") {
				t.Errorf("the message repeats what may be the token: %v", err)
			}
		})
	}
}

func TestClockEpochFlagBounds(t *testing.T) {
	for _, v := range []string{"-1", "7258118400", "99999999999999", "1e9"} {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		Flags(fs)
		if err := fs.Parse([]string{"--clock-epoch", v}); err == nil {
			t.Errorf("--clock-epoch %s: want an error", v)
		}
	}
}

// TestLoopbackNeedsNoToken is the guide's first rule.
func TestLoopbackNeedsNoToken(t *testing.T) {
	for _, host := range []string{"127.0.0.1", "localhost"} {
		t.Run(host, func(t *testing.T) {
			srv, err := openWith(t, nil, nil, "--host", host)
			if err != nil {
				t.Fatalf("Open --host %s: %v", host, err)
			}
			serveWith(t, srv)
			if code, body := post(t, srv.URL()+"/__wraith/session", `{"session":"s1"}`); code != http.StatusCreated {
				t.Errorf("provision without a token on %s: want 201, have %d %s", host, code, body)
			}
			if have := srv.Info().ControlAuth; have != "none" {
				t.Errorf("ready control_auth: want none, have %q", have)
			}
		})
	}
}

// TestTokenNeverLeaks serves with a token and checks that the token
// appears in no log line and not in the ready document, and that the
// token protects what it should.
func TestTokenNeverLeaks(t *testing.T) {
	var logs bytes.Buffer
	log := hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Trace})
	env := map[string]string{"WRAITH_CONTROL_TOKEN": testToken}
	srv, err := openWith(t, env, log, "--control-token-env", "WRAITH_CONTROL_TOKEN", "--debug")
	if err != nil {
		t.Fatal(err)
	}
	// Registered before serveWith, so it runs after the server stopped
	// and nothing writes the log any more.
	t.Cleanup(func() {
		if !strings.Contains(logs.String(), "serving") {
			t.Errorf("want the serving line in the log, have:\n%s", logs.String())
		}
		if strings.Contains(logs.String(), testToken) {
			t.Errorf("the token was logged:\n%s", logs.String())
		}
	})
	serveWith(t, srv)
	base := srv.URL()
	bearer := map[string]string{"Authorization": "Bearer " + testToken}

	if resp, body := do(t, base, call{method: "POST", path: "/__wraith/session", json: `{"session":"a"}`}); resp.StatusCode != http.StatusUnauthorized || errorCode(body) != "control-unauthorized" || resp.Header.Get("WWW-Authenticate") == "" {
		t.Errorf("no token: want 401 control-unauthorized with WWW-Authenticate, have %d %s %v", resp.StatusCode, body, resp.Header)
	}
	if resp, body := do(t, base, call{method: "POST", path: "/__wraith/session", json: `{"session":"a"}`, header: bearer}); resp.StatusCode != http.StatusCreated {
		t.Errorf("right token: want 201, have %d %s", resp.StatusCode, body)
	}
	for _, p := range []string{"/__wraith/health", "/__wraith/ready", "/__wraith/info"} {
		if resp, body := do(t, base, call{path: p}); resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s without a token: want 200, have %d %s", p, resp.StatusCode, body)
		}
	}
	if resp, _ := do(t, base, call{path: "/v1/customers/cus_1", header: bearer}); resp.StatusCode != http.StatusOK {
		t.Errorf("app route: want 200, have %d", resp.StatusCode)
	}

	// The ready document's part of this is internal/serve's
	// TestReadyTokenNeverLeaks, where the document is written.
	_, info := do(t, base, call{path: "/__wraith/info"})
	if strings.Contains(string(info), testToken) {
		t.Errorf("info holds the token: %s", info)
	}
}
