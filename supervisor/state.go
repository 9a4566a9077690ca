package supervisor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/wraithdev/wraith/ipc"
)

// StateVersion is the version of up.json this package writes and reads.
// Version 2 added "state" and "supervisor_start": a version 1 reader would
// take a starting project's file for a ready one.
const StateVersion = 2

// StateDir is the folder, inside a project's folder, that holds its state.
const StateDir = ".wraith"

// Statuses of the project (State.Phase) and of each twin.
const (
	StatusStarting   = "starting"
	StatusReady      = "ready"
	StatusRestarting = "restarting"
)

// State is the content of .wraith/up.json: who supervises the project and
// where each twin is.
type State struct {
	Version       int    `json:"wraith_up_version"`
	WraithVersion string `json:"wraith_version"`
	Project       string `json:"project"`
	Manifest      string `json:"manifest"`
	Dir           string `json:"dir"`
	// Phase is "starting" from the moment the supervisor holds the lock
	// until every twin is first ready, then "ready".
	Phase         string `json:"state"`
	SupervisorPID int    `json:"supervisor_pid"`
	// SupervisorStart is when the supervisor started, in clock ticks since
	// boot (Linux; 0 elsewhere): with the pid it names one process, so a
	// reused pid is not taken for the supervisor.
	SupervisorStart uint64      `json:"supervisor_start,omitempty"`
	StartedAt       time.Time   `json:"started_at"`
	UpdatedAt       time.Time   `json:"updated_at"`
	Twins           []TwinState `json:"twins"`
}

// TwinState is one twin in State.
type TwinState struct {
	Name string `json:"name"`
	// Status is "ready", or "restarting" between a crash and the next ready.
	Status string `json:"status"`
	// ControlTokenEnv names the variable that holds the control token, if
	// the twin needs one. The token itself is never written.
	ControlTokenEnv string `json:"control_token_env,omitempty"`
	// Restarts counts restarts since `wraith up`.
	Restarts int `json:"restarts"`
	// ReadyAt is when the current process became ready.
	ReadyAt time.Time `json:"ready_at"`
	// Ready is the current (or, while restarting, the last) process's
	// ready document.
	Ready ipc.Ready `json:"ready"`
}

func (s State) clone() State {
	s.Twins = slices.Clone(s.Twins)
	return s
}

// StatePath is where the state of the project in dir lives.
func StatePath(dir string) string { return filepath.Join(dir, StateDir, "up.json") }

// WriteState writes st to path atomically, creating its folder.
func WriteState(path string, st State) error {
	if err := EnsureStateDir(filepath.Dir(path)); err != nil {
		return err
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("encode state: %w", err)
	}
	return ipc.WriteFileAtomic(path, append(b, '\n'), 0o644)
}

// EnsureStateDir creates the state folder with a .gitignore that keeps it
// out of version control.
func EnsureStateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	ignore := filepath.Join(dir, ".gitignore")
	if _, err := os.Stat(ignore); errors.Is(err, fs.ErrNotExist) {
		os.WriteFile(ignore, []byte("# written by wraith\n*\n"), 0o644)
	}
	return nil
}

// ReadState reads path. A missing file is an error satisfying
// errors.Is(err, fs.ErrNotExist).
func ReadState(path string) (State, error) {
	b, err := readSmall(path, MaxStateBytes)
	if err != nil {
		return State{}, err
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		return State{}, fmt.Errorf("%s is not valid: %w", path, err)
	}
	if st.Version != StateVersion {
		return State{}, fmt.Errorf("%s has version %d, this build reads version %d: use the wraith build that ran wraith up", path, st.Version, StateVersion)
	}
	return st, nil
}

// MaxStateBytes bounds what is read of a state file: a real one for many
// twins is a few KiB.
const MaxStateBytes = 1 << 20

// readSmall reads a file wraith wrote and something else may have
// replaced: it must be a regular file (a FIFO would block the read
// forever, /dev/zero would never end) of at most max bytes.
func readSmall(path string, max int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s): wraith writes it as one; remove it", path, fi.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is over %d bytes, more than wraith ever writes there: remove it", path, max)
	}
	return b, nil
}

// NotUpError says no project is up in Dir.
type NotUpError struct{ Dir string }

func (e *NotUpError) Error() string {
	return fmt.Sprintf("no wraith project is up in %s (no %s; run wraith up)", e.Dir, filepath.Join(StateDir, "up.json"))
}

// StaleError says the state file's supervisor is gone (it was killed, or
// the machine restarted): nobody holds the project's lock.
type StaleError struct {
	Dir string
	PID int
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("no wraith project is up in %s (stale %s from pid %d; run wraith up)", e.Dir, filepath.Join(StateDir, "up.json"), e.PID)
}

// StartingError says the project's supervisor runs but not every twin is
// ready yet: the state has no addresses to give.
type StartingError struct {
	Dir string
	PID int
}

func (e *StartingError) Error() string {
	return fmt.Sprintf("the wraith project in %s is starting (wraith up, pid %d): its twins are not ready yet; try again once wraith up has returned (it returns once every twin is ready)", e.Dir, e.PID)
}

// UnreadableError says the state file is missing, cut short or corrupt.
// Holder is the verified supervisor that holds the project's lock, or 0
// when nothing runs.
type UnreadableError struct {
	Dir    string
	Err    error
	Holder int
}

func (e *UnreadableError) Error() string {
	if e.Holder == 0 {
		return fmt.Sprintf("no wraith project is up in %s, and %v: wraith down removes it", e.Dir, e.Err)
	}
	return fmt.Sprintf("the wraith project in %s runs under wraith up (pid %d), which holds its lock, but %v: wraith down stops it through the lock", e.Dir, e.Holder, e.Err)
}

func (e *UnreadableError) Unwrap() error { return e.Err }

// StoppingError says the supervisor that up.json names is alive but has let
// go of the project's lock: it is on its way out. A supervisor writes
// up.json only while it holds the lock and lets go of the lock only once
// every twin has stopped, so nothing of the project runs but that process,
// and only for the moment it takes to exit. It was told to stop (another
// wraith down, say); nothing needs to be signalled.
type StoppingError struct {
	Dir string
	PID int
}

func (e *StoppingError) Error() string {
	return fmt.Sprintf("the wraith project in %s is stopping: its twins have stopped and wraith up (pid %d) has let go of the project's lock", e.Dir, e.PID)
}

// probeTries bounds how often Probe starts over because the lock's holder
// went away while it was being checked. One retry sees a supervisor that
// exited; the others cover a new wraith up taking the lock meanwhile. A
// project whose lock changes hands faster than that is reported as
// stopping: the last holder seen has let go of it.
const probeTries = 3

// Probe reads the state of the project in dir and checks it against the
// project's lock and the identity of the process that holds it. It returns
// the state only for a live, verified, ready project; otherwise one of
// *NotUpError, *StaleError, *StartingError (with the state),
// *StoppingError (with the state), *UnreadableError or *NotOursError.
//
// A holder that exits or lets go of the lock while it is checked is not
// "not ours": it was ours and has gone (a concurrent wraith down stopped
// it), so Probe starts over and reports what is left.
func Probe(dir string) (State, error) {
	for try := 1; ; try++ {
		st, err := probe(dir)
		var left *leftError
		if !errors.As(err, &left) {
			return st, err
		}
		if try == probeTries {
			return State{Dir: dir, SupervisorPID: left.PID}, &StoppingError{Dir: dir, PID: left.PID}
		}
	}
}

// leftError is probe's word that the lock's holder failed its check
// because it exited or let go of the lock meanwhile: the look is out of
// date. It never leaves Probe.
type leftError struct{ PID int }

func (e *leftError) Error() string { return fmt.Sprintf("pid %d let go of the project's lock", e.PID) }

// probe is one look at the project.
func probe(dir string) (State, error) {
	st, readErr := ReadState(StatePath(dir))
	missing := errors.Is(readErr, fs.ErrNotExist)
	holder, err := lockOwner(dir)
	if holder > 0 && !pidAlive(holder) {
		holder = 0 // it has exited; the kernel drops its lock a moment later
	}
	if err != nil {
		return State{}, &NotOursError{Dir: dir, PID: st.SupervisorPID, Why: err.Error()}
	}
	if holder == 0 { // nothing runs but, at most, a supervisor on its way out
		switch {
		case missing:
			return State{}, &NotUpError{Dir: dir}
		case readErr != nil:
			return State{}, &UnreadableError{Dir: dir, Err: readErr}
		case exiting(dir, st.SupervisorPID, st.SupervisorStart):
			return st, &StoppingError{Dir: dir, PID: st.SupervisorPID}
		case st.SupervisorPID <= 1:
			return st, &NotOursError{Dir: dir, PID: st.SupervisorPID, Why: verify(dir, st.SupervisorPID, st.SupervisorStart)}
		case pidAlive(st.SupervisorPID):
			why := verify(dir, st.SupervisorPID, st.SupervisorStart)
			if !pidAlive(st.SupervisorPID) || exiting(dir, st.SupervisorPID, st.SupervisorStart) {
				// It went, or could be told for the supervisor on its
				// way out, while it was checked: look again.
				return State{}, &leftError{PID: st.SupervisorPID}
			}
			return st, &NotOursError{Dir: dir, PID: st.SupervisorPID, Why: why}
		}
		return st, &StaleError{Dir: dir, PID: st.SupervisorPID}
	}
	start, why := verifyHolder(dir, holder)
	if why != "" {
		if left(dir, holder) {
			return State{}, &leftError{PID: holder}
		}
		return State{}, &NotOursError{Dir: dir, PID: holder, Why: "it holds the project's lock, but " + why}
	}
	switch {
	case missing:
		return State{}, &UnreadableError{Dir: dir, Holder: holder, Err: fmt.Errorf("%s is missing (it may be starting)", filepath.Join(StateDir, "up.json"))}
	case readErr != nil:
		return State{}, &UnreadableError{Dir: dir, Holder: holder, Err: readErr}
	case st.SupervisorPID != holder:
		return st, &NotOursError{Dir: dir, PID: st.SupervisorPID, Holder: holder, Why: "the project's lock is held by another process"}
	case st.SupervisorStart != 0 && start != 0 && st.SupervisorStart != start:
		return st, &NotOursError{Dir: dir, PID: st.SupervisorPID, Holder: holder, Why: "it names an earlier process of that pid"}
	case st.Phase == StatusStarting:
		return st, &StartingError{Dir: dir, PID: holder}
	case st.Phase != StatusReady:
		return st, &UnreadableError{Dir: dir, Holder: holder, Err: fmt.Errorf("%s has an unknown state %q", filepath.Join(StateDir, "up.json"), st.Phase)}
	}
	return st, nil
}
