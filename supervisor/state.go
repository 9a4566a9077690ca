package supervisor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/wraithdev/wraith/ipc"
)

// StateVersion is the version of up.json this package writes and reads.
const StateVersion = 1

// StateDir is the folder, inside a project's folder, that holds its state.
const StateDir = ".wraith"

// Twin statuses in State.
const (
	StatusStarting   = "starting"
	StatusReady      = "ready"
	StatusRestarting = "restarting"
)

// State is the content of .wraith/up.json: who supervises the project and
// where each twin is.
type State struct {
	Version       int         `json:"wraith_up_version"`
	WraithVersion string      `json:"wraith_version"`
	Project       string      `json:"project"`
	Manifest      string      `json:"manifest"`
	Dir           string      `json:"dir"`
	SupervisorPID int         `json:"supervisor_pid"`
	StartedAt     time.Time   `json:"started_at"`
	UpdatedAt     time.Time   `json:"updated_at"`
	Twins         []TwinState `json:"twins"`
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
	if err := ensureStateDir(filepath.Dir(path)); err != nil {
		return err
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("encode state: %w", err)
	}
	return ipc.WriteFileAtomic(path, append(b, '\n'), 0o644)
}

// ensureStateDir creates the state folder with a .gitignore that keeps it
// out of version control.
func ensureStateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	ignore := filepath.Join(dir, ".gitignore")
	if _, err := os.Stat(ignore); errors.Is(err, fs.ErrNotExist) {
		os.WriteFile(ignore, []byte("# written by wraith up\n*\n"), 0o644)
	}
	return nil
}

// ReadState reads path. A missing file is an error satisfying
// errors.Is(err, fs.ErrNotExist).
func ReadState(path string) (State, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return State{}, err
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		return State{}, fmt.Errorf("%s is not valid: %w (remove it if no wraith up is running)", path, err)
	}
	if st.Version != StateVersion {
		return State{}, fmt.Errorf("%s has version %d, this build reads version %d: use the wraith build that ran wraith up", path, st.Version, StateVersion)
	}
	return st, nil
}

// NotUpError says no project is up in Dir.
type NotUpError struct{ Dir string }

func (e *NotUpError) Error() string {
	return fmt.Sprintf("no wraith project is up in %s (no %s; run wraith up)", e.Dir, filepath.Join(StateDir, "up.json"))
}

// StaleError says the state file's supervisor is gone (it was killed, or
// the machine restarted).
type StaleError struct {
	Dir string
	PID int
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("no wraith project is up in %s (stale %s from pid %d; run wraith up)", e.Dir, filepath.Join(StateDir, "up.json"), e.PID)
}

// Probe reads the state of the project in dir and checks that its
// supervisor is alive. It returns *NotUpError when there is no state and
// *StaleError (with the state) when its supervisor is gone.
func Probe(dir string) (State, error) {
	st, err := ReadState(StatePath(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return State{}, &NotUpError{Dir: dir}
	}
	if err != nil {
		return State{}, err
	}
	if !supervisorAlive(dir, st.SupervisorPID) {
		return st, &StaleError{Dir: dir, PID: st.SupervisorPID}
	}
	return st, nil
}

// supervisorAlive asks the lock first: only a live supervisor holds it, so
// a recycled pid cannot fool it. Without a lock file it falls back to the pid.
func supervisorAlive(dir string, pid int) bool {
	if held, known := lockHeld(dir); known {
		return held
	}
	return pidAlive(pid)
}
