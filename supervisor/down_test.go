package supervisor

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wraithdev/wraith/internal/testbin"
)

// exitingMain is a supervisor caught on its way out: it takes the lock of
// SUP_DIR, writes up.json naming itself, lets go of the lock as a stopping
// supervisor does once its twins have stopped, says "let go" on stdout and
// then lingers until its stdin closes. That moment is a few microseconds
// in a real wraith up; here it lasts as long as the test wants.
func exitingMain() int {
	dir := os.Getenv("SUP_DIR")
	unlock, err := Lock(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	start, _ := procStart(os.Getpid())
	st := State{Version: StateVersion, Project: "shop", Dir: dir, Phase: StatusReady,
		SupervisorPID: os.Getpid(), SupervisorStart: start, StartedAt: time.Now().UTC()}
	if err := WriteState(StatePath(dir), st); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	unlock()
	fmt.Println("let go")
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// startExiting runs exitingMain under the name wraith and returns once it
// has let go of the lock; closing stdin lets it exit.
func startExiting(tb testing.TB, dir string) (cmd *exec.Cmd, stdin io.WriteCloser, exited chan struct{}) {
	tb.Helper()
	wraith := filepath.Join(tb.TempDir(), "wraith")
	if err := os.Symlink(os.Args[0], wraith); err != nil {
		tb.Fatal(err)
	}
	cmd = exec.Command(wraith, "-test.run=^$")
	cmd.Env = append(os.Environ(), "SUPERVISOR_TEST_HELPER=exiting", "SUP_DIR="+dir)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	exited = make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	tb.Cleanup(func() { cmd.Process.Kill(); <-exited })
	if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "let go\n" {
		tb.Fatalf("helper: want %q, have %q %v", "let go\n", line, err)
	}
	return cmd, stdin, exited
}

// TestProbeSupervisorOnItsWayOut: up.json names a live wraith that started
// when up.json says but no longer holds the lock. That is the project's
// supervisor between letting go of the lock and exiting, and a concurrent
// down that reads up.json just then must not call it "not a wraith
// supervisor" (the old code did, and down exited 1).
func TestProbeSupervisorOnItsWayOut(t *testing.T) {
	dir := t.TempDir()
	cmd, _, _ := startExiting(t, dir)
	_, err := Probe(dir)
	var stopping *StoppingError
	if !errors.As(err, &stopping) || stopping.PID != cmd.Process.Pid {
		t.Fatalf("want a StoppingError naming pid %d, have %v", cmd.Process.Pid, err)
	}
}

// TestDownSupervisorOnItsWayOut: down finds the supervisor on its way out.
// It signals nothing (without the lock the process is no longer verified
// as ours), waits for it to exit and says the project stopped; if it never
// exits, down gives up after its timeout with an error naming it, and it
// is still alive: nothing was signalled.
func TestDownSupervisorOnItsWayOut(t *testing.T) {
	tests := []struct {
		name    string
		exits   bool
		timeout time.Duration
	}{
		{"exits", true, 20 * time.Second},
		{"lingers", false, 100 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			type result struct {
				st  State
				err error
			}
			var (
				dir    string
				cmd    *exec.Cmd
				exited chan struct{}
				r      result
			)
			// The helper exits as soon as its stdin closes, which races
			// down's first look: a helper gone before down looked leaves
			// a stale up.json behind (down says so, rightly), and the
			// case under test did not happen. Such a try is run again.
			for try := 1; ; try++ {
				var stdin io.WriteCloser
				dir = t.TempDir()
				cmd, stdin, exited = startExiting(t, dir)
				done := make(chan result, 1)
				go func() {
					st, err := Down(context.Background(), dir, tt.timeout)
					done <- result{st, err}
				}()
				if tt.exits {
					stdin.Close()
				}
				r = <-done
				var stale *StaleError
				if !tt.exits || !errors.As(r.err, &stale) || try == 5 {
					break
				}
				<-exited
			}
			var stopped *StoppedError
			switch {
			case tt.exits:
				if !errors.As(r.err, &stopped) || stopped.PID != cmd.Process.Pid {
					t.Fatalf("want a StoppedError naming pid %d, have %v", cmd.Process.Pid, r.err)
				}
				if testbin.Live(cmd.Process.Pid) {
					t.Errorf("down returned while the supervisor (pid %d) still runs", cmd.Process.Pid)
				}
				if _, err := os.Stat(StatePath(dir)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("up.json left after down: %v", err)
				}
			default:
				if r.err == nil || errors.As(r.err, &stopped) || !strings.Contains(r.err.Error(), fmt.Sprintf("pid %d", cmd.Process.Pid)) || !strings.Contains(r.err.Error(), "nothing was signalled") {
					t.Fatalf("want an error naming pid %d and that nothing was signalled, have %v", cmd.Process.Pid, r.err)
				}
				select {
				case <-exited:
					t.Fatalf("down signalled the supervisor that no longer holds the lock")
				default:
				}
			}
		})
	}
}

// TestLeft: a holder has left the lock once it exits or lets go of it.
func TestLeft(t *testing.T) {
	dir := t.TempDir()
	unlock, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if left(dir, os.Getpid()) {
		t.Errorf("want the holder (this process) not to have left")
	}
	if !left(dir, 999999999) {
		t.Errorf("want a pid with no process to have left")
	}
	unlock()
	if !left(dir, os.Getpid()) {
		t.Errorf("want a process that let go of the lock to have left")
	}
}

// TestOpenVerifiedRefuses: the handle down signals through is only ever
// taken on the verified holder of the lock.
func TestOpenVerifiedRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, pid := range []int{0, -1, 1} {
		if _, _, err := openVerified(dir, pid); err == nil || !strings.Contains(err.Error(), "refusing to signal pid") {
			t.Errorf("pid %d: want a refusal, have %v", pid, err)
		}
	}
	var left *leftError
	if _, _, err := openVerified(dir, 999999999); !errors.As(err, &left) {
		t.Errorf("a pid with no process: want it taken for gone, have %v", err)
	}
	unlock, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	var notOurs *NotOursError
	if _, _, err := openVerified(dir, os.Getpid()); !errors.As(err, &notOurs) || !strings.Contains(err.Error(), "not wraith") {
		t.Errorf("the holder is this test binary, not wraith: want NotOursError, have %v", err)
	}
}
