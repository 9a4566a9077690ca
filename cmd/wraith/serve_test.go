package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wraithdev/wraith/internal/testbin"
	"github.com/wraithdev/wraith/ipc"
	"github.com/wraithdev/wraith/twin/embedded"
)

// serveProc is a `wraith serve` child started as the guide starts it.
type serveProc struct {
	cmd     *exec.Cmd
	ready   ipc.Ready
	raw     map[string]any
	stderr  *testbin.Buffer
	exited  chan struct{}
	waitErr error
}

// startServe runs `wraith serve args... --ready-json F` and waits, with a
// deadline, for F to appear. The child is stopped when the test ends.
func startServe(tb testing.TB, args ...string) *serveProc {
	tb.Helper()
	readyPath := filepath.Join(tb.TempDir(), "ready.json")
	cmd := exec.Command(bins.Path(tb, "./cmd/wraith"), append(append([]string{"serve"}, args...), "--ready-json", readyPath)...)
	cmd.Env = testbin.Env()
	p := &serveProc{cmd: cmd, stderr: &testbin.Buffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	tb.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		if !p.wait(10 * time.Second) {
			cmd.Process.Kill()
			<-p.exited
		}
	})
	deadline := time.Now().Add(15 * time.Second)
	for {
		b, err := os.ReadFile(readyPath)
		if err == nil {
			if p.ready, err = ipc.Unmarshal(b); err != nil {
				tb.Fatalf("ready JSON: %v\n%s", err, b)
			}
			json.Unmarshal(b, &p.raw)
			return p
		}
		if p.wait(10 * time.Millisecond) {
			tb.Fatalf("wraith serve exited before it was ready: %v\n%s", p.waitErr, p.stderr)
		}
		if time.Now().After(deadline) {
			tb.Fatalf("no ready JSON within 15 s\n%s", p.stderr)
		}
	}
}

// wait reports whether the child exited within d.
func (p *serveProc) wait(d time.Duration) bool {
	select {
	case <-p.exited:
		return true
	case <-time.After(d):
		return false
	}
}

// TestServeGuideCommand runs the guide's serve command verbatim and reads
// the ready JSON the way the guide's jq lines do.
func TestServeGuideCommand(t *testing.T) {
	t.Parallel()
	p := startServe(t, "checkout",
		"--port", "0",
		"--unknown-entity", "not_found",
		"--fixture", "baseline",
		"--seed", "42",
		"--clock", "deterministic",
		"--clock-epoch", "1700000000")
	serve, _ := p.raw["serve"].(map[string]any)
	url, _ := serve["url"].(string)
	header, _ := serve["wraith_session_header"].(string)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || header != "X-Wraith-Session" {
		t.Fatalf(".serve.url = %q, .serve.wraith_session_header = %q", url, header)
	}
	req, _ := http.NewRequest("GET", url+"/v1/customers", nil)
	req.Header.Set(header, "agent-0-local")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, h := range []string{"X-Wraith-Provenance", "X-Wraith-Route", "X-Wraith-Twin-Age", "X-Wraith-Recorded-At", "X-Wraith-Session"} {
		if resp.Header.Get(h) == "" {
			t.Errorf("GET /v1/customers: header %s missing", h)
		}
	}
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"object":"list"`) {
		t.Errorf("GET /v1/customers: %d %s", resp.StatusCode, body)
	}
	if s := p.ready.Serve.Settings; s.Fixture == nil || *s.Fixture != "baseline" || s.Seed != 42 || s.Clock != "deterministic" || s.ClockEpoch == nil || *s.ClockEpoch != 1700000000 || s.UnknownEntity != "not_found" {
		t.Errorf("ready settings: %+v", s)
	}

	// SIGTERM drains and exits 0.
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if !p.wait(10 * time.Second) {
		t.Fatal("wraith serve did not exit within 10 s of SIGTERM")
	}
	if p.waitErr != nil {
		t.Errorf("exit after SIGTERM: want status 0, have %v\n%s", p.waitErr, p.stderr)
	}
}

// TestServeDeterministicAcrossProcesses provisions the same session in two
// separate processes, sends the same requests, and wants the same bytes.
func TestServeDeterministicAcrossProcesses(t *testing.T) {
	t.Parallel()
	run := func() string {
		p := startServe(t, "checkout", "--port", "0", "--unknown-entity", "not_found")
		base := p.ready.Serve.URL
		var out strings.Builder
		send := func(method, path, session, ctype, body string) map[string]any {
			req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
			if ctype != "" {
				req.Header.Set("Content-Type", ctype)
			}
			if session != "" {
				req.Header.Set("X-Wraith-Session", session)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			fmt.Fprintf(&out, "%s %s %d %s\n%s\n", method, path, resp.StatusCode, resp.Header.Get("X-Wraith-Provenance"), b)
			var m map[string]any
			json.Unmarshal(b, &m)
			return m
		}
		send("POST", "/__wraith/session", "", "application/json", `{"session":"det","fixture":"checkout:happy-path","seed":99,"clock":{"mode":"deterministic","base_epoch":1700000000}}`)
		form := "application/x-www-form-urlencoded"
		c := send("POST", "/v1/customers", "det", form, "email=a%40example.com&name=A&metadata[x]=1")
		id, _ := c["id"].(string)
		send("POST", "/v1/customers/"+id, "det", form, "description=changed")
		pi := send("POST", "/v1/payment_intents", "det", form, "amount=500&currency=eur&payment_method=pm_card_visa")
		piID, _ := pi["id"].(string)
		send("POST", "/v1/payment_intents/"+piID+"/confirm", "det", form, "")
		send("GET", "/v1/customers?limit=100", "det", "", "")
		send("GET", "/v1/payment_intents?limit=100", "det", "", "")
		send("POST", "/v1/checkout/sessions", "det", form, "mode=payment&success_url=https%3A%2F%2Fexample.com")
		return out.String()
	}
	first, second := run(), run()
	if first != second {
		t.Errorf("two processes answered differently\nfirst:\n%s\nsecond:\n%s", first, second)
	}
	if !strings.Contains(first, `"created":1700000002`) {
		t.Errorf("want deterministic timestamps from the session clock, have:\n%s", first)
	}
}

func TestServeUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"serve"}, "takes TWIN"},
		{[]string{"serve", "checkout", "--clock", "sundial"}, "--clock"},
		{[]string{"serve", "checkout", "--seed", "-1"}, "--seed"},
		{[]string{"serve", "checkout", "--rate-limit", "fast"}, "--rate-limit"},
		{[]string{"serve", "checkout", "--unknown-entity", "maybe"}, "--unknown-entity"},
		{[]string{"serve", "checkout", "--port", "70000"}, "--port"},
		{[]string{"serve", "checkout", "--fixture", "nope"}, "--fixture"},
		{[]string{"serve", "no-such-twin"}, "checkout"},
		{[]string{"serve", "checkout", "--bogus"}, "bogus"},
		{[]string{"frobnicate"}, "unknown command"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, _, stderr := testFactory(t.TempDir(), nil)
			if code := run(tt.args, f); code != exitUsage {
				t.Fatalf("exit code: want %d, have %d\n%s", exitUsage, code, stderr)
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr does not mention %q:\n%s", tt.want, stderr)
			}
		})
	}
}

func TestTwinsListsEmbedded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f, stdout, stderr := testFactory(dir, nil)
	if code := run([]string{"twins"}, f); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"billing", "checkout", "embedded", "sha256:", "baseline"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("wraith twins does not show %q:\n%s", want, stdout)
		}
	}
}

func TestServeInProcessStopsOnContext(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f, _, stderr := testFactory(dir, nil)
	ctx, cancel := context.WithCancel(context.Background())
	f.Signals = ctx
	ready := filepath.Join(dir, "ready.json")
	done := make(chan int, 1)
	go func() { done <- run([]string{"serve", "checkout", "--ready-json", ready}, f) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(ready); err == nil {
			break
		} else if !errors.Is(err, os.ErrNotExist) || time.Now().After(deadline) {
			t.Fatalf("no ready JSON: %v\n%s", err, stderr)
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("exit code after cancel: want 0, have %d\n%s", code, stderr)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop within 10 s of its context ending")
	}
}

// TestServeHelpListsEmbeddedTwins: serve --help names every twin built in,
// as the embedded package holds them, not a list written by hand.
func TestServeHelpListsEmbeddedTwins(t *testing.T) {
	t.Parallel()
	tomls, err := fs.Glob(embedded.FS(), "*/twin.toml")
	if err != nil || len(tomls) == 0 {
		t.Fatalf("no embedded twins: %v", err)
	}
	f, stdout, stderr := testFactory(t.TempDir(), nil)
	if code := run([]string{"serve", "--help"}, f); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, toml := range tomls {
		if name := path.Dir(toml); !strings.Contains(stdout.String(), name) {
			t.Errorf("serve --help does not name the embedded twin %s:\n%s", name, stdout)
		}
	}
}

// TestServeAndRecordShareTheHMACKeyRule: a WRAITH_HMAC_KEY that record
// refuses, serve refuses too, with the same message and exit 2, and the
// twin a project's `wraith up` starts (wraith-twin) refuses it as well.
// Real processes: the old serve took the key and served on.
func TestServeAndRecordShareTheHMACKeyRule(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"x", "0123456789abcde"} {
		t.Run(fmt.Sprintf("%d bytes", len(key)), func(t *testing.T) {
			want := fmt.Sprintf("WRAITH_HMAC_KEY is %d bytes, want at least 16", len(key))
			p := newProject(t, oneTwin, "WRAITH_HMAC_KEY="+key)
			for _, args := range [][]string{
				{"record", "t", "--upstream", "https://x.test"},
				{"serve", "checkout", "--port", "0"},
				{"serve", "checkout", "--port", "0", "--detach"},
			} {
				if _, errOut, code := p.wraith(t, args...); code != exitUsage || !strings.Contains(errOut, want) {
					t.Errorf("wraith %s: want exit %d and %q, have %d %q", strings.Join(args, " "), exitUsage, want, code, errOut)
				}
			}
			if _, errOut, code := p.wraith(t, "up", "--foreground"); code == 0 || !strings.Contains(errOut, want) {
				t.Errorf("wraith up: want a failure naming %q, have %d:\n%s", want, code, errOut)
			}
		})
	}
}
