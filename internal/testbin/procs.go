package testbin

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Tagged lists the live processes whose environment holds key=value. Tests
// tag the children they start this way and then ask whether any is left,
// which works even for grandchildren the test never saw a pid of. It skips
// the test where /proc is missing.
func Tagged(tb testing.TB, key, value string) []int {
	tb.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		tb.Skip("needs /proc")
	}
	want := []byte(key + "=" + value + "\x00")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, want) || !Live(pid) {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// Live reports whether pid runs; a zombie has exited and only waits to be
// reaped.
func Live(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i > 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}

// WaitUntil polls cond every 10 ms until it holds, failing the test after
// d with what it was waiting for.
func WaitUntil(tb testing.TB, d time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
