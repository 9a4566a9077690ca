package main

import (
	"errors"
	"os"
	"testing"

	"github.com/wraithdev/wraith/supervisor"
)

func TestDownNothingUp(t *testing.T) {
	dir := t.TempDir()
	f, stdout, stderr := testFactory(dir, nil)
	if code := run([]string{"down"}, f); code != exitRuntime {
		t.Fatalf("want exit 1, have %d", code)
	}
	if want := "wraith: no wraith project is up in " + dir + " (no .wraith/up.json; run wraith up)\n"; stderr.String() != want || stdout.Len() != 0 {
		t.Errorf("want %q, have %q", want, stderr)
	}
}

func TestDownRemovesStaleState(t *testing.T) {
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
