package supervisor

import "syscall"

// sysProcAttr puts the child in its own process group (so a terminal's
// Ctrl-C reaches only the supervisor, which stops children in order) and
// has the kernel SIGKILL it when the supervisor dies.
//
// Pdeathsig fires when the thread that forked the child exits, not the
// process. The Go runtime only ends threads whose goroutine locked them and
// returned without unlocking, which nothing in wraith does; and the stdin
// pipe covers the rest.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
