package supervisor

import (
	"context"
	"errors"
	"fmt"
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
func Down(ctx context.Context, dir string, timeout time.Duration) (State, error) {
	st, err := Probe(dir)
	var (
		starting   *StartingError
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
	case errors.As(err, &unreadable) && unreadable.Holder > 0:
		pid = unreadable.Holder
	case errors.As(err, &stale), errors.As(err, &unreadable):
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
	if err := signalProcess(pid, syscall.SIGTERM); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			removeStale(dir)
			return st, &StaleError{Dir: dir, PID: pid}
		}
		return st, fmt.Errorf("signal wraith up (pid %d): %w", pid, err)
	}
	if waitGone(ctx, dir, timeout) {
		removeStale(dir) // a clean stop removed it already
		return st, nil
	}
	if ctx.Err() != nil {
		return st, ctx.Err()
	}
	// The lock is still held: check it is still the same process before
	// the harder signal.
	if owner, _ := lockOwner(dir); owner == pid {
		signalProcess(pid, syscall.SIGKILL)
		waitGone(ctx, dir, 5*time.Second)
	}
	removeStale(dir)
	return st, fmt.Errorf("wraith up (pid %d) %w within %s, so it was killed; its twins die with it", pid, errNotStopped, timeout)
}

// waitGone waits until nobody holds the project's lock: the kernel drops
// it when the supervisor dies, and a reused pid cannot hold it.
func waitGone(ctx context.Context, dir string, timeout time.Duration) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		if held, _ := lockHeld(dir); !held {
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
