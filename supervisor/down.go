package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// pollEvery is how often Down checks whether the supervisor is gone.
const pollEvery = 20 * time.Millisecond

// Down stops the project that runs in dir: SIGTERM to its supervisor, which
// stops its children (SIGTERM, then SIGKILL after its grace) and removes
// the state file; then it waits until the supervisor is gone. If that takes
// longer than timeout, the supervisor gets SIGKILL (its children die with
// it) and Down removes the state file itself and returns an error.
//
// It signals only a process that Probe verified: the live wraith process
// that holds the project's lock. When the state file is unreadable, that
// process is found through the lock. When the state file names any other
// process, Down signals nothing and returns *NotOursError. A stale file
// (nobody holds the lock) is removed: the error is then *StaleError, or
// *NotOursError / *UnreadableError with Holder 0.
//
// A supervisor that stops while Down checks or signals it (another wraith
// down stopped it) is waited for, and Down returns *StoppedError: nothing
// of the project is left, as if nothing had been up.
func Down(ctx context.Context, dir string, timeout time.Duration) (State, error) {
	st, err := Probe(dir)
	var (
		starting   *StartingError
		stopping   *StoppingError
		unreadable *UnreadableError
		notOurs    *NotOursError
		stale      *StaleError
	)
	pid := 0
	switch {
	case err == nil:
		pid = st.SupervisorPID
	case errors.As(err, &starting):
		pid = starting.PID
	case errors.As(err, &stopping):
		return st, stopped(ctx, dir, stopping.PID, st.SupervisorStart, timeout)
	case errors.As(err, &unreadable) && unreadable.Holder > 0:
		pid = unreadable.Holder
	case errors.As(err, &stale):
		if _, serr := os.Stat(StatePath(dir)); errors.Is(serr, fs.ErrNotExist) {
			// Gone since Probe read it: the supervisor removed it as it
			// stopped (or another down did), so it was not left behind.
			return st, &StoppedError{Dir: dir, PID: stale.PID}
		}
		removeStale(dir)
		return st, err
	case errors.As(err, &unreadable):
		removeStale(dir)
		return st, err
	case errors.As(err, &notOurs):
		if owner, lerr := lockOwner(dir); lerr == nil && owner == 0 {
			removeStale(dir) // nothing runs: the file is stale as well as wrong
		}
		return st, err
	default:
		return st, err
	}
	if st.SupervisorPID != pid { // found through the lock: say whom it stops
		st = State{Dir: dir, SupervisorPID: pid}
	}
	if pid == os.Getpid() {
		return st, fmt.Errorf("wraith up (pid %d) is this very process: stop it with SIGTERM or Ctrl-C", pid)
	}
	proc, start, err := openVerified(dir, pid)
	if err != nil {
		var left *leftError
		if errors.As(err, &left) {
			return st, stopped(ctx, dir, pid, start, timeout)
		}
		return st, err
	}
	defer proc.Release()
	if err := proc.Signal(syscall.SIGTERM); err != nil {
		if errors.Is(err, os.ErrProcessDone) {
			return st, stopped(ctx, dir, pid, start, timeout)
		}
		return st, fmt.Errorf("signal wraith up (pid %d): %w", pid, err)
	}
	if waitGone(ctx, dir, timeout) {
		// The lock goes once every twin has stopped; the process itself
		// exits a moment later, and down returns when nothing is left.
		waitExit(ctx, pid, start, timeout)
		removeStale(dir) // a clean stop removed it already
		return st, nil
	}
	if ctx.Err() != nil {
		return st, ctx.Err()
	}
	// The lock is still held: check it is still the same process before
	// the harder signal. The handle cannot reach a process that took the
	// pid over.
	if owner, _ := lockOwner(dir); owner == pid {
		proc.Signal(syscall.SIGKILL)
		waitGone(ctx, dir, 5*time.Second)
	}
	removeStale(dir)
	return st, fmt.Errorf("wraith up (pid %d) %w within %s, so it was killed; its twins die with it", pid, errNotStopped, timeout)
}

// openVerified takes a handle on pid and only then checks, once more, that
// it is the project's supervisor: between Probe and kill(2) the supervisor
// could exit and its pid pass to another process. On Linux the handle is a
// pidfd, which names one process and never the one that reuses its pid, so
// whatever it signals is the process verified here or nothing. It returns
// the start time it verified, and *leftError when the supervisor went away
// meanwhile.
func openVerified(dir string, pid int) (*os.Process, uint64, error) {
	if pid <= 1 {
		return nil, 0, errBadPID(pid)
	}
	proc, err := os.FindProcess(pid)
	if err != nil {
		return nil, 0, fmt.Errorf("find wraith up (pid %d): %w", pid, err)
	}
	start, why := verifyHolder(dir, pid)
	if why == "" {
		if start == 0 { // no record to verify against: take it as it is now
			start, _ = procStart(pid)
		}
		return proc, start, nil
	}
	proc.Release()
	if left(dir, pid) {
		return nil, start, &leftError{PID: pid}
	}
	return nil, 0, &NotOursError{Dir: dir, PID: pid, Why: "it holds the project's lock, but " + why}
}

// StoppedError says the project's supervisor stopped while wraith down
// checked it: another wraith down (or a signal, or a crash) stopped it.
// This down signalled nothing, and nothing of the project is left.
type StoppedError struct {
	Dir string
	PID int
}

func (e *StoppedError) Error() string {
	return fmt.Sprintf("the wraith project in %s stopped while wraith down looked at it (wraith up, pid %d, was already stopping): nothing to stop", e.Dir, e.PID)
}

// stopped waits until pid, a supervisor that has let go of the project's
// lock or exited, is gone, and removes any state file it left. It returns
// *StoppedError, or an error when pid still runs after timeout. It
// signals nothing: without the lock, pid is no longer verified as ours.
func stopped(ctx context.Context, dir string, pid int, start uint64, timeout time.Duration) error {
	if !waitExit(ctx, pid, start, timeout) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("wraith up (pid %d) let go of the project's lock in %s but still runs after %s; nothing was signalled, as it no longer holds the lock: if it is stuck, stop it yourself (kill %d)", pid, dir, timeout, pid)
	}
	removeStale(dir)
	return &StoppedError{Dir: dir, PID: pid}
}

// waitExit waits until pid has exited, or until it names a process that
// did not start at start (when start is known): its pid was reused.
func waitExit(ctx context.Context, pid int, start uint64, timeout time.Duration) bool {
	gone := func() bool {
		if !pidAlive(pid) {
			return true
		}
		have, err := procStart(pid)
		return start != 0 && (err != nil || have != start)
	}
	return poll(ctx, timeout, gone)
}

// waitGone waits until nobody holds the project's lock: the kernel drops
// it when the supervisor dies, and a reused pid cannot hold it.
func waitGone(ctx context.Context, dir string, timeout time.Duration) bool {
	return poll(ctx, timeout, func() bool {
		held, _ := lockHeld(dir)
		return !held
	})
}

// poll checks cond every pollEvery until it holds (true), or until ctx ends
// or timeout passes (false).
func poll(ctx context.Context, timeout time.Duration, cond func() bool) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		if cond() {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-deadline.C:
			return false
		case <-tick.C:
		}
	}
}

// removeStale removes the state file while holding the project's lock, so
// that it never removes the file of a supervisor that has just started. A
// missing file is fine, and any other failure leaves a file that Probe
// will call stale.
func removeStale(dir string) {
	withLock(dir, func() { _ = os.Remove(StatePath(dir)) })
}

var errNotStopped = errors.New("did not stop")
