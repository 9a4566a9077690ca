package main

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wraithdev/wraith/internal/testbin"
	"github.com/wraithdev/wraith/supervisor"
)

// TestUpDaemonLogs: plain `wraith up` returns 0 with the supervisor in the
// background; each twin's log is in .wraith/logs/NAME.log; `wraith logs`
// shows them; `wraith logs -f` ends when `wraith down` stops the project.
func TestUpDaemonLogs(t *testing.T) {
	t.Parallel()
	p := newProject(t, twoTwins)
	out, errOut, code := p.wraith(t, "up")
	if code != 0 {
		t.Fatalf("wraith up: exit %d\n%s%s", code, out, errOut)
	}
	if _, _, code := p.wraith(t, "status"); code != 0 {
		t.Fatalf("wraith status after up returned: exit %d, want the project still up", code)
	}
	for _, name := range []string{"billing", "checkout-api"} {
		b, err := os.ReadFile(filepath.Join(p.dir, ".wraith", "logs", name+".log"))
		if err != nil || !strings.Contains(string(b), "serving") {
			t.Errorf("%s.log: want the twin's \"serving\" line, have %q, %v", name, b, err)
		}
	}
	out, errOut, code = p.wraith(t, "logs", "billing")
	if code != 0 || !strings.Contains(out, "serving") || strings.Contains(out, "checkout-api |") {
		t.Errorf("wraith logs billing: want billing's lines only, have exit %d\n%s%s", code, out, errOut)
	}
	out, _, _ = p.wraith(t, "logs")
	if !strings.Contains(out, "billing | ") || !strings.Contains(out, "checkout-api | ") {
		t.Errorf("wraith logs: want every twin's lines, prefixed, have\n%s", out)
	}
	if _, errOut, code := p.wraith(t, "logs", "nope"); code != exitUsage || !strings.Contains(errOut, "billing, checkout-api") {
		t.Errorf("wraith logs nope: want exit 2 listing the twins, have %d %s", code, errOut)
	}

	follow := exec.Command(p.bin, "logs", "-f")
	follow.Dir, follow.Env = p.dir, p.env
	var fout bytes.Buffer
	follow.Stdout = &fout
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- follow.Wait() }()
	if _, errOut, code := p.wraith(t, "down"); code != 0 {
		t.Fatalf("wraith down: exit %d %s", code, errOut)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("wraith logs -f: want exit 0 once the supervisor stopped, have %v", err)
		}
	case <-time.After(20 * time.Second):
		follow.Process.Kill()
		t.Fatal("wraith logs -f still ran 20 s after wraith down")
	}
	if !strings.Contains(fout.String(), "billing | ") {
		t.Errorf("wraith logs -f printed no lines:\n%s", fout.String())
	}
}

// TestUpChildErrorKeepsItsLevel: a twin that cannot bind its port fails
// at ERROR in its log and in up's error, not at INFO.
func TestUpChildErrorKeepsItsLevel(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	p := newProject(t, "[[twins]]\nname = \"billing\"\nport = "+strconv.Itoa(port)+"\n")
	_, errOut, code := p.wraith(t, "up", "--foreground")
	if code != 1 || !strings.Contains(errOut, "[ERROR] wraith.billing: port "+strconv.Itoa(port)+" on 127.0.0.1 is in use") {
		t.Errorf("want exit 1 with the child's error at ERROR, have %d:\n%s", code, errOut)
	}
	b, _ := os.ReadFile(filepath.Join(p.dir, ".wraith", "logs", "billing.log"))
	if !strings.Contains(string(b), "[ERROR] billing: port") {
		t.Errorf("billing.log: want the error at ERROR, have:\n%s", b)
	}
}

// TestLogsReadsTurnedOverFiles: `wraith logs` prints a twin's turned-over
// files (NAME.log.3 ... NAME.log.1) before NAME.log, oldest first, and
// `wraith logs -f` follows the log across a turn-over: the lines that
// reached the old file before it turned over, then the new file's, each
// once.
func TestLogsReadsTurnedOverFiles(t *testing.T) {
	t.Parallel()
	p := newProject(t, oneTwin)
	logs := filepath.Join(p.dir, ".wraith", "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(logs, "billing.log")
	for i, content := range []string{"line 4\n", "line 3\n", "line 2\n", "line 1\n"} {
		if err := os.WriteFile(supervisor.RotatedLogPath(path, i), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"logs", "billing"}, {"logs"}, {"logs", "-f", "billing"}} {
		out, errOut, code := p.wraith(t, args...)
		if want := "line 1\nline 2\nline 3\nline 4\n"; code != 0 || out != want {
			t.Errorf("wraith %s: want exit 0 and %q, have %d %q %s", strings.Join(args, " "), want, code, out, errOut)
		}
	}

	if out, errOut, code := p.wraith(t, "up"); code != 0 {
		t.Fatalf("wraith up: exit %d\n%s%s", code, out, errOut)
	}
	follow := exec.Command(p.bin, "logs", "-f", "billing")
	follow.Dir, follow.Env = p.dir, p.env
	fout := &syncBuf{}
	follow.Stdout = fout
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- follow.Wait() }()
	t.Cleanup(func() { follow.Process.Kill(); <-done })
	appendLine := func(path, line string) {
		t.Helper()
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(line + "\n"); err != nil {
			t.Fatal(err)
		}
	}
	appendLine(path, "before the turn")
	testbin.WaitUntil(t, 20*time.Second, "logs -f prints the line before the turn", func() bool {
		return strings.Contains(fout.String(), "before the turn")
	})
	// Turn over as supervisor.LogFile does (the last line of the old
	// file lands after the follower's last read).
	for i := supervisor.LogKeep; i > 0; i-- {
		os.Rename(supervisor.RotatedLogPath(path, i-1), supervisor.RotatedLogPath(path, i))
	}
	appendLine(supervisor.RotatedLogPath(path, 1), "last of the old file")
	appendLine(path, "first of the new file")
	testbin.WaitUntil(t, 20*time.Second, "logs -f prints the new file's line", func() bool {
		return strings.Contains(fout.String(), "first of the new file")
	})
	if _, errOut, code := p.wraith(t, "down"); code != 0 {
		t.Fatalf("wraith down: exit %d %s", code, errOut)
	}
	select {
	case err := <-done:
		done <- err
		if err != nil {
			t.Errorf("wraith logs -f: want exit 0 once the supervisor stopped, have %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("wraith logs -f still ran 20 s after wraith down")
	}
	out := fout.String()
	i, j := strings.Index(out, "last of the old file"), strings.Index(out, "first of the new file")
	if i < 0 || j < i || strings.Count(out, "last of the old file") != 1 || strings.Count(out, "first of the new file") != 1 ||
		strings.Count(out, "before the turn") != 1 {
		t.Errorf("wraith logs -f: want the old file's lines once, then the new file's once, have:\n%s", out)
	}
}

// TestUpLogIsTurnedOver: the background supervisor writes .wraith/up.log
// through a log that turns over by size (supervisor.LogFile), as the
// twins' logs are: an earlier run's turned-over up.log.1 and up.log.2 are
// gone once up starts, and up.log has this run's lines, its own and the
// twins' it re-logs.
func TestUpLogIsTurnedOver(t *testing.T) {
	t.Parallel()
	p := newProject(t, oneTwin)
	upLog := filepath.Join(p.dir, supervisor.StateDir, "up.log")
	if err := os.MkdirAll(filepath.Dir(upLog), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i <= 2; i++ {
		if err := os.WriteFile(supervisor.RotatedLogPath(upLog, i), []byte("an earlier run\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, errOut, code := p.wraith(t, "up"); code != 0 {
		t.Fatalf("wraith up: exit %d\n%s%s", code, out, errOut)
	}
	if want, have := []string{upLog}, supervisor.LogFiles(upLog); !slices.Equal(want, have) {
		t.Errorf("want only %s, have %q", upLog, have)
	}
	if _, errOut, code := p.wraith(t, "down"); code != 0 {
		t.Fatalf("wraith down: exit %d %s", code, errOut)
	}
	b, _ := os.ReadFile(upLog)
	if strings.Contains(string(b), "an earlier run") || !strings.Contains(string(b), "wraith.billing: serving") || !strings.Contains(string(b), "every twin stopped") {
		t.Errorf("up.log: want this run's lines only, the twin's and up's own, have:\n%s", b)
	}
}
