package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wraithdev/wraith/internal/testbin"
	"github.com/wraithdev/wraith/ipc"
	"github.com/wraithdev/wraith/supervisor"
)

// fakeProject writes a state as a supervisor would and, if alive, holds
// the project's lock the way a running supervisor does.
func fakeProject(tb testing.TB, alive bool, twins ...supervisor.TwinState) string {
	tb.Helper()
	dir := tb.TempDir()
	if alive {
		unlock, err := supervisor.Lock(dir)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(unlock)
	}
	pid := os.Getpid()
	if !alive {
		pid = 999999999
	}
	now := time.Now().UTC()
	st := supervisor.State{Version: supervisor.StateVersion, Project: "shop", Dir: dir, Phase: supervisor.StatusReady, SupervisorPID: pid, StartedAt: now.Add(-time.Minute), UpdatedAt: now, Twins: twins}
	if err := supervisor.WriteState(supervisor.StatePath(dir), st); err != nil {
		tb.Fatal(err)
	}
	return dir
}

func readyTwin(name, url string, port, pid int) supervisor.TwinState {
	return supervisor.TwinState{
		Name: name, Status: supervisor.StatusReady, ReadyAt: time.Now().UTC().Add(-30 * time.Second),
		Ready: ipc.Ready{ReadyVersion: ipc.Version, Serve: ipc.Serve{
			Twin: name, URL: url, Host: "127.0.0.1", Port: port, PID: pid,
			SessionHeader: ipc.SessionHeader, Digest: "sha256:ab12", Control: ipc.ControlPaths(),
		}},
	}
}

func TestEnvFormats(t *testing.T) {
	t.Parallel()
	billing := readyTwin("billing", "http://127.0.0.1:8081", 8081, 101)
	billing.ControlTokenEnv = "WRAITH_CONTROL_TOKEN"
	dir := fakeProject(t, true, billing, readyTwin("checkout-api", "http://127.0.0.1:9000", 9000, 102))
	tests := map[string]string{
		"shell": `export WRAITH_BILLING_URL=http://127.0.0.1:8081
export WRAITH_BILLING_HOST=127.0.0.1
export WRAITH_BILLING_PORT=8081
export WRAITH_BILLING_SESSION_HEADER=X-Wraith-Session
export WRAITH_BILLING_DIGEST=sha256:ab12
export WRAITH_BILLING_CONTROL_TOKEN_ENV=WRAITH_CONTROL_TOKEN
export WRAITH_CHECKOUT_API_URL=http://127.0.0.1:9000
export WRAITH_CHECKOUT_API_HOST=127.0.0.1
export WRAITH_CHECKOUT_API_PORT=9000
export WRAITH_CHECKOUT_API_SESSION_HEADER=X-Wraith-Session
export WRAITH_CHECKOUT_API_DIGEST=sha256:ab12
`,
		"dotenv": `WRAITH_BILLING_URL=http://127.0.0.1:8081
WRAITH_BILLING_HOST=127.0.0.1
WRAITH_BILLING_PORT=8081
WRAITH_BILLING_SESSION_HEADER=X-Wraith-Session
WRAITH_BILLING_DIGEST=sha256:ab12
WRAITH_BILLING_CONTROL_TOKEN_ENV=WRAITH_CONTROL_TOKEN
WRAITH_CHECKOUT_API_URL=http://127.0.0.1:9000
WRAITH_CHECKOUT_API_HOST=127.0.0.1
WRAITH_CHECKOUT_API_PORT=9000
WRAITH_CHECKOUT_API_SESSION_HEADER=X-Wraith-Session
WRAITH_CHECKOUT_API_DIGEST=sha256:ab12
`,
	}
	tests["github"] = tests["dotenv"]
	tests["json"] = `{
  "project": "shop",
  "supervisor_pid": ` + strconv.Itoa(os.Getpid()) + `,
  "twins": {
    "billing": {
      "url": "http://127.0.0.1:8081",
      "host": "127.0.0.1",
      "port": 8081,
      "pid": 101,
      "wraith_session_header": "X-Wraith-Session",
      "digest": "sha256:ab12",
      "control": {
        "health": "/__wraith/health",
        "ready": "/__wraith/ready",
        "info": "/__wraith/info",
        "sessions": "/__wraith/session",
        "session": "/__wraith/session/{session}",
        "session_reset": "/__wraith/session/{session}/reset",
        "session_state": "/__wraith/session/{session}/state",
        "session_clock": "/__wraith/session/{session}/clock",
        "reset": "/__wraith/reset",
        "ui": "/__wraith/ui",
        "session_journal": "/__wraith/session/{session}/journal",
        "session_digest": "/__wraith/session/{session}/digest",
        "session_diff": "/__wraith/session/{session}/diff",
        "session_fork": "/__wraith/session/{session}/fork",
        "session_snapshot": "/__wraith/session/{session}/snapshot",
        "coverage": "/__wraith/coverage",
        "metrics": "/__wraith/metrics"
      }
    },
    "checkout-api": {
      "url": "http://127.0.0.1:9000",
      "host": "127.0.0.1",
      "port": 9000,
      "pid": 102,
      "wraith_session_header": "X-Wraith-Session",
      "digest": "sha256:ab12",
      "control": {
        "health": "/__wraith/health",
        "ready": "/__wraith/ready",
        "info": "/__wraith/info",
        "sessions": "/__wraith/session",
        "session": "/__wraith/session/{session}",
        "session_reset": "/__wraith/session/{session}/reset",
        "session_state": "/__wraith/session/{session}/state",
        "session_clock": "/__wraith/session/{session}/clock",
        "reset": "/__wraith/reset",
        "ui": "/__wraith/ui",
        "session_journal": "/__wraith/session/{session}/journal",
        "session_digest": "/__wraith/session/{session}/digest",
        "session_diff": "/__wraith/session/{session}/diff",
        "session_fork": "/__wraith/session/{session}/fork",
        "session_snapshot": "/__wraith/session/{session}/snapshot",
        "coverage": "/__wraith/coverage",
        "metrics": "/__wraith/metrics"
      }
    }
  }
}
`
	for format, want := range tests {
		t.Run(format, func(t *testing.T) {
			f, stdout, stderr := testFactory(dir, nil)
			if code := run([]string{"env", "--format", format}, f); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if have := stdout.String(); have != want {
				t.Errorf("want\n%s\nhave\n%s", want, have)
			}
		})
	}
	f, stdout, _ := testFactory(t.TempDir(), nil)
	if code := run([]string{"env", "-f", dir + "/wraith-project.toml"}, f); code != 0 || !json.Valid(stdout.Bytes()) {
		t.Errorf("env -f: exit %d %s", code, stdout)
	}
}

func TestEnvQuoting(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, shell, dotenv string }{
		{"http://127.0.0.1:8081", "http://127.0.0.1:8081", "http://127.0.0.1:8081"},
		{"", "''", ""},
		{"a b", "'a b'", `"a b"`},
		{"it's $HOME", `'it'\''s $HOME'`, `"it's \$HOME"`},
		{"x\ny", "'x\ny'", `"x\ny"`},
	}
	for _, tt := range tests {
		if have := shellQuote(tt.in); have != tt.shell {
			t.Errorf("shellQuote(%q): want %s, have %s", tt.in, tt.shell, have)
		}
		if have := dotenvQuote(tt.in); have != tt.dotenv {
			t.Errorf("dotenvQuote(%q): want %s, have %s", tt.in, tt.dotenv, have)
		}
	}
	var b strings.Builder
	doc := envDoc{order: []string{"x"}, Twins: map[string]envTwin{"x": {URL: "a\nb"}}}
	writeEnvLines(&b, "github", doc)
	lines := strings.Split(b.String(), "\n")
	if !strings.HasPrefix(lines[0], "WRAITH_X_URL<<WRAITH_EOF_") || lines[1] != "a" || lines[2] != "b" || lines[3] != strings.TrimPrefix(lines[0], "WRAITH_X_URL<<") {
		t.Errorf("github multi-line value:\n%s", b.String())
	}
}

func TestEnvNoProject(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		dir  string
		want string
	}{
		{"nothing up", t.TempDir(), "no wraith project is up in %s (no .wraith/up.json; run wraith up)"},
		{"stale", fakeProject(t, false, readyTwin("billing", "http://127.0.0.1:1", 1, 1)), "no wraith project is up in %s (stale .wraith/up.json from pid 999999999; run wraith up)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, cmd := range []string{"env", "status"} {
				f, stdout, stderr := testFactory(tt.dir, nil)
				if code := run([]string{cmd}, f); code != exitRuntime {
					t.Errorf("%s: want exit 1, have %d", cmd, code)
				}
				want := "wraith: " + strings.Replace(tt.want, "%s", tt.dir, 1) + "\n"
				if stderr.String() != want || stdout.Len() != 0 {
					t.Errorf("%s: want %q, have %q (stdout %q)", cmd, want, stderr, stdout)
				}
			}
		})
	}
}

// TestUpTwoTwinsEnvNamesBoth runs a real project of two twins.
func TestUpTwoTwinsEnvNamesBoth(t *testing.T) {
	t.Parallel()
	p := newProject(t, twoTwins)
	ready := filepath.Join(t.TempDir(), "ready.json")
	u := p.startUp(t, "--ready-json", ready)
	st := p.state(t, "both twins ready", func(st supervisor.State) bool { return st.Phase == supervisor.StatusReady })
	if len(st.Twins) != 2 {
		t.Fatalf("state: %+v", st)
	}

	out, _, code := p.wraith(t, "env", "--format", "json")
	if code != 0 {
		t.Fatalf("env: exit %d", code)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	twins, _ := doc["twins"].(map[string]any)
	if doc["project"] != "shop" || doc["supervisor_pid"] != float64(u.cmd.Process.Pid) || twins["billing"] == nil || twins["checkout-api"] == nil || len(doc) != 3 {
		t.Fatalf("env json: %s", out)
	}
	for name, tw := range twins {
		keys := []string{}
		for k := range tw.(map[string]any) {
			keys = append(keys, k)
		}
		if len(keys) != 7 {
			t.Errorf("twin %s has keys %v, want url host port pid wraith_session_header digest control", name, keys)
		}
	}
	fileDoc, err := os.ReadFile(ready)
	if err != nil {
		t.Fatalf("--ready-json not written: %v", err)
	}
	var fromFile envDoc
	if err := json.Unmarshal(fileDoc, &fromFile); err != nil || len(fromFile.Twins) != 2 {
		t.Errorf("--ready-json: %s %v", fileDoc, err)
	}

	billingURL := twins["billing"].(map[string]any)["url"].(string)
	checkoutURL := twins["checkout-api"].(map[string]any)["url"].(string)
	for format, want := range map[string][]string{
		"shell":  {"export WRAITH_BILLING_URL=" + billingURL + "\n", "export WRAITH_CHECKOUT_API_URL=" + checkoutURL + "\n", "export WRAITH_BILLING_SESSION_HEADER=X-Wraith-Session\n"},
		"dotenv": {"\nWRAITH_CHECKOUT_API_URL=" + checkoutURL + "\n", "WRAITH_BILLING_PORT="},
		"github": {"WRAITH_BILLING_URL=" + billingURL + "\n", "WRAITH_CHECKOUT_API_DIGEST=sha256:"},
	} {
		out, _, code := p.wraith(t, "env", "--format", format)
		for _, w := range want {
			if code != 0 || !strings.Contains(out, w) {
				t.Errorf("env --format %s lacks %q:\n%s", format, w, out)
			}
		}
	}

	if err := u.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := u.wait(t, 20*time.Second); code != 0 {
		t.Errorf("up after SIGINT: want exit 0, have %d", code)
	}
	if pids := p.pids(t); len(pids) != 0 {
		t.Errorf("processes alive after up stopped: %v", pids)
	}
	for _, f := range []string{supervisor.StatePath(p.dir), ready} {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left after up stopped: %v", f, err)
		}
	}
	if _, errOut, code := p.wraith(t, "env"); code != 1 || !strings.Contains(errOut, "no wraith project is up in "+p.dir) {
		t.Errorf("env after stop: want exit 1 and a clear message, have %d %q", code, errOut)
	}
}

// TestUpReplacesStaleState leaves an up.json from a dead run, then starts
// a real wraith up whose twin is held at the gate: while it starts, env
// says so and never prints the dead run's port; once ready, env prints
// the new one.
func TestUpReplacesStaleState(t *testing.T) {
	t.Parallel()
	twinBin := bins.Path(t, "./cmd/wraith-twin")
	tmp := t.TempDir()
	gate, started := filepath.Join(tmp, "gate"), filepath.Join(tmp, "started")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	held := script(t, "touch "+started+"\ncat "+gate+" >/dev/null\nexec "+twinBin+" \"$@\"\n")
	p := newProject(t, oneTwin, "WRAITH_TWIN_BIN="+held, "PATH=/usr/bin:/bin")
	p.bin = aloneWraith(t)

	// The dead run: its lock file, free, and its state naming a dead port.
	unlock, err := supervisor.Lock(p.dir)
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	const deadURL = "http://127.0.0.1:9"
	dead := supervisor.State{Version: supervisor.StateVersion, Project: "shop", Dir: p.dir, Phase: supervisor.StatusReady, SupervisorPID: 999999999,
		StartedAt: time.Now().UTC(), Twins: []supervisor.TwinState{readyTwin("billing", deadURL, 9, 999999998)}}
	if err := supervisor.WriteState(supervisor.StatePath(p.dir), dead); err != nil {
		t.Fatal(err)
	}

	u := p.startUp(t)
	testbin.WaitUntil(t, 15*time.Second, "the twin to reach the gate", func() bool {
		_, err := os.Stat(started)
		return err == nil
	})
	for _, format := range []string{"json", "shell"} {
		out, errOut, code := p.wraith(t, "env", "--format", format)
		if code != exitRuntime || strings.Contains(out, ":9") || !strings.Contains(errOut, "starting") {
			t.Errorf("env --format %s while starting: want exit 1 saying the project is starting, have %d %q %q", format, code, out, errOut)
		}
	}
	if st, err := supervisor.ReadState(supervisor.StatePath(p.dir)); err != nil || st.SupervisorPID != u.cmd.Process.Pid {
		t.Errorf("up.json was not replaced at start: %+v %v", st, err)
	}

	w, err := os.OpenFile(gate, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	p.state(t, "ready", func(st supervisor.State) bool { return st.Twins[0].Status == supervisor.StatusReady })
	out, errOut, code := p.wraith(t, "env", "--format", "shell")
	if code != 0 || strings.Contains(out, deadURL+"\n") || !strings.Contains(out, "WRAITH_BILLING_URL=http://127.0.0.1:") {
		t.Errorf("env once ready: want the new URL, have %d %q %q", code, out, errOut)
	}
}
