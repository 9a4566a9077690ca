package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/wraithdev/wraith/ipc"
	"github.com/wraithdev/wraith/supervisor"
)

// background is this program started again in a session of its own, with
// standard input on /dev/null, its output in a log file, and descriptor 3
// the write end of a pipe on which it writes one versioned ready line (see
// package ipc) once it serves. That is how `wraith up` and
// `wraith serve --detach` return once ready and not before.
type background struct {
	cmd    *exec.Cmd
	ready  *os.File // read end of descriptor 3
	exited chan struct{}
	log    string
}

// startBackground starts exe with args in dir, its output appended to log.
func startBackground(exe string, args []string, dir string, env []string, log *os.File) (*background, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdout, cmd.Stderr = log, log
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = supervisor.DetachedProcAttr()
	err = cmd.Start()
	w.Close() // the child holds the only write end: its exit closes the pipe
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("start %s in the background: %w", exe, err)
	}
	b := &background{cmd: cmd, ready: r, exited: make(chan struct{}), log: log.Name()}
	go func() { cmd.Wait(); close(b.exited) }()
	return b, nil
}

// wait runs read on the ready pipe and waits, in one select, for the
// first of: read's result, timeout, the end of ctx. read blocks until the
// line arrives or the pipe closes, which the process's exit does (it holds
// the only write end). If read fails or anything else comes first, the
// process is stopped (SIGTERM, then SIGKILL after grace) and the error
// carries the end of its log; it is a usage error (exit 2) when the
// process exited 2 itself. On success the process is left running,
// released.
func (b *background) wait(ctx context.Context, timeout, grace time.Duration, read func(*os.File) error) error {
	defer b.ready.Close() // also ends a read still blocked
	done := make(chan error, 1)
	go func() { done <- read(b.ready) }()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	var err error
	select {
	case err = <-done:
	case <-deadline.C:
		err = fmt.Errorf("%w after %s", ipc.ErrTimeout, timeout)
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err == nil {
		b.cmd.Process.Release()
		return nil
	}
	select {
	case <-b.exited:
	default:
		b.cmd.Process.Signal(syscall.SIGTERM)
		t := time.NewTimer(grace)
		select {
		case <-b.exited:
		case <-t.C:
			b.cmd.Process.Kill()
			<-b.exited
		}
		t.Stop()
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	err = fmt.Errorf("%v; its log (%s) ends with:\n%s", err, b.log, logTail(b.log, 30))
	if b.cmd.ProcessState.ExitCode() == exitUsage {
		// The background process refused how it was called, as it does in
		// the foreground: the same exit code either way.
		return &usageError{err}
	}
	return err
}
