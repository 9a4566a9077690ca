package ipc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// ReadyFD returns the inherited descriptor fd as a file to write the ready
// line on, after checking that it is open and writable: a child started
// with a wrong --ready-fd must say so before it binds, not after it serves.
// The error names the problem; the caller names the flag.
func ReadyFD(fd int) (*os.File, error) {
	if fd < 3 {
		return nil, fmt.Errorf("descriptor %d is standard input, output or error: want an inherited descriptor of 3 or more", fd)
	}
	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFL, 0)
	if errno != 0 {
		if errors.Is(errno, syscall.EBADF) {
			return nil, fmt.Errorf("descriptor %d is not open: the parent must pass it (e.g. as an extra file), or drop the flag", fd)
		}
		return nil, fmt.Errorf("descriptor %d: %w", fd, errno)
	}
	if mode := int(flags) & syscall.O_ACCMODE; mode != syscall.O_WRONLY && mode != syscall.O_RDWR {
		return nil, fmt.Errorf("descriptor %d is open for reading only: pass the write end of the pipe", fd)
	}
	return os.NewFile(uintptr(fd), "ready-fd"), nil
}

// ParentPipe returns stdin when it is a pipe or a socket, and nil
// otherwise. Only then does its end-of-file mean that the parent went away:
// a twin started by hand with --ready-fd, whose standard input is
// /dev/null (end-of-file at once) or a terminal, serves until a signal.
func ParentPipe(stdin *os.File) io.Reader {
	if stdin == nil {
		return nil
	}
	fi, err := stdin.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return nil
	}
	return stdin
}
