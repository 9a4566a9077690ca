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
// It returns *NotUpError when nothing is up, and *StaleError when the state
// file's supervisor was already dead; it removes that stale file.
func Down(ctx context.Context, dir string, timeout time.Duration) (State, error) {
	st, err := Probe(dir)
	var stale *StaleError
	if errors.As(err, &stale) {
		removeState(dir)
		return st, err
	}
	if err != nil {
		return st, err
	}
	pid := st.SupervisorPID
	if err := signalProcess(pid, syscall.SIGTERM); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			removeState(dir)
			return st, &StaleError{Dir: dir, PID: pid}
		}
		return st, fmt.Errorf("signal wraith up (pid %d): %w", pid, err)
	}
	if waitGone(ctx, dir, pid, timeout) {
		removeState(dir) // a clean stop removed it already
		return st, nil
	}
	if ctx.Err() != nil {
		return st, ctx.Err()
	}
	signalProcess(pid, syscall.SIGKILL)
	waitGone(ctx, dir, pid, 5*time.Second)
	removeState(dir)
	return st, fmt.Errorf("wraith up (pid %d) %w within %s, so it was killed; its twins die with it", pid, errNotStopped, timeout)
}

func waitGone(ctx context.Context, dir string, pid int, timeout time.Duration) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		if !supervisorAlive(dir, pid) {
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

// removeState removes the state file; a missing file is fine, and any
// other failure leaves a file that Probe will call stale.
func removeState(dir string) {
	_ = os.Remove(StatePath(dir))
}

var errNotStopped = errors.New("did not stop")
