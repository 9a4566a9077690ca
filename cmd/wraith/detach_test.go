package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeDetachErrors: with --detach, bad flags still exit 2 at once,
// and a twin that fails to start in the background exits 1 with the end
// of its log, leaving nothing running.
func TestServeDetachErrors(t *testing.T) {
	needTools(t, "bash")
	dir := t.TempDir()
	out, err := shell(t, dir, `
set +e
wraith serve checkout --clock real --clock-epoch 5 --detach; echo "exit=$?"
wraith serve checkout --clock real --clock-epoch 5; echo "exit=$?"
wraith serve checkout --detach --ready-fd 3 3>/dev/null; echo "exit=$?"
wraith serve no-such-twin --detach; echo "exit=$?"
`)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{
		"--clock-epoch 5: the real clock reads the wall clock and has no base epoch",
		"exit=2\n", "--detach reports readiness itself",
		"the background server stopped before it was ready", "no-such-twin", "exit=1\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "exit=2\n"); n != 3 {
		t.Errorf("want 3 usage errors (exit 2), have %d:\n%s", n, out)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, ".wraith", "serve-*.log"))
	if len(logs) != 1 {
		t.Fatalf("want one background server log, have %v", logs)
	}
	if b, _ := os.ReadFile(logs[0]); !strings.Contains(string(b), "no-such-twin") {
		t.Errorf("%s: want the failure, have:\n%s", logs[0], b)
	}
}
