package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wraithdev/wraith/internal/testbin"
)

// harness runs a Supervisor in the background and records its states.
type harness struct {
	sup    *Supervisor
	cancel context.CancelFunc
	done   chan error
	mu     sync.Mutex
	states []State
}

func startHarness(tb testing.TB, cfg Config) *harness {
	tb.Helper()
	if cfg.Binary == "" {
		cfg.Binary = fakeBin
	}
	if cfg.Logger == nil {
		cfg.Logger, _ = testLogger(tb)
	}
	h := &harness{done: make(chan error, 1)}
	user := cfg.OnState
	cfg.OnState = func(st State) error {
		h.mu.Lock()
		h.states = append(h.states, st)
		h.mu.Unlock()
		if user != nil {
			return user(st)
		}
		return nil
	}
	sup, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	h.sup = sup
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	h.cancel = cancel
	go func() { h.done <- sup.Run(ctx) }()
	tb.Cleanup(func() {
		cancel()
		select {
		case <-h.done:
		case <-time.After(20 * time.Second):
			tb.Error("supervisor did not stop")
		}
	})
	return h
}

func (h *harness) last() (State, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.states) == 0 {
		return State{}, false
	}
	return h.states[len(h.states)-1], true
}

func (h *harness) waitState(tb testing.TB, what string, cond func(State) bool) State {
	tb.Helper()
	var st State
	testbin.WaitUntil(tb, 15*time.Second, what, func() bool {
		var ok bool
		st, ok = h.last()
		return ok && cond(st)
	})
	return st
}

// wait returns Run's error, failing the test after d.
func (h *harness) wait(tb testing.TB, d time.Duration) error {
	tb.Helper()
	select {
	case err := <-h.done:
		h.done <- err // for Cleanup
		return err
	case <-time.After(d):
		tb.Fatalf("Run did not return within %s", d)
		return nil
	}
}

func getJSON(tb testing.TB, url string, v any) {
	tb.Helper()
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		tb.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		tb.Fatal(err)
	}
}

func child(name, tag string, env ...string) Child {
	return Child{Name: name, Twin: "checkout", Host: "127.0.0.1", Env: append([]string{"FAKE_TAG=" + tag}, env...)}
}

func TestStartWritesStateAndStopRemovesIt(t *testing.T) {
	dir := t.TempDir()
	tag := uniqueTag(t)
	h := startHarness(t, Config{
		Children:  []Child{child("billing", tag), child("checkout", tag)},
		Dir:       dir,
		StateFile: StatePath(dir),
		Project:   "shop",
	})
	st := h.waitState(t, "all ready", func(State) bool { return true })
	onDisk, err := ReadState(StatePath(dir))
	if err != nil {
		t.Fatal(err)
	}
	if onDisk.SupervisorPID != os.Getpid() || onDisk.Project != "shop" || len(onDisk.Twins) != 2 {
		t.Fatalf("state on disk: %+v", onDisk)
	}
	for i, name := range []string{"billing", "checkout"} {
		tw := st.Twins[i]
		if tw.Name != name || tw.Status != StatusReady || tw.Ready.Serve.Port == 0 || tw.Ready.Serve.PID == 0 {
			t.Fatalf("twin %d: %+v", i, tw)
		}
		var health map[string]string
		getJSON(t, tw.Ready.Serve.URL+tw.Ready.Serve.Control.Health, &health)
	}
	if have := len(taggedPIDs(t, tag)); have != 2 {
		t.Fatalf("want 2 children, have %d", have)
	}
	h.cancel()
	if err := h.wait(t, 15*time.Second); err != nil {
		t.Fatalf("clean stop returned %v", err)
	}
	if _, err := os.Stat(StatePath(dir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("state file still there after stop: %v", err)
	}
	if pids := taggedPIDs(t, tag); len(pids) != 0 {
		t.Errorf("children alive after stop: %v", pids)
	}
}

func TestForwardsFlagsAndKeepsTokenOutOfArgv(t *testing.T) {
	tag := uniqueTag(t)
	c := child("billing", tag, "MY_TOKEN=s3cret")
	c.Flags = []string{"--fixture=checkout:happy-path", "--clock=deterministic", "--control-token-env=MY_TOKEN"}
	h := startHarness(t, Config{Children: []Child{c}, Dir: t.TempDir()})
	st := h.waitState(t, "ready", func(State) bool { return true })
	var info struct {
		Flags    map[string]string
		Args     []string
		TokenSet bool `json:"token_set"`
	}
	getJSON(t, st.Twins[0].Ready.Serve.URL+"/__wraith/info", &info)
	for k, want := range map[string]string{"fixture": "checkout:happy-path", "clock": "deterministic", "control-token-env": "MY_TOKEN", "ready-fd": "3", "log-format": "json", "host": "127.0.0.1"} {
		if info.Flags[k] != want {
			t.Errorf("flag %s: want %q, have %q", k, want, info.Flags[k])
		}
	}
	if !info.TokenSet {
		t.Error("the child did not get the token in its environment")
	}
	if slices.ContainsFunc(info.Args, func(a string) bool { return strings.Contains(a, "s3cret") }) {
		t.Errorf("token in argv: %q", info.Args)
	}
	if info.Args[0] != "checkout" {
		t.Errorf("want TWIN first, have %q", info.Args)
	}
}

func TestStartFailures(t *testing.T) {
	tests := []struct {
		name    string
		env     []string
		wantErr []string // substrings of the error
	}{
		{"never ready", []string{"FAKE_MODE=never-ready"}, []string{"twin bad: not ready within 1s", "[ERROR] stuck loading the twin", "--start-timeout"}},
		{"exits", []string{"FAKE_MODE=exit-early"}, []string{"exited before it was ready (exit status 3)", "[ERROR] cannot load twin", "reason=\"fixture not found\""}},
		{"bad line", []string{"FAKE_MODE=bad-ready"}, []string{"ready document is not valid JSON"}},
		{"closed pipe", []string{"FAKE_MODE=close-ready"}, []string{"ready pipe closed before a ready line arrived"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tag := uniqueTag(t)
			dir := t.TempDir()
			start := time.Now()
			h := startHarness(t, Config{
				Children:     []Child{child("good", tag), child("bad", tag, tt.env...), child("good2", tag)},
				Dir:          dir,
				StateFile:    StatePath(dir),
				StartTimeout: time.Second,
			})
			err := h.wait(t, 10*time.Second)
			var ce *ChildError
			if !errors.As(err, &ce) || ce.Name != "bad" {
				t.Fatalf("want a ChildError for bad, have %v", err)
			}
			t.Logf("error:\n%v", err)
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q:\n%v", want, err)
				}
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("failing took %s", took)
			}
			if pids := taggedPIDs(t, tag); len(pids) != 0 {
				t.Errorf("children alive after a failed start: %v", pids)
			}
			if _, ok := h.last(); ok {
				t.Error("OnState was called although not every twin became ready")
			}
			if _, err := os.Stat(StatePath(dir)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("state file written for a failed start: %v", err)
			}
		})
	}
}

func TestKilledChildComesBackOnSamePort(t *testing.T) {
	tag := uniqueTag(t)
	dir := t.TempDir()
	h := startHarness(t, Config{Children: []Child{child("billing", tag), child("checkout", tag)}, Dir: dir, StateFile: StatePath(dir)})
	first := h.waitState(t, "ready", func(State) bool { return true }).Twins[0]
	if err := syscall.Kill(first.Ready.Serve.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	h.waitState(t, "restarting", func(st State) bool { return st.Twins[0].Status == StatusRestarting })
	again := h.waitState(t, "restarted", func(st State) bool {
		return st.Twins[0].Status == StatusReady && st.Twins[0].Restarts == 1
	}).Twins[0]
	if again.Ready.Serve.Port != first.Ready.Serve.Port {
		t.Errorf("want port %d again, have %d", first.Ready.Serve.Port, again.Ready.Serve.Port)
	}
	if again.Ready.Serve.PID == first.Ready.Serve.PID {
		t.Error("same pid after a restart")
	}
	var health map[string]string
	getJSON(t, again.Ready.Serve.URL+"/__wraith/health", &health)
	onDisk, err := ReadState(StatePath(dir))
	if err != nil || onDisk.Twins[0].Restarts != 1 || onDisk.Twins[0].Ready.Serve.PID != again.Ready.Serve.PID {
		t.Errorf("state on disk not updated after the restart: %+v %v", onDisk.Twins, err)
	}
}

func TestCrashLoopGivesUp(t *testing.T) {
	tag := uniqueTag(t)
	h := startHarness(t, Config{
		Children:       []Child{child("flaky", tag, "FAKE_CRASH_AFTER=20ms"), child("steady", tag)},
		Dir:            t.TempDir(),
		RestartBackoff: 10 * time.Millisecond,
	})
	err := h.wait(t, 20*time.Second)
	if err == nil || !strings.Contains(err.Error(), "crashed 5 times within 1m0s, giving up") || !strings.Contains(err.Error(), "simulated crash") {
		t.Fatalf("want a crash-loop error with the child's output, have %v", err)
	}
	if pids := taggedPIDs(t, tag); len(pids) != 0 {
		t.Errorf("children alive after giving up: %v", pids)
	}
}

func TestFailedRestartsCountAsCrashes(t *testing.T) {
	tag := uniqueTag(t)
	marker := filepath.Join(t.TempDir(), "crashed")
	h := startHarness(t, Config{
		Children:       []Child{child("flaky", tag, "FAKE_CRASH_AFTER=20ms", "FAKE_CRASH_ONCE="+marker, "FAKE_EXIT_IF_EXISTS="+marker)},
		Dir:            t.TempDir(),
		RestartBackoff: 10 * time.Millisecond,
	})
	err := h.wait(t, 20*time.Second)
	for _, want := range []string{"twin flaky: crashed 5 times within 1m0s, giving up (last: exited before it was ready (exit status 3))", "[ERROR] cannot load twin"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want %q in %v", want, err)
		}
	}
}

func TestBackoff(t *testing.T) {
	for crashes, want := range map[int]time.Duration{1: 500 * time.Millisecond, 2: time.Second, 4: 4 * time.Second, 9: 30 * time.Second, 200: 30 * time.Second} {
		if have := backoff(DefaultRestartBackoff, crashes); have != want {
			t.Errorf("backoff after %d crashes: want %s, have %s", crashes, want, have)
		}
	}
}

func TestStopKillsChildThatIgnoresTerm(t *testing.T) {
	tag := uniqueTag(t)
	h := startHarness(t, Config{Children: []Child{child("stubborn", tag, "FAKE_IGNORE_TERM=1")}, Dir: t.TempDir(), StopGrace: 300 * time.Millisecond})
	h.waitState(t, "ready", func(State) bool { return true })
	start := time.Now()
	h.cancel()
	if err := h.wait(t, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 300*time.Millisecond {
		t.Errorf("stopped after %s, before the grace period", took)
	}
	if pids := taggedPIDs(t, tag); len(pids) != 0 {
		t.Errorf("child alive after stop: %v", pids)
	}
}

// startHelper runs a supervisor in its own process (this test binary).
func startHelper(tb testing.TB, dir, tag string, n int) *exec.Cmd {
	tb.Helper()
	// Readers trust only a process whose program is wraith: run this test
	// binary under that name.
	wraith := filepath.Join(tb.TempDir(), "wraith")
	if err := os.Symlink(os.Args[0], wraith); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(wraith, "-test.run=^$")
	cmd.Env = append(os.Environ(), "SUPERVISOR_TEST_HELPER=1", "SUP_BIN="+fakeBin, "SUP_DIR="+dir, "SUP_TAG="+tag, "SUP_CHILDREN="+strconv.Itoa(n))
	logs := &testbin.Buffer{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	tb.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		if tb.Failed() {
			tb.Logf("helper log:\n%s", logs.String())
		}
	})
	testbin.WaitUntil(tb, 15*time.Second, "helper's twins to be ready", func() bool {
		st, err := ReadState(StatePath(dir))
		return err == nil && st.Phase == StatusReady
	})
	return cmd
}

func TestSupervisorKilledLeavesNoChild(t *testing.T) {
	dir, tag := t.TempDir(), uniqueTag(t)
	cmd := startHelper(t, dir, tag, 2)
	if pids := taggedPIDs(t, tag); len(pids) != 2 {
		t.Fatalf("want 2 children, have %v", pids)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testbin.WaitUntil(t, 2*time.Second, "children to die with their supervisor", func() bool { return len(taggedPIDs(t, tag)) == 0 })
	// Pdeathsig fires when the forking thread dies; the lock goes with the
	// last thread, a moment later. Until the test reaps it, the killed
	// supervisor is a zombie that holds no lock: not ours, not yet stale.
	var err error
	var stale *StaleError
	testbin.WaitUntil(t, 2*time.Second, "the state to be stale", func() bool {
		_, err = Probe(dir)
		return errors.As(err, &stale)
	})
	if stale.PID != cmd.Process.Pid {
		t.Fatalf("want a stale state from pid %d, have %v", cmd.Process.Pid, err)
	}
}

func TestDownStopsSupervisor(t *testing.T) {
	dir, tag := t.TempDir(), uniqueTag(t)
	cmd := startHelper(t, dir, tag, 2)
	st, err := Down(context.Background(), dir, 15*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if st.SupervisorPID != cmd.Process.Pid {
		t.Errorf("want pid %d, have %d", cmd.Process.Pid, st.SupervisorPID)
	}
	if pids := taggedPIDs(t, tag); len(pids) != 0 {
		t.Errorf("children alive after down: %v", pids)
	}
	if _, err := os.Stat(StatePath(dir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("state file left after down: %v", err)
	}
	var notUp *NotUpError
	if _, err := Down(context.Background(), dir, time.Second); !errors.As(err, &notUp) {
		t.Errorf("second down: want NotUpError, have %v", err)
	}
}

func TestLockAndProbe(t *testing.T) {
	dir := t.TempDir()
	var notUp *NotUpError
	if _, err := Probe(dir); !errors.As(err, &notUp) {
		t.Fatalf("want NotUpError, have %v", err)
	}
	unlock, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	var already *AlreadyUpError
	if _, err := Lock(dir); !errors.As(err, &already) || already.PID != os.Getpid() {
		t.Fatalf("second lock: want AlreadyUpError naming pid %d, have %v", os.Getpid(), err)
	}
	if pid, err := lockOwner(dir); err != nil || pid != os.Getpid() {
		t.Fatalf("lock owner: want %d, have %d %v", os.Getpid(), pid, err)
	}
	// The lock's holder is this test binary, which is not wraith.
	st := State{Version: StateVersion, Phase: StatusReady, SupervisorPID: os.Getpid()}
	if err := WriteState(StatePath(dir), st); err != nil {
		t.Fatal(err)
	}
	var notOurs *NotOursError
	if _, err := Probe(dir); !errors.As(err, &notOurs) || !strings.Contains(err.Error(), "not wraith") {
		t.Fatalf("lock held by a process that is not wraith: want NotOursError, have %v", err)
	}
	unlock()
	st.SupervisorPID = 999999999
	if err := WriteState(StatePath(dir), st); err != nil {
		t.Fatal(err)
	}
	var stale *StaleError
	if _, err := Probe(dir); !errors.As(err, &stale) || !strings.Contains(err.Error(), "stale .wraith/up.json from pid 999999999") {
		t.Fatalf("lock free: want StaleError, have %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, StateDir, ".gitignore")); err != nil || !strings.Contains(string(b), "*") {
		t.Errorf("no .gitignore in the state folder: %v", err)
	}
}
