package supervisor

import (
	"errors"
	"os"
	"syscall"
)

// wraith up relies on Unix process semantics (process groups, flock,
// SIGTERM); on Windows it builds but refuses to run.
var errUnsupported = errors.New("wraith up needs Linux or macOS")

var errLocked = errors.New("locked")

func flock(*os.File, bool) error { return errUnsupported }

func signalGroup(pid int, sig syscall.Signal) error { return signalProcess(pid, sig) }

func signalProcess(pid int, _ syscall.Signal) error {
	if pid <= 1 {
		return errBadPID(pid)
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

func pidAlive(pid int) bool {
	_, err := os.FindProcess(pid)
	return err == nil
}

func sysProcAttr() *syscall.SysProcAttr { return nil }

// DetachedProcAttr: see proc_unix.go.
func DetachedProcAttr() *syscall.SysProcAttr { return nil }
