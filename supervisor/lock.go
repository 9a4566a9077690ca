package supervisor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// AlreadyUpError says another supervisor runs the project in Dir.
type AlreadyUpError struct {
	Dir string
	PID int // 0 if it has not written its state yet
}

func (e *AlreadyUpError) Error() string {
	who := "another wraith up"
	if e.PID > 0 {
		who = fmt.Sprintf("wraith up (pid %d)", e.PID)
	}
	return fmt.Sprintf("a wraith project is already up in %s, run by %s: run wraith down first", e.Dir, who)
}

func lockPath(dir string) string { return filepath.Join(dir, StateDir, "up.lock") }

// Lock takes the project's lock for this process's lifetime (or until
// unlock). The lock is an flock on .wraith/up.lock: the kernel drops it when
// the process dies, however it dies, so a crashed supervisor never leaves
// the folder locked. It returns *AlreadyUpError when another process holds it.
func Lock(dir string) (unlock func(), err error) {
	if err := EnsureStateDir(filepath.Join(dir, StateDir)); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(lockPath(dir), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock: %w", err)
	}
	if err := flock(f, true); err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			pid, _ := lockOwner(dir)
			return nil, &AlreadyUpError{Dir: dir, PID: pid}
		}
		return nil, fmt.Errorf("lock %s: %w", lockPath(dir), err)
	}
	if err := writeLockRecord(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("write %s: %w", lockPath(dir), err)
	}
	return func() { f.Close() }, nil
}

// withLock runs fn while holding the project's lock, and reports whether
// it could take it: how a reader removes a stale state file without racing
// a supervisor that is starting.
func withLock(dir string, fn func()) bool {
	f, err := os.OpenFile(lockPath(dir), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return false
	}
	defer f.Close()
	if flock(f, true) != nil {
		return false
	}
	fn()
	return true
}

func errBadPID(pid int) error {
	return fmt.Errorf("refusing to signal pid %d: wraith never signals a pid of 1 or less", pid)
}

// lockHeld reports whether some process holds the project's lock. known is
// false when that cannot be told (no lock file).
func lockHeld(dir string) (held, known bool) {
	f, err := os.Open(lockPath(dir))
	if err != nil {
		return false, false
	}
	defer f.Close()
	err = flock(f, false)
	if errors.Is(err, errLocked) {
		return true, true
	}
	if err != nil {
		return false, false
	}
	return false, true // we got it, so nobody holds it; Close releases it
}
