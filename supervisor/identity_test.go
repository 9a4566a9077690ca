package supervisor

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestSignalRefusesPIDAtMostOne sends signal 0 (a probe that delivers
// nothing), so the test is harmless even when the guard is gone: kill(2)
// would then accept 0, -1 and 1 and report no error.
func TestSignalRefusesPIDAtMostOne(t *testing.T) {
	for _, pid := range []int{0, -1, 1, -42} {
		t.Run(strconv.Itoa(pid), func(t *testing.T) {
			for name, signal := range map[string]func(int, syscall.Signal) error{"process": signalProcess, "group": signalGroup} {
				err := signal(pid, 0)
				if err == nil || !strings.Contains(err.Error(), "refusing to signal pid") {
					t.Errorf("%s: want a refusal, have %v", name, err)
				}
			}
		})
	}
}

func TestVerifyRefuses(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		pid  int
		want string
	}{
		{0, "1 or less"},
		{-1, "1 or less"},
		{1, "1 or less"},
		{999999999, "no such process"},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.pid), func(t *testing.T) {
			if have := verify(dir, tt.pid, 0); !strings.Contains(have, tt.want) {
				t.Errorf("want %q, have %q", tt.want, have)
			}
		})
	}
}

// TestLockTableNamesHolder checks the kernel's lock table, not the record
// in the lock file, names the holder.
func TestLockTableNamesHolder(t *testing.T) {
	if _, err := os.Stat("/proc/locks"); err != nil {
		t.Skip("needs /proc/locks")
	}
	dir := t.TempDir()
	unlock, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(lockPath(dir), nil, 0o644) // the record is gone
	if pid, ok := lockTableOwner(lockPath(dir)); !ok || pid != os.Getpid() {
		t.Errorf("want pid %d from /proc/locks, have %d %v", os.Getpid(), pid, ok)
	}
	unlock()
	if pid, err := lockOwner(dir); err != nil || pid != 0 {
		t.Errorf("free lock: want no owner, have %d %v", pid, err)
	}
}
