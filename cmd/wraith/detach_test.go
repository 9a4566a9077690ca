package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeDetachErrors: with --detach, bad flags still exit 2 at once; a
// twin the background refuses as a usage error (an unknown twin, an
// address off loopback without a control token) exits 2 as in the
// foreground, and a twin that fails otherwise (its port taken) exits 1 as
// in the foreground, each with the end of its log and nothing left
// running.
func TestServeDetachErrors(t *testing.T) {
	t.Parallel()
	needTools(t, "bash")
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	out, err := shell(t, dir, fmt.Sprintf(`
set +e
wraith serve checkout --clock real --clock-epoch 5 --detach; echo "exit=$?"
wraith serve checkout --clock real --clock-epoch 5; echo "exit=$?"
wraith serve checkout --detach --ready-fd 3 3>/dev/null; echo "exit=$?"
wraith serve no-such-twin --detach; echo "no-such-twin detached exit=$?"
wraith serve no-such-twin; echo "no-such-twin exit=$?"
wraith serve checkout --host 0.0.0.0 --port 0 --detach; echo "no token detached exit=$?"
wraith serve checkout --host 0.0.0.0 --port 0; echo "no token exit=$?"
wraith serve checkout --port %[1]d --detach; echo "port taken detached exit=$?"
wraith serve checkout --port %[1]d; echo "port taken exit=$?"
`, port))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{
		"--clock-epoch 5: the real clock reads the wall clock and has no base epoch",
		"exit=2\n", "--detach reports readiness itself",
		"the background server stopped before it was ready", "no-such-twin",
		"no-such-twin detached exit=2\n", "no-such-twin exit=2\n",
		"--host 0.0.0.0 is not a loopback address",
		"no token detached exit=2\n", "no token exit=2\n",
		fmt.Sprintf("port %d on 127.0.0.1 is in use", port),
		"port taken detached exit=1\n", "port taken exit=1\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "exit=2\n"); n != 7 {
		t.Errorf("want 7 usage errors (exit 2), have %d:\n%s", n, out)
	}
	// Each serve --detach prunes the logs of the servers before it, which
	// are gone: the last failure's log is left.
	logs, _ := filepath.Glob(filepath.Join(dir, ".wraith", "serve-*.log"))
	if len(logs) != 1 {
		t.Fatalf("want the log of the last background server that failed, have %v", logs)
	}
	if b, _ := os.ReadFile(logs[0]); !strings.Contains(string(b), "in use") {
		t.Errorf("%s: want the failure, have:\n%s", logs[0], b)
	}
}
