//go:build unix && !linux

package supervisor

import "syscall"

// sysProcAttr puts the child in its own process group. There is no
// Pdeathsig here: children notice the supervisor's death through end-of-file
// on their stdin pipe.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
