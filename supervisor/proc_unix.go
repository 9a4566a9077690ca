//go:build unix

package supervisor

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

var errLocked = errors.New("locked")

// flock takes an exclusive or shared lock without waiting.
func flock(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return errLocked
		default:
			return err
		}
	}
}

// signalGroup signals the process group led by pid.
func signalGroup(pid int, sig syscall.Signal) error {
	if pid <= 1 {
		return errBadPID(pid)
	}
	return syscall.Kill(-pid, sig)
}

// signalProcess signals one process. kill(2) reads 0 as "my process group"
// and -1 as "every process I may signal", and 1 is init: whatever a caller
// verified, those never reach it.
func signalProcess(pid int, sig syscall.Signal) error {
	if pid <= 1 {
		return errBadPID(pid)
	}
	return syscall.Kill(pid, sig)
}

// pidAlive reports whether pid is a live process (a zombie is dead: it has
// exited and only waits for its parent to reap it).
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	return !isZombie(pid)
}

// isZombie reads the state letter of /proc/PID/stat where there is a /proc.
func isZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	// The command name is in parentheses and may contain anything; the
	// state letter follows the last ')'.
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return false
	}
	return s[i+2] == 'Z' || s[i+2] == 'X'
}

// DetachedProcAttr starts a process in a session of its own, away from the
// terminal and its signals: how `wraith up` starts the background
// supervisor, and `wraith serve --detach` the background server.
func DetachedProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}
