package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wraithdev/wraith/internal/testbin"
	"github.com/wraithdev/wraith/supervisor"
)

// TestDownNothingUp: down with nothing up says so and exits 0, so that a
// script's trap 'wraith down' EXIT does not turn a run that never came up,
// or came down already, into a failure. Run as a real trap in bash.
func TestDownNothingUp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f, stdout, stderr := testFactory(dir, nil)
	if code := run([]string{"down"}, f); code != 0 {
		t.Fatalf("want exit 0, have %d: %s", code, stderr)
	}
	if want := "nothing is up here (no .wraith/up.json): nothing to stop\n"; stdout.String() != want || stderr.Len() != 0 {
		t.Errorf("want %q on stdout and nothing on stderr, have %q %q", want, stdout, stderr)
	}

	needTools(t, "bash")
	out, err := shell(t, dir, `trap 'wraith down' EXIT; echo script done`)
	if err != nil || out != "script done\nnothing is up here (no .wraith/up.json): nothing to stop\n" {
		t.Errorf("trap 'wraith down' EXIT with nothing up: want exit 0 and the message, have %v:\n%s", err, out)
	}
}

func TestDownRemovesStaleState(t *testing.T) {
	t.Parallel()
	dir := fakeProject(t, false, readyTwin("billing", "http://127.0.0.1:1", 1, 1))
	f, stdout, stderr := testFactory(dir, nil)
	if code := run([]string{"down"}, f); code != 0 {
		t.Fatalf("want exit 0, have %d: %s", code, stderr)
	}
	if want := "nothing was running: removed a stale .wraith/up.json from pid 999999999 (its twins died with it)\n"; stdout.String() != want {
		t.Errorf("want %q, have %q", want, stdout)
	}
	if _, err := os.Stat(supervisor.StatePath(dir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale state not removed: %v", err)
	}
}

// oneTwin is the smallest real project.
const oneTwin = "[[twins]]\nname = \"billing\"\n"

// wraithAlone runs wraith in the project's folder in a process group of
// its own, so that a wraith that signalled its own group (kill(0, ...))
// would take down only itself, never the test.
func (p *project) wraithAlone(tb testing.TB, args ...string) (stdout, stderr string, code int) {
	tb.Helper()
	cmd := exec.Command(p.bin, args...)
	cmd.Dir, cmd.Env = p.dir, p.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	fmt.Fprintf(p.logs, "$ wraith %s\n%s%s", strings.Join(args, " "), out.String(), errb.String())
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode() // -1 when a signal ended it
	case err != nil:
		tb.Fatalf("wraith %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errb.String(), code
}

// sleeper starts a real process that is not wraith's and reaps it at the end.
func sleeper(tb testing.TB) *exec.Cmd {
	tb.Helper()
	cmd := exec.Command("sleep", "300")
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	tb.Cleanup(func() { cmd.Process.Kill(); <-done })
	return cmd
}

// rewriteState replaces the supervisor's pid in up.json.
func rewriteState(tb testing.TB, dir string, pid int) {
	tb.Helper()
	b, err := os.ReadFile(supervisor.StatePath(dir))
	if err != nil {
		tb.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		tb.Fatal(err)
	}
	doc["supervisor_pid"] = pid
	b, _ = json.Marshal(doc)
	if err := os.WriteFile(supervisor.StatePath(dir), b, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// TestDownSparesUnrelatedProcess names a live sleep in up.json, with no
// project up: down must not signal it, and must say so.
func TestDownSparesUnrelatedProcess(t *testing.T) {
	t.Parallel()
	p := newProject(t, oneTwin)
	sleep := sleeper(t)
	st := supervisor.State{Version: supervisor.StateVersion, Project: "shop", Dir: p.dir, Phase: supervisor.StatusReady, SupervisorPID: sleep.Process.Pid, StartedAt: time.Now().UTC()}
	if err := supervisor.WriteState(supervisor.StatePath(p.dir), st); err != nil {
		t.Fatal(err)
	}
	// down last: with nothing up it also removes the stale file.
	for _, cmd := range []string{"env", "status", "down"} {
		_, errOut, code := p.wraithAlone(t, cmd)
		if code != exitRuntime {
			t.Errorf("%s: want exit 1, have %d (%s)", cmd, code, errOut)
		}
		if want := fmt.Sprintf("pid %d", sleep.Process.Pid); !strings.Contains(errOut, want) || !strings.Contains(errOut, "not a wraith supervisor") {
			t.Errorf("%s: want a message naming %s as not a wraith supervisor, have %q", cmd, want, errOut)
		}
		if !testbin.Live(sleep.Process.Pid) {
			t.Fatalf("%s killed the unrelated process %d", cmd, sleep.Process.Pid)
		}
	}
}

// TestDownRefusesPIDAtMostOne runs a real project and plants 0, -1 and 1
// as its supervisor's pid: down signals nothing, neither the named pid nor
// the project, and exits 1 naming the process that does hold the lock.
func TestDownRefusesPIDAtMostOne(t *testing.T) {
	t.Parallel()
	p := newProject(t, oneTwin)
	u := p.startUp(t)
	st := p.state(t, "ready", func(st supervisor.State) bool { return st.Twins[0].Status == supervisor.StatusReady })
	sentinel := sleeper(t) // a kill(-1, ...) would take it
	child := st.Twins[0].Ready.Serve.PID
	for _, pid := range []int{0, -1, 1} {
		t.Run(strconv.Itoa(pid), func(t *testing.T) {
			rewriteState(t, p.dir, pid)
			_, errOut, code := p.wraithAlone(t, "down", "--timeout", "5s")
			if code != exitRuntime {
				t.Errorf("want exit 1, have %d (%s)", code, errOut)
			}
			want := fmt.Sprintf("pid %d", pid)
			if !strings.Contains(errOut, want) || !strings.Contains(errOut, fmt.Sprintf("held by wraith up (pid %d)", u.cmd.Process.Pid)) {
				t.Errorf("want a refusal naming %s and the lock's holder %d, have %q", want, u.cmd.Process.Pid, errOut)
			}
			for what, pid := range map[string]int{"wraith up": u.cmd.Process.Pid, "its twin": child, "the sentinel": sentinel.Process.Pid} {
				if !testbin.Live(pid) {
					t.Fatalf("%s (pid %d) was signalled", what, pid)
				}
			}
		})
	}
}

// TestDownStopsProjectWithTruncatedState cuts up.json in half while a real
// wraith up runs: down still finds the project through its lock, stops
// it, and no child is left.
func TestDownStopsProjectWithTruncatedState(t *testing.T) {
	t.Parallel()
	p := newProject(t, twoTwins)
	u := p.startUp(t)
	st := p.state(t, "ready", func(st supervisor.State) bool {
		return len(st.Twins) == 2 && st.Twins[1].Status == supervisor.StatusReady
	})
	children := []int{st.Twins[0].Ready.Serve.PID, st.Twins[1].Ready.Serve.PID}
	b, err := os.ReadFile(supervisor.StatePath(p.dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(supervisor.StatePath(p.dir), b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := p.wraith(t, "status")
	if code != exitRuntime || !strings.Contains(errOut, fmt.Sprintf("wraith up (pid %d)", u.cmd.Process.Pid)) || !strings.Contains(errOut, "wraith down") {
		t.Errorf("status on a truncated up.json: want exit 1 naming the supervisor and the way out, have %d %q %q", code, out, errOut)
	}
	out, errOut, code = p.wraithAlone(t, "down")
	if code != 0 {
		t.Fatalf("down: want exit 0, have %d\n%s%s", code, out, errOut)
	}
	if code := u.wait(t, 15*time.Second); code != 0 {
		t.Errorf("wraith up exited %d", code)
	}
	for _, pid := range children {
		if testbin.Live(pid) {
			t.Errorf("child %d alive after down", pid)
		}
	}
	if pids := p.pids(t); len(pids) != 0 {
		t.Errorf("processes alive after down: %v", pids)
	}
}

// TestDownConcurrent runs eight wraith down at once against a real
// background wraith up, a few rounds: each down that finds the supervisor
// gone, or going, while it checks says the project stopped and exits 0,
// like a down with nothing up; none calls the stopping supervisor "not a
// wraith supervisor". Nothing of the project is left after the downs.
// The race is between processes, so the rounds are many and bounded: 12 s
// in the default run (the old code failed within 8 to 32 rounds, a few
// seconds), WRAITH_DOWN_SECONDS for a longer hunt.
func TestDownConcurrent(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("brings a project up and down many times")
	}
	const downs = 8
	p := newProject(t, oneTwin)
	budget := 12 * time.Second
	if v, err := strconv.Atoi(os.Getenv("WRAITH_DOWN_SECONDS")); err == nil && v > 0 {
		budget = time.Duration(v) * time.Second
	}
	deadline := time.Now().Add(budget)
	rounds := 0
	for ; rounds < 60 && time.Now().Before(deadline); rounds++ {
		if out, errOut, code := p.wraith(t, "up", "--detach"); code != 0 {
			t.Fatalf("round %d: up --detach: exit %d\n%s%s", rounds, code, out, errOut)
		}
		st, err := supervisor.ReadState(supervisor.StatePath(p.dir))
		if err != nil {
			t.Fatal(err)
		}
		project := []int{st.SupervisorPID, st.Twins[0].Ready.Serve.PID}
		type result struct {
			out, errOut string
			code        int
		}
		results := make(chan result, downs)
		for range downs {
			go func() {
				out, errOut, code := p.wraithAlone(t, "down", "--timeout", "20s")
				results <- result{out, errOut, code}
			}()
		}
		stopped := 0
		for range downs {
			r := <-results
			if r.code != 0 {
				t.Errorf("round %d: down: want exit 0, have %d\n%s%s", rounds, r.code, r.out, r.errOut)
			}
			// A concurrent stop is no stale file: nothing was left behind.
			switch {
			case strings.HasPrefix(r.out, "stopped "):
				stopped++
			case strings.HasPrefix(r.out, "already stopped: "), strings.HasPrefix(r.out, "nothing is up here "):
			case r.code == 0:
				t.Errorf("round %d: down: want stopped, already stopped or nothing up, have %q", rounds, r.out)
			}
		}
		if stopped == 0 {
			t.Errorf("round %d: no down said it stopped the project", rounds)
		}
		for _, pid := range project {
			if testbin.Live(pid) {
				t.Errorf("round %d: pid %d of the project alive after every down returned", rounds, pid)
			}
		}
		if pids := p.pids(t); len(pids) != 0 {
			t.Errorf("round %d: processes alive after every down returned: %v", rounds, pids)
		}
		if t.Failed() {
			break
		}
	}
	t.Logf("%d rounds of %d concurrent downs", rounds, downs)
}
