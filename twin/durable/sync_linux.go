package durable

import (
	"os"
	"syscall"
)

// datasync flushes f's data and what reading it back needs (its size),
// without the rest of its metadata (times): cheaper than fsync per commit.
func datasync(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			return err
		}
	}
}
