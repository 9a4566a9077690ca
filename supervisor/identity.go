package supervisor

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The state file is a claim, not a fact: anyone can edit it, a crash can
// cut it short, and the pid it names may have been reused. What readers
// trust is the project's lock, which only a live supervisor holds, and the
// identity of the process that holds it.

// lockVersion versions the record a supervisor writes into its lock file.
const lockVersion = 1

// lockRecord is what a supervisor writes into .wraith/up.lock once it holds
// the lock: a second way to find it when up.json is unreadable, on systems
// that cannot say who holds a lock.
type lockRecord struct {
	Version int    `json:"wraith_lock_version"`
	PID     int    `json:"pid"`
	Start   uint64 `json:"start,omitempty"` // see procStart
}

func writeLockRecord(f *os.File) error {
	rec := lockRecord{Version: lockVersion, PID: os.Getpid()}
	rec.Start, _ = procStart(rec.PID)
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err = f.WriteAt(append(b, '\n'), 0)
	return err
}

func readLockRecord(dir string) (lockRecord, error) {
	var rec lockRecord
	b, err := readSmall(lockPath(dir), 64<<10)
	if err != nil {
		return rec, err
	}
	if err := json.Unmarshal(b, &rec); err != nil || rec.Version != lockVersion {
		return lockRecord{}, fmt.Errorf("%s does not name its holder", lockPath(dir))
	}
	return rec, nil
}

// lockOwner returns the pid of the process that holds the project's lock,
// or 0 when nobody holds it. The kernel's lock table is asked first; the
// lock file's record is the fallback where there is no such table.
func lockOwner(dir string) (int, error) {
	held, _ := lockHeld(dir)
	if !held {
		return 0, nil
	}
	if pid, ok := lockTableOwner(lockPath(dir)); ok {
		return pid, nil
	}
	rec, err := readLockRecord(dir)
	if err != nil {
		return 0, fmt.Errorf("the project's lock is held, but by which process cannot be told (%v): find it with fuser %s", err, lockPath(dir))
	}
	return rec.PID, nil
}

// NotOursError says a process named as the project's supervisor is not a
// live wraith supervisor of this project. Nothing was signalled.
type NotOursError struct {
	Dir    string
	PID    int    // the pid that was named
	Why    string // what is wrong with it
	Holder int    // the verified supervisor that holds the lock; 0 if none
}

func (e *NotOursError) Error() string {
	msg := fmt.Sprintf("%s names pid %d, which is not a wraith supervisor of %s (%s); nothing was signalled",
		filepath.Join(StateDir, "up.json"), e.PID, e.Dir, e.Why)
	if e.Holder > 0 {
		msg += fmt.Sprintf(": the project's lock is held by wraith up (pid %d); remove %s and run wraith down again to stop it through its lock",
			e.Holder, filepath.Join(StateDir, "up.json"))
	}
	return msg
}

// verify checks that pid is a live wraith process that holds dir's lock
// and, when start is known, began at start (so a reused pid cannot pass).
// It returns why not, or "".
func verify(dir string, pid int, start uint64) string {
	switch {
	case pid <= 1:
		return "wraith never signals a pid of 1 or less"
	case !pidAlive(pid):
		return "no such process"
	}
	desc := describe(pid)
	owner, err := lockOwner(dir)
	switch {
	case err != nil:
		return err.Error()
	case owner == 0:
		return desc + ", and no process holds the project's lock"
	case owner != pid:
		return fmt.Sprintf("%s, and the project's lock is held by pid %d", desc, owner)
	}
	if !isWraith(pid) {
		return desc + ", not wraith"
	}
	if have, err := procStart(pid); err == nil && start != 0 && have != start {
		return fmt.Sprintf("%s started at tick %d, not %d: the pid was reused", desc, have, start)
	}
	return ""
}

// verifyHolder verifies holder, the process that holds dir's lock, with
// the start time from its lock record when the record names it. It returns
// that start time (0 if unknown) and why holder is not ours, or "".
func verifyHolder(dir string, holder int) (start uint64, why string) {
	if rec, err := readLockRecord(dir); err == nil && rec.PID == holder {
		start = rec.Start
	}
	return start, verify(dir, holder, start)
}

// left reports whether pid, seen holding dir's lock a moment ago, has
// exited or let go of the lock since: why a check of it failed is then
// that it went away, not that it was never ours.
func left(dir string, pid int) bool {
	if !pidAlive(pid) {
		return true
	}
	owner, err := lockOwner(dir)
	return err == nil && owner != pid
}

// exiting reports whether pid, which up.json names while nobody holds the
// project's lock, is the supervisor that wrote it, on its way out. On
// Linux it must be wraith and have started at start; elsewhere the record
// it left in the lock file must name it. Either way the answer decides only
// what is reported: nothing is signalled on its strength.
func exiting(dir string, pid int, start uint64) bool {
	if pid <= 1 || !pidAlive(pid) {
		return false
	}
	if have, err := procStart(pid); err == nil {
		return start != 0 && have == start && (isWraith(pid) || hollow(pid))
	}
	rec, err := readLockRecord(dir)
	return err == nil && rec.PID == pid
}

// hollow reports whether pid has let go of its memory, as a process does
// in its last moments before it becomes a zombie: its argv reads empty and
// its executable cannot be read, so what it runs can no longer be told
// (its start time still tells which process it is).
func hollow(pid int) bool {
	args, err := procArgs(pid)
	return err == nil && strings.Join(args, "") == "" && procExe(pid) == ""
}

// isWraith reports whether pid's program is wraith, by its executable or
// its argv[0]. Where that cannot be read, the lock alone decides.
func isWraith(pid int) bool {
	args, err := procArgs(pid)
	if err != nil {
		return true
	}
	names := []string{procExe(pid)}
	if len(args) > 0 {
		names = append(names, args[0])
	}
	for _, n := range names {
		base := filepath.Base(n)
		if strings.HasPrefix(base, "wraith") && !strings.HasPrefix(base, BinaryName) {
			return true
		}
	}
	return false
}

// describe names a process for a message: "pid 42 (sleep 300)".
func describe(pid int) string {
	args, err := procArgs(pid)
	if err != nil || len(args) == 0 {
		return fmt.Sprintf("pid %d", pid)
	}
	cmd := strings.Join(args, " ")
	if len(cmd) > 80 {
		cmd = cmd[:77] + "..."
	}
	return fmt.Sprintf("pid %d is %q", pid, cmd)
}

var errNoProc = errors.New("no /proc on this system")
