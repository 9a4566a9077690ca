// Package testbin builds the project's binaries once per test binary and
// runs them as real child processes, so tests cross the same process
// boundary users do.
package testbin

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wraithdev/wraith/ipc"
)

// Set builds binaries into one folder, each at most once.
type Set struct {
	dir  string
	mu   sync.Mutex
	once map[string]*build
}

type build struct {
	once sync.Once
	path string
	err  error
}

// New returns a set that builds into dir. The caller removes dir, usually
// in TestMain after m.Run; Run does both.
func New(dir string) *Set {
	return &Set{dir: dir, once: map[string]*build{}}
}

// Run is the body of a package's TestMain for tests that share built
// binaries: it sets *bins to a Set building into a temporary folder, runs
// m's tests, removes the folder and returns their exit code, for TestMain
// to exit with: func TestMain(m *testing.M) { os.Exit(testbin.Run(m, &bins)) }.
func Run(m *testing.M, bins **Set) int {
	dir, err := os.MkdirTemp("", "wraith-testbin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testbin:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	*bins = New(dir)
	return m.Run()
}

// Path builds the main package pkg (a path relative to the module root,
// such as "./cmd/wraith-twin") on first use and returns the binary's path.
func (s *Set) Path(tb testing.TB, pkg string) string {
	tb.Helper()
	s.mu.Lock()
	b := s.once[pkg]
	if b == nil {
		b = &build{}
		s.once[pkg] = b
	}
	s.mu.Unlock()
	b.once.Do(func() {
		root, err := moduleRoot()
		if err != nil {
			b.err = err
			return
		}
		out := filepath.Join(s.dir, filepath.Base(pkg))
		args := []string{"build", "-o", out}
		if raceEnabled {
			args = append(args, "-race")
		}
		cmd := exec.Command("go", append(args, pkg)...)
		cmd.Dir = root
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			b.err = fmt.Errorf("go build %s: %v\n%s", pkg, err, stderr.String())
			return
		}
		b.path = out
	})
	if b.err != nil {
		tb.Fatal(b.err)
	}
	return b.path
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// Env is the environment for children: the test's own, with the race
// detector's exit delay turned off so race-built children stop promptly.
func Env() []string {
	return append(os.Environ(), "GORACE=atexit_sleep_ms=0")
}

// Twin is a running twin process.
type Twin struct {
	Cmd    *exec.Cmd
	Ready  ipc.Ready
	URL    string
	stdin  io.WriteCloser
	stderr *Buffer
	done   chan error
}

// StartTwin runs bin (wraith-twin) with args plus --ready-fd 3, waits for
// its ready line, and stops it when the test ends.
func StartTwin(tb testing.TB, bin string, args ...string) *Twin {
	tb.Helper()
	return StartTwinEnv(tb, bin, nil, args...)
}

// StartTwinEnv is StartTwin with env (KEY=VALUE) added to the child's
// environment: a test that hands the child a variable this way, not with
// t.Setenv, can run in parallel.
func StartTwinEnv(tb testing.TB, bin string, env []string, args ...string) *Twin {
	tb.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(bin, append(args, "--ready-fd", "3")...)
	cmd.ExtraFiles = []*os.File{w}
	cmd.Env = append(Env(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	t := &Twin{Cmd: cmd, stdin: stdin, stderr: &Buffer{}, done: make(chan error, 1)}
	cmd.Stderr = t.stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	w.Close()
	go func() { t.done <- cmd.Wait() }()
	tb.Cleanup(func() { t.Stop(tb) })
	ready, err := ipc.ReadLine(r, 15*time.Second)
	if err != nil {
		cmd.Process.Kill()
		tb.Fatalf("%s %s: %v\nstderr:\n%s", filepath.Base(bin), strings.Join(args, " "), err, t.stderr.String())
	}
	t.Ready, t.URL = ready, ready.Serve.URL
	return t
}

// Stop closes the twin's standard input, which makes it drain and exit,
// and waits; it kills the twin if it has not exited within 10 s.
func (t *Twin) Stop(tb testing.TB) {
	if t.stdin != nil {
		t.stdin.Close()
		t.stdin = nil
	}
	select {
	case err := <-t.done:
		if err != nil {
			tb.Errorf("twin exited with %v\nstderr:\n%s", err, t.stderr.String())
		}
		t.done <- err // keep the result for a second Stop
	case <-time.After(10 * time.Second):
		t.Cmd.Process.Kill()
		tb.Errorf("twin did not exit within 10 s of its stdin closing\nstderr:\n%s", t.stderr.String())
	}
}

// Stderr returns what the twin wrote to standard error so far.
func (t *Twin) Stderr() string { return t.stderr.String() }

// Buffer is a bytes.Buffer that a child process, a logger and a test can
// share.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
