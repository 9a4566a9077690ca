package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wraithdev/wraith/internal/serve"
	"github.com/wraithdev/wraith/ipc"
	"github.com/wraithdev/wraith/manifest"
	"github.com/wraithdev/wraith/supervisor"
)

// upOptions is what `wraith up` runs with.
type upOptions struct {
	File       string
	ReadyJSON  string
	Foreground bool
	// Detach is the default; the flag stays for scripts that name it.
	Detach       bool
	StartTimeout time.Duration
	LogFormat    string
	LogLevel     string
	// ReadyFD is set by `up` on the supervisor it starts in the
	// background: the project's ready line (ipc.Project) on it says every
	// twin is ready.
	ReadyFD int
	// LogFile is set by `up` on the supervisor it starts in the
	// background: its log (.wraith/up.log), which, like the twins' logs,
	// turns over by size instead of growing without end.
	LogFile string

	f          *factory
	executable func() (string, error)
}

func newUpCmd(f *factory, runF func(context.Context, *upOptions) error) *cobra.Command {
	opts := &upOptions{f: f, executable: os.Executable}
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Run every twin of wraith-project.toml, each in its own wraith-twin process",
		Long: `Run one wraith-twin child per [[twins]] entry of the project manifest
(wraith-project.toml in this folder, or -f FILE) and keep them running.

up returns 0 once every twin is ready and leaves the supervisor running
in the background: wraith env prints the twins' settings, wraith logs
their logs (.wraith/logs/NAME.log), wraith down stops them. A twin that
is not ready within --start-timeout stops everything and up exits 1 with
that twin's last log lines. A twin that crashes is restarted on the same
port; five crashes within a minute stop everything. Children never
outlive the supervisor, even if it is killed.

With --foreground, up stays attached (for containers and process
managers): the twins' logs go to stderr as well, and SIGINT or SIGTERM
stop every twin and exit 0. See docs/up.md for the manifest keys.`,
		Example: `  wraith up
  wraith up -f ci/wraith-project.toml --ready-json /tmp/wraith.json
  wraith env --format json
  wraith logs -f billing
  wraith down`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runUp(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.File, "file", "f", "", "project manifest (default ./"+manifest.DefaultFile+")")
	fl.StringVar(&opts.ReadyJSON, "ready-json", "", "also write the project's connection settings (as wraith env --format json) to this file when every twin is ready")
	fl.BoolVar(&opts.Foreground, "foreground", false, "stay attached: log to stderr and stop the twins on SIGINT or SIGTERM (for containers and process managers)")
	fl.BoolVarP(&opts.Detach, "detach", "d", false, "return once every twin is ready, leaving the supervisor in the background (the default)")
	fl.MarkHidden("detach")
	fl.DurationVar(&opts.StartTimeout, "start-timeout", supervisor.DefaultStartTimeout, "how long each twin may take to become ready")
	fl.StringVar(&opts.LogFormat, "log-format", "text", "log format: text or json")
	fl.StringVar(&opts.LogLevel, "log-level", "info", "log level: trace, debug, info, warn or error")
	fl.IntVar(&opts.ReadyFD, "ready-fd", -1, "descriptor `FD` on which the background supervisor reports that every twin is ready")
	fl.MarkHidden("ready-fd")
	fl.StringVar(&opts.LogFile, "log-file", "", "write up's log to `PATH`, turned over at 10 MiB as the twins' logs are")
	fl.MarkHidden("log-file")
	return cmd
}

func (o *upOptions) check() error {
	if o.StartTimeout <= 0 {
		return usagef("--start-timeout must be positive, got %s", o.StartTimeout)
	}
	if o.LogFormat != "text" && o.LogFormat != "json" {
		return usagef("--log-format must be text or json, got %q", o.LogFormat)
	}
	switch o.LogLevel {
	case "trace", "debug", "info", "warn", "error":
	default:
		return usagef("--log-level must be trace, debug, info, warn or error, got %q", o.LogLevel)
	}
	if o.Detach && o.Foreground {
		return usagef("--detach and --foreground contradict each other: up detaches by default, so drop --detach")
	}
	if o.ReadyFD >= 0 && !o.Foreground {
		return usagef("--ready-fd is for the background supervisor, which runs with --foreground")
	}
	return nil
}

// upPlan is everything up needs before it starts a process.
type upPlan struct {
	project *manifest.Project
	binary  string
	env     []string // children's environment
}

// plan loads the manifest and checks the environment. Every failure here
// happens before any child starts.
func (o *upOptions) plan() (*upPlan, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	proj, err := loadManifest(o.f, o.File)
	if err != nil {
		return nil, err
	}
	if o.ReadyJSON != "" {
		if o.ReadyJSON, err = absPath(o.f, o.ReadyJSON); err != nil {
			return nil, err
		}
	}
	env := os.Environ()
	for _, t := range proj.Twins {
		if t.ControlTokenEnv == "" {
			continue
		}
		v := o.f.Getenv(t.ControlTokenEnv)
		if v == "" {
			return nil, usagef("twin %s: control_token_env names %s, which is unset or empty: export %s=<token> before wraith up", t.Name, t.ControlTokenEnv, t.ControlTokenEnv)
		}
		// The token reaches the child through its environment only.
		env = append(env, t.ControlTokenEnv+"="+v)
	}
	exe, _ := o.executable()
	bin, err := supervisor.FindBinary(exe, exec.LookPath, o.f.Getenv)
	if err != nil {
		return nil, err
	}
	return &upPlan{project: proj, binary: bin, env: env}, nil
}

// loadManifest loads -f FILE or ./wraith-project.toml. A bad manifest is a
// usage error (exit 2) listing every problem.
func loadManifest(f *factory, file string) (*manifest.Project, error) {
	path, err := manifestPath(f, file)
	if err != nil {
		return nil, err
	}
	proj, err := manifest.Load(path)
	var merr *manifest.Error
	var nf *manifest.NotFoundError
	if errors.As(err, &merr) || errors.As(err, &nf) {
		return nil, &usageError{err}
	}
	return proj, err
}

// manifestPath is -f FILE, or wraith-project.toml, made absolute.
func manifestPath(f *factory, file string) (string, error) {
	if file == "" {
		file = manifest.DefaultFile
	}
	return absPath(f, file)
}

// absPath resolves path against the factory's working folder.
func absPath(f *factory, path string) (string, error) {
	if filepath.IsAbs(path) {
		return path, nil
	}
	wd, err := f.Getwd()
	if err != nil {
		return "", err
	}
	return filepath.Join(wd, path), nil
}

func runUp(ctx context.Context, opts *upOptions) error {
	plan, err := opts.plan()
	if err != nil {
		return err
	}
	if !opts.Foreground {
		return runDetached(ctx, opts, plan)
	}
	f, proj := opts.f, plan.project
	log := newLogger(f, "wraith", opts.LogFormat, opts.LogLevel, false)
	if opts.LogFile != "" {
		lf, err := supervisor.OpenLogFile(opts.LogFile, 0, 0)
		if err != nil {
			return fmt.Errorf("--log-file: %w", err)
		}
		defer lf.Close()
		log = serve.NewLogger("wraith", lf, opts.LogFormat, opts.LogLevel, false)
	}
	var ready *os.File
	if opts.ReadyFD >= 0 {
		var err error
		if ready, err = ipc.ReadyFD(opts.ReadyFD); err != nil {
			return usagef("--ready-fd %d: %v", opts.ReadyFD, err)
		}
		defer ready.Close()
	}
	unlock, err := supervisor.Lock(proj.Dir)
	if err != nil {
		return err
	}
	defer unlock()
	if opts.ReadyJSON != "" {
		// A file left by an earlier run must not pass for this one.
		os.Remove(opts.ReadyJSON)
	}

	first := true
	stopProxy := func() {}
	defer func() { stopProxy() }()
	sup, err := supervisor.New(supervisor.Config{
		Binary:        plan.binary,
		Children:      children(proj),
		Dir:           proj.Dir,
		Env:           plan.env,
		Logger:        log,
		LogDir:        logDir(proj.Dir),
		LogJSON:       opts.LogFormat == "json",
		StartTimeout:  opts.StartTimeout,
		StateFile:     supervisor.StatePath(proj.Dir),
		Project:       proj.Name,
		Manifest:      proj.File,
		WraithVersion: f.Version,
		OnState: func(st supervisor.State) error {
			doc := envDocument(st)
			if opts.ReadyJSON != "" {
				if err := writeJSONFile(opts.ReadyJSON, doc); err != nil {
					return err
				}
			}
			if first {
				first = false
				if proj.Proxy != nil {
					// [proxy]: the egress sandbox's forward proxy, once
					// the twins it routes to are ready (docs/sandbox.md).
					stop, err := startProjectProxy(f, proj.Dir, st, log)
					if err != nil {
						return err
					}
					stopProxy = stop
				}
				if ready == nil {
					printSummary(f, doc)
					return nil
				}
				return notify(ready, st)
			}
			return nil
		},
	})
	if err != nil {
		return err
	}

	// ctx ends on SIGINT, SIGTERM or SIGHUP (see stopSignals).
	err = sup.Run(ctx)
	if opts.ReadyJSON != "" && !first {
		os.Remove(opts.ReadyJSON)
	}
	if ctx.Err() != nil && (err == nil || errors.Is(err, context.Canceled)) {
		log.Info("every twin stopped", "reason", context.Cause(ctx))
		return nil
	}
	return err
}

// children turns manifest entries into supervisor children.
func children(proj *manifest.Project) []supervisor.Child {
	cs := make([]supervisor.Child, 0, len(proj.Twins))
	for _, t := range proj.Twins {
		cs = append(cs, supervisor.Child{
			Name: t.Name, Twin: t.Twin, Host: t.Host, Port: t.Port,
			Flags: t.Flags(), ControlTokenEnv: t.ControlTokenEnv,
		})
	}
	return cs
}

// notify writes the project's ready line for the `wraith up` that started
// this supervisor in the background, and closes the descriptor.
func notify(w *os.File, st supervisor.State) error {
	defer w.Close()
	p := ipc.Project{WraithVersion: st.WraithVersion, Project: st.Project, SupervisorPID: st.SupervisorPID, Twins: map[string]ipc.Serve{}}
	for _, t := range st.Twins {
		p.Twins[t.Name] = t.Ready.Serve
	}
	if err := ipc.WriteProject(w, p); err != nil {
		return fmt.Errorf("--ready-fd: %w: the wraith up that started this supervisor went away", err)
	}
	return nil
}

// logDir is the folder of the project's logs: the supervisor's (up.log)
// and each twin's (NAME.log).
func logDir(projectDir string) string {
	return filepath.Join(projectDir, supervisor.StateDir, "logs")
}

func printSummary(f *factory, doc envDoc) {
	fmt.Fprintf(f.Stdout, "project %s is up (supervisor pid %d); wraith env prints its settings, wraith down stops it\n", doc.Project, doc.SupervisorPID)
	for _, name := range doc.order {
		t := doc.Twins[name]
		fmt.Fprintf(f.Stdout, "  %-16s %s\n", name, t.URL)
	}
}

func writeJSONFile(path string, doc envDoc) error {
	b, err := marshalLine(doc)
	if err != nil {
		return err
	}
	return ipc.WriteFileAtomic(path, b, 0o644)
}

// detachSlack is how much longer than --start-timeout `wraith up` waits
// for its background supervisor: children start in parallel, so this only
// covers the supervisor's own start and bookkeeping.
const detachSlack = 10 * time.Second

// runDetached starts `wraith up --foreground` again as a background
// process in its own session, with its log in .wraith/up.log, and waits
// for the project's ready line (ipc.Project) on descriptor 3. If that
// process exits first, the end of its log is the error.
func runDetached(ctx context.Context, opts *upOptions, plan *upPlan) error {
	f, proj := opts.f, plan.project
	var starting *supervisor.StartingError
	if st, err := supervisor.Probe(proj.Dir); err == nil || errors.As(err, &starting) {
		return &supervisor.AlreadyUpError{Dir: proj.Dir, PID: st.SupervisorPID}
	}
	exe, err := opts.executable()
	if err != nil {
		return fmt.Errorf("find the wraith executable: %w", err)
	}
	logPath := filepath.Join(proj.Dir, supervisor.StateDir, "up.log")
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return err
	}
	// Appended to: the background supervisor writes its log to the same
	// file through a supervisor.LogFile of its own (--log-file), and what
	// reaches its stderr must land after that, not over it.
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", logPath, err)
	}
	defer logFile.Close()
	args := []string{"up", "--foreground", "--file", proj.File, "--start-timeout", opts.StartTimeout.String(),
		"--log-format", opts.LogFormat, "--log-level", opts.LogLevel, "--ready-fd", "3", "--log-file", logPath}
	if opts.ReadyJSON != "" {
		args = append(args, "--ready-json", opts.ReadyJSON) // absolute: see plan
	}
	// The background process must find the same wraith-twin.
	env := append(plan.env, supervisor.BinaryEnv+"="+plan.binary)
	bg, err := startBackground(exe, args, proj.Dir, env, logFile)
	if err != nil {
		return err
	}
	var p ipc.Project
	err = bg.wait(ctx, opts.StartTimeout+detachSlack, supervisor.DefaultStopGrace+5*time.Second, func(r *os.File) error {
		var err error
		p, err = ipc.ReadProject(r)
		if errors.Is(err, ipc.ErrClosed) {
			return errors.New("the background supervisor stopped before every twin was ready")
		}
		return err
	})
	if err != nil {
		return err
	}
	st, err := supervisor.Probe(proj.Dir)
	if err != nil {
		return fmt.Errorf("the background supervisor (pid %d) said it was ready, but: %w", p.SupervisorPID, err)
	}
	printSummary(f, envDocument(st))
	fmt.Fprintf(f.Stdout, "logs: wraith logs [-f] [NAME] (files in %s)\n", logDir(proj.Dir))
	return nil
}

// logTail returns the last n lines of a file, indented.
func logTail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "  (no log: " + err.Error() + ")"
	}
	lines := strings.Split(string(bytes.TrimRight(b, "\n")), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + strings.Join(lines, "\n  ")
}
