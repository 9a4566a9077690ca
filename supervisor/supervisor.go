// Package supervisor runs one wraith-twin child process per twin of a
// project and keeps them running: start, ready handshake, log forwarding,
// restart on crash, stop. It shares nothing with the twins but the ipc
// package: the process boundary is the contract.
//
// # Lifecycle
//
// [Supervisor.Run] wires an oklog/run group: one actor per child, one state
// tracker, one stop actor that waits for the context. Any actor returning
// interrupts the others, so a child that fails stops the whole project.
//
//   - Start. Each child gets its settings as flags, the twin first:
//     TWIN --host=H --port=P [settings...] --log-format=json --ready-fd=3.
//     Descriptor 3 is the write end of a pipe; the child writes one ready
//     line (see ipc) and closes it. The supervisor waits for that line, the
//     child's exit, or the start timeout (default 15 s), whichever comes
//     first. Any failure kills the child, stops every other child and makes
//     Run return a [*ChildError] carrying the child's last output lines.
//   - Logs. The child's stdout and stderr share one pipe, read line by line
//     and re-logged through hclog under the child's name, at the child's
//     level when the line is an hclog JSON line.
//   - Restart. A child that exits when it was not asked to is restarted on
//     the port it had, after 0.5 s, 1 s, 2 s, 4 s...; the fifth crash within
//     60 s stops the project with an error.
//   - Stop. When the context ends, each child gets SIGTERM (it drains for up
//     to 5 s), then SIGKILL after the stop grace (default 10 s).
//   - Orphans. Children die with the supervisor even when it is killed with
//     SIGKILL: on Linux they are started with Pdeathsig=SIGKILL, and on every
//     system their standard input is a pipe whose write end only the
//     supervisor holds, so they read end-of-file when it dies and exit.
//     Children run in their own process group, so a Ctrl-C in the terminal
//     reaches only the supervisor, which then stops them in order.
//
// # State
//
// As it starts, the supervisor writes the project's [State] to
// Dir/.wraith/up.json, atomically, marked "starting" (replacing any file an
// earlier run left); when every child is ready it rewrites it "ready", and
// again whenever a child crashes or comes back. It removes the file once
// every child has stopped. [Lock] keeps two supervisors out of one folder
// and records who holds it. [Probe] and [Down] treat the file as a claim:
// they trust or signal only the live wraith process that holds the lock.
package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/oklog/run"

	"github.com/wraithdev/wraith/ipc"
)

// Defaults for the zero values of Config.
const (
	DefaultStartTimeout   = 15 * time.Second
	DefaultStopGrace      = 10 * time.Second
	DefaultRestartBackoff = 500 * time.Millisecond
	DefaultMaxCrashes     = 5
	DefaultCrashWindow    = 60 * time.Second
)

// Child describes one wraith-twin child.
type Child struct {
	// Name is the instance name: the logger's name and the key in State.
	Name string
	// Twin is the child's TWIN argument.
	Twin string
	// Host is the bind address.
	Host string
	// Port is the port to bind; 0 for any free port. A restarted child
	// gets the port it had, whatever Port says.
	Port int
	// Flags are the settings flags, passed after TWIN, --host and --port.
	Flags []string
	// Env is added to the child's environment. Secrets (the control token)
	// travel here, never in Flags.
	Env []string
	// ControlTokenEnv, if set, names the variable holding the control
	// token; it is recorded in State so readers know which one to use.
	ControlTokenEnv string
}

// Config configures a Supervisor. Zero values take the defaults above.
type Config struct {
	Binary   string  // path to wraith-twin; see FindBinary
	Children []Child // started in parallel
	Dir      string  // working folder of the children
	// Env is the children's base environment; nil means os.Environ().
	Env    []string
	Logger hclog.Logger // nil: a null logger

	StartTimeout   time.Duration // from process start to ready line
	StopGrace      time.Duration // SIGTERM to SIGKILL
	RestartBackoff time.Duration // first restart delay; doubles per recent crash
	MaxCrashes     int           // crashes within CrashWindow that stop the project
	CrashWindow    time.Duration

	// LogDir, if set, receives each child's output as LogDir/NAME.log
	// (see LogPath), re-logged as in Logger, truncated when Run starts and
	// appended to across restarts. LogJSON writes those files as hclog
	// JSON lines instead of text. A file turns over at LogMaxBytes,
	// keeping LogKeep older files (see LogFile); 0 means the package's
	// LogMaxBytes and LogKeep.
	LogDir      string
	LogJSON     bool
	LogMaxBytes int64
	LogKeep     int

	// StateFile, if set, receives the State (see StatePath).
	StateFile string
	// Project, Manifest and WraithVersion are recorded in State.
	Project, Manifest, WraithVersion string
	// OnState, if set, is called after every state write: first when all
	// children are ready, then after each crash and restart. An error
	// stops the project.
	OnState func(State) error
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Supervisor runs the children of one project.
type Supervisor struct {
	cfg    Config
	logger hclog.Logger
	env    []string
}

// New checks cfg and returns a Supervisor.
func New(cfg Config) (*Supervisor, error) {
	if cfg.Binary == "" {
		return nil, errors.New("supervisor: no wraith-twin binary given")
	}
	if len(cfg.Children) == 0 {
		return nil, errors.New("supervisor: no children to run")
	}
	seen := map[string]bool{}
	for _, c := range cfg.Children {
		if c.Name == "" || c.Twin == "" {
			return nil, fmt.Errorf("supervisor: child %q needs a name and a twin", c.Name)
		}
		if seen[c.Name] {
			return nil, fmt.Errorf("supervisor: two children named %q", c.Name)
		}
		seen[c.Name] = true
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = DefaultStartTimeout
	}
	if cfg.StopGrace <= 0 {
		cfg.StopGrace = DefaultStopGrace
	}
	if cfg.RestartBackoff <= 0 {
		cfg.RestartBackoff = DefaultRestartBackoff
	}
	if cfg.MaxCrashes <= 0 {
		cfg.MaxCrashes = DefaultMaxCrashes
	}
	if cfg.CrashWindow <= 0 {
		cfg.CrashWindow = DefaultCrashWindow
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	logger := cfg.Logger
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	env := cfg.Env
	if env == nil {
		env = os.Environ()
	}
	return &Supervisor{cfg: cfg, logger: logger, env: env}, nil
}

// errStopped ends the group when the caller's context ends.
var errStopped = errors.New("stopped")

// Run starts every child and supervises them until ctx ends (it then stops
// them and returns nil) or until a child fails to start or crashes too
// often (it then stops the others and returns a *ChildError). The state
// file, if any, is removed once every child has stopped.
func (s *Supervisor) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := make(chan event)
	t := &tracker{s: s, events: events}

	var g run.Group
	g.Add(func() error {
		<-ctx.Done()
		return errStopped
	}, func(error) { cancel() })
	g.Add(func() error { return t.run(ctx) }, func(error) { cancel() })
	for _, c := range s.cfg.Children {
		w := &watcher{s: s, c: c, port: c.Port, events: events,
			logger: s.logger.Named("supervisor").Named(c.Name), out: s.logger.Named(c.Name)}
		if s.cfg.LogDir != "" {
			file, closeFile, err := s.openLog(c.Name)
			if err != nil {
				return err
			}
			defer closeFile()
			w.file = file
		}
		g.Add(func() error { return w.run(ctx) }, func(error) { cancel() })
	}
	err := g.Run()
	if t.wrote {
		if rerr := os.Remove(s.cfg.StateFile); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			s.logger.Warn("could not remove the state file", "path", s.cfg.StateFile, "error", rerr)
		}
	}
	if errors.Is(err, errStopped) {
		return nil
	}
	return err
}

// LogPath is where a child's log goes under dir (Config.LogDir).
func LogPath(dir, name string) string {
	return filepath.Join(dir, name+".log")
}

// openLog opens the child's log file and a logger that writes to it.
func (s *Supervisor) openLog(name string) (hclog.Logger, func(), error) {
	if err := os.MkdirAll(s.cfg.LogDir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("create the log folder: %w", err)
	}
	path := LogPath(s.cfg.LogDir, name)
	f, err := OpenLogFile(path, s.cfg.LogMaxBytes, s.cfg.LogKeep)
	if err != nil {
		return nil, nil, fmt.Errorf("open the log of twin %s: %w", name, err)
	}
	l := hclog.New(&hclog.LoggerOptions{Name: name, Output: f, Level: hclog.Trace, JSONFormat: s.cfg.LogJSON})
	return l, func() { f.Close() }, nil
}

// ChildError is a child that failed: it did not start, or crashed too often.
type ChildError struct {
	Name   string
	Err    error
	Output []string // the child's last output lines, oldest first
}

func (e *ChildError) Error() string {
	msg := fmt.Sprintf("twin %s: %v", e.Name, e.Err)
	if len(e.Output) == 0 {
		return msg + " (it wrote nothing to stderr)"
	}
	msg += "\nlast output of twin " + e.Name + ":"
	for _, l := range e.Output {
		msg += "\n  | " + l
	}
	return msg
}

func (e *ChildError) Unwrap() error { return e.Err }

// args is the child's command line.
func (c Child) args(port int) []string {
	a := make([]string, 0, len(c.Flags)+5)
	a = append(a, c.Twin, "--host="+c.Host, "--port="+strconv.Itoa(port))
	a = append(a, c.Flags...)
	return append(a, "--log-format=json", "--ready-fd=3")
}

// event is a child's change of state, sent to the tracker.
type event struct {
	name     string
	status   string // StatusReady or StatusRestarting
	ready    ipc.Ready
	restarts int
	at       time.Time
}

// tracker owns the State and writes it.
type tracker struct {
	s      *Supervisor
	events chan event
	wrote  bool
}

func (t *tracker) run(ctx context.Context) error {
	cfg := t.s.cfg
	st := State{
		Version: StateVersion, WraithVersion: cfg.WraithVersion, Project: cfg.Project,
		Manifest: cfg.Manifest, Dir: cfg.Dir, Phase: StatusStarting,
		SupervisorPID: os.Getpid(), StartedAt: cfg.Now().UTC(),
	}
	st.SupervisorStart, _ = procStart(st.SupervisorPID)
	st.UpdatedAt = st.StartedAt
	for _, c := range cfg.Children {
		st.Twins = append(st.Twins, TwinState{Name: c.Name, Status: StatusStarting, ControlTokenEnv: c.ControlTokenEnv})
	}
	// A file left by an earlier run is replaced at once, so that no reader
	// takes its dead addresses for this run's.
	if cfg.StateFile != "" {
		if err := WriteState(cfg.StateFile, st); err != nil {
			return err
		}
		t.wrote = true
	}
	allReady := false
	for {
		var ev event
		select {
		case <-ctx.Done():
			return nil
		case ev = <-t.events:
		}
		i := slices.IndexFunc(st.Twins, func(ts TwinState) bool { return ts.Name == ev.name })
		tw := &st.Twins[i]
		tw.Status, tw.Restarts = ev.status, ev.restarts
		if ev.status == StatusReady {
			tw.Ready, tw.ReadyAt = ev.ready, ev.at.UTC()
		}
		if !allReady {
			if slices.ContainsFunc(st.Twins, func(ts TwinState) bool { return ts.Status != StatusReady }) {
				continue
			}
			allReady = true
			st.Phase = StatusReady
			t.s.logger.Named("supervisor").Info("all twins ready", "twins", len(st.Twins), "startup", ev.at.Sub(st.StartedAt).Round(time.Millisecond))
		}
		st.UpdatedAt = ev.at.UTC()
		if cfg.StateFile != "" {
			if err := WriteState(cfg.StateFile, st); err != nil {
				return err
			}
			t.wrote = true
		}
		if cfg.OnState != nil {
			if err := cfg.OnState(st.clone()); err != nil {
				return err
			}
		}
	}
}
