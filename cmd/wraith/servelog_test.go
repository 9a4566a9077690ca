package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wraithdev/wraith/internal/testbin"
	"github.com/wraithdev/wraith/supervisor"
)

// detachedPID starts `wraith serve checkout --detach` in p's folder and
// returns the background server's pid, from its ready document.
func (p *project) detachedPID(tb testing.TB) int {
	tb.Helper()
	ready := filepath.Join(tb.TempDir(), "ready.json")
	if out, errOut, code := p.wraith(tb, "serve", "checkout", "--port", "0", "--ready-json", ready, "--detach"); code != 0 {
		tb.Fatalf("serve --detach: exit %d\n%s%s", code, out, errOut)
	}
	b, err := os.ReadFile(ready)
	if err != nil {
		tb.Fatal(err)
	}
	var doc struct{ Serve struct{ PID int } }
	if err := json.Unmarshal(b, &doc); err != nil || doc.Serve.PID <= 1 {
		tb.Fatalf("ready document %s: %v", b, err)
	}
	return doc.Serve.PID
}

// stopDetached sends SIGTERM to a background server and waits, with a
// deadline, until it is gone.
func stopDetached(tb testing.TB, pid int) {
	tb.Helper()
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		tb.Fatal(err)
	}
	testbin.WaitUntil(tb, 20*time.Second, fmt.Sprintf("background server %d gone", pid), func() bool { return !testbin.Live(pid) })
}

// TestServeDetachLogLifecycle: the background server's
// .wraith/serve-PID.log is there while it runs and gone once it exits
// cleanly (SIGTERM); the next serve --detach prunes the logs that no live
// wraith process writes (a dead pid, pid 1, a live process that is not
// wraith, a live wraith process whose output is elsewhere: a reused pid),
// and keeps a running server's log and what it cannot judge.
func TestServeDetachLogLifecycle(t *testing.T) {
	t.Parallel()
	p := newProject(t, oneTwin)
	logs := filepath.Join(p.dir, supervisor.StateDir)
	logOf := func(pid int) string { return filepath.Join(logs, fmt.Sprintf("serve-%d.log", pid)) }

	pid := p.detachedPID(t)
	if _, err := os.Stat(logOf(pid)); err != nil {
		t.Fatalf("want the running server's log, have %v", err)
	}
	stopDetached(t, pid)
	if _, err := os.Stat(logOf(pid)); !os.IsNotExist(err) {
		t.Errorf("a clean exit: want %s removed, have %v", logOf(pid), err)
	}

	running := p.detachedPID(t)
	t.Cleanup(func() { syscall.Kill(running, syscall.SIGKILL) })
	sleep := sleeper(t)
	otherWraith := startServe(t, "checkout", "--port", "0") // its output is a pipe
	planted := map[string]bool{                             // name: kept
		"serve-999999999.log": false,
		"serve-1.log":         false,
		fmt.Sprintf("serve-%d.log", sleep.Process.Pid):           false,
		fmt.Sprintf("serve-%d.log", otherWraith.cmd.Process.Pid): false,
		"serve-starting-123.log":                                 true,
		"serve-notapid.log":                                      true,
		"serve-99999999999999999999.log":                         true,
	}
	for name := range planted {
		if err := os.WriteFile(filepath.Join(logs, name), []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	planted[filepath.Base(logOf(running))] = true
	last := p.detachedPID(t)
	t.Cleanup(func() { syscall.Kill(last, syscall.SIGKILL) })
	planted[filepath.Base(logOf(last))] = true
	for name, kept := range planted {
		_, err := os.Stat(filepath.Join(logs, name))
		if have := err == nil; have != kept {
			t.Errorf("%s: want kept %v, have %v (%v)", name, kept, have, err)
		}
	}
	entries, _ := os.ReadDir(logs)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if t.Failed() {
		t.Logf(".wraith holds: %s", strings.Join(names, " "))
	}
}
