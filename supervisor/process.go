package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wraithdev/wraith/ipc"
)

// drainWait bounds how long we wait for a dead child's output pipe to reach
// end-of-file: a grandchild may still hold it open.
const drainWait = 2 * time.Second

// process is one started wraith-twin.
type process struct {
	cmd    *exec.Cmd
	pid    int
	ready  ipc.Ready
	stdin  *os.File      // write end; only we hold it, so our death is the child's EOF
	exited chan struct{} // closed once the process is reaped
	logs   *forwarder
	logger hclog.Logger

	released sync.Once
}

// spawn starts c and waits for its ready line. On any failure the process
// is killed and reaped, its output drained, and a *ChildError returned.
func spawn(ctx context.Context, s *Supervisor, c Child, port int, out, file, logger hclog.Logger) (*process, error) {
	fail := func(err error, output []string) (*process, error) {
		return nil, &ChildError{Name: c.Name, Err: err, Output: output}
	}
	var pipes []*os.File
	closeAll := func() {
		for _, f := range pipes {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			pipes = append(pipes, r, w)
		}
		return r, w, err
	}
	readyR, readyW, err1 := pipe()
	stdinR, stdinW, err2 := pipe()
	outR, outW, err3 := pipe()
	if err := errors.Join(err1, err2, err3); err != nil {
		closeAll()
		return fail(fmt.Errorf("create pipes: %w", err), nil)
	}

	cmd := exec.Command(s.cfg.Binary, c.args(port)...)
	cmd.Dir = s.cfg.Dir
	cmd.Env = append(slices.Clip(s.env), c.Env...)
	cmd.Stdin = stdinR
	cmd.Stdout = outW
	cmd.Stderr = outW
	cmd.ExtraFiles = []*os.File{readyW} // descriptor 3
	cmd.SysProcAttr = sysProcAttr()
	err := cmd.Start()
	// The child has its copies now. Ours must go, or we would never see
	// end-of-file on the ready and output pipes when the child dies.
	readyW.Close()
	stdinR.Close()
	outW.Close()
	if err != nil {
		readyR.Close()
		stdinW.Close()
		outR.Close()
		return fail(fmt.Errorf("start %s: %w", s.cfg.Binary, err), nil)
	}

	p := &process{cmd: cmd, pid: cmd.Process.Pid, stdin: stdinW, exited: make(chan struct{}), logger: logger}
	p.logs = newForwarder(out, outR)
	p.logs.file = file
	go p.logs.run()
	go func() {
		cmd.Wait() // stdio are *os.File: Wait copies nothing and closes none of our ends
		close(p.exited)
	}()
	logger.Debug("started", "pid", p.pid, "args", cmd.Args[1:])

	ready, err := p.handshake(ctx, readyR, s.cfg.StartTimeout)
	readyR.Close() // also ends a read still blocked after a timeout
	if err == nil {
		err = checkReady(ready, port, p.pid, logger)
	}
	if err != nil {
		p.kill()
		return fail(err, p.logs.tail())
	}
	p.ready = ready
	logger.Info("ready", "pid", p.pid, "url", ready.Serve.URL)
	return p, nil
}

// closedWait is how long a child whose ready pipe closed without a line
// may take to exit: its exit status says more than the pipe does.
const closedWait = time.Second

// handshake waits, in one select, for the first of: the ready line, the
// child's exit, the start deadline, the end of ctx. The caller kills the
// child on every error and closes r, which ends the read.
func (p *process) handshake(ctx context.Context, r *os.File, timeout time.Duration) (ipc.Ready, error) {
	type result struct {
		ready ipc.Ready
		err   error
	}
	lines := make(chan result, 1)
	go func() {
		ready, err := ipc.ReadReady(r)
		lines <- result{ready, err}
	}()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	var closed error // the pipe closed without a line; waiting for the exit
	for {
		select {
		case res := <-lines:
			switch {
			case res.err == nil:
				return res.ready, nil
			case !errors.Is(res.err, ipc.ErrClosed):
				return ipc.Ready{}, fmt.Errorf("bad ready handshake: %w", res.err)
			}
			// Usually the child died: give its exit a moment to arrive.
			closed, lines = res.err, nil
			deadline.Reset(closedWait)
		case <-p.exited:
			return ipc.Ready{}, fmt.Errorf("exited before it was ready (%s)", p.exitStatus())
		case <-deadline.C:
			if closed != nil {
				return ipc.Ready{}, fmt.Errorf("bad ready handshake: %w", closed)
			}
			return ipc.Ready{}, fmt.Errorf("not ready within %s: raise --start-timeout if the twin is slow to load", timeout)
		case <-ctx.Done():
			return ipc.Ready{}, ctx.Err()
		}
	}
}

// checkReady validates what the child says about itself.
func checkReady(r ipc.Ready, port, pid int, logger hclog.Logger) error {
	if port != 0 && r.Serve.Port != port {
		return fmt.Errorf("asked for port %d but the ready document says %d", port, r.Serve.Port)
	}
	if r.Serve.PID != pid {
		// A wrapper script that does not exec the real binary; allowed.
		logger.Warn("ready document names another pid than the process started", "started", pid, "ready_pid", r.Serve.PID)
	}
	return nil
}

func (p *process) hasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

func (p *process) exitStatus() string {
	if !p.hasExited() || p.cmd.ProcessState == nil {
		return "still running"
	}
	return p.cmd.ProcessState.String()
}

// signal sends sig to the child's process group (its own, see sysProcAttr)
// unless the child has been reaped.
func (p *process) signal(sig syscall.Signal) {
	if p.hasExited() {
		return
	}
	if err := signalGroup(p.pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		p.logger.Warn("signal failed", "signal", sig, "error", err)
	}
}

// stop asks the child to drain (SIGTERM) and kills it after grace.
func (p *process) stop(grace time.Duration) {
	p.signal(syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.exited:
		p.logger.Info("stopped", "pid", p.pid, "status", p.exitStatus())
	case <-t.C:
		p.logger.Warn("did not stop in time, killing it", "grace", grace)
		p.signal(syscall.SIGKILL)
		<-p.exited
	}
	p.release()
}

// kill stops the child at once (failed starts).
func (p *process) kill() {
	p.signal(syscall.SIGKILL)
	<-p.exited
	p.release()
}

// release frees what a reaped child leaves behind: the stdin pipe and the
// output pipe once drained.
func (p *process) release() {
	p.released.Do(func() {
		p.stdin.Close()
		p.logs.wait(drainWait)
	})
}
