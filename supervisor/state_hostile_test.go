//go:build linux

package supervisor

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadStateHostileFiles: a state file replaced by a FIFO, a link to
// /dev/zero or a huge file is refused at once, without blocking and
// without reading it whole (env, status and down read it first).
func TestReadStateHostileFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge.json")
	if err := os.WriteFile(huge, []byte(`{"version":2,"pad":"`+strings.Repeat("x", 1<<20)+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, zero, huge} {
		done := make(chan error, 1)
		go func() { _, err := ReadState(path); done <- err }()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("ReadState(%s): want an error", filepath.Base(path))
			}
		case <-time.After(10 * time.Second): // a failure bound, not a wait
			t.Errorf("ReadState(%s) still blocked after 10s", filepath.Base(path))
		}
	}
}
