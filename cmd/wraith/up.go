package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	oklog "github.com/oklog/run"
	"github.com/spf13/cobra"

	"github.com/wraithdev/wraith/ipc"
	"github.com/wraithdev/wraith/manifest"
	"github.com/wraithdev/wraith/supervisor"
)

// upOptions is what `wraith up` runs with.
type upOptions struct {
	File         string
	ReadyJSON    string
	Detach       bool
	StartTimeout time.Duration
	LogFormat    string
	LogLevel     string
	// NotifyFD is set by `up --detach` on the supervisor it starts in the
	// background: one line on it says the project is ready.
	NotifyFD int

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

When every twin is ready, up writes .wraith/up.json beside the manifest
(read it with wraith env) and --ready-json if given. A twin that is not
ready within --start-timeout stops everything and up exits 1 with that
twin's last log lines. A twin that crashes is restarted on the same port;
five crashes within a minute stop everything. SIGINT or SIGTERM stop every
twin and exit 0. Children never outlive up, even if it is killed.

With --detach, up returns once every twin is ready and keeps supervising
in the background (logs in .wraith/up.log); stop it with wraith down.
See docs/up.md for the manifest keys.`,
		Example: `  wraith up
  wraith up -f ci/wraith-project.toml --detach --ready-json /tmp/wraith.json
  wraith env --format json`,
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
	fl.BoolVarP(&opts.Detach, "detach", "d", false, "return once every twin is ready and keep running in the background")
	fl.DurationVar(&opts.StartTimeout, "start-timeout", supervisor.DefaultStartTimeout, "how long each twin may take to become ready")
	fl.StringVar(&opts.LogFormat, "log-format", "text", "log format: text or json")
	fl.StringVar(&opts.LogLevel, "log-level", "info", "log level: trace, debug, info, warn or error")
	fl.IntVar(&opts.NotifyFD, "notify-fd", -1, "descriptor on which to report readiness (used by --detach)")
	fl.MarkHidden("notify-fd")
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
	if o.Detach && o.NotifyFD >= 0 {
		return usagef("--notify-fd is for the background supervisor; do not combine it with --detach")
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
	if opts.Detach {
		return runDetached(ctx, opts, plan)
	}
	f, proj := opts.f, plan.project
	log := newLogger(f, "wraith", opts.LogFormat, opts.LogLevel, false)
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
	sup, err := supervisor.New(supervisor.Config{
		Binary:        plan.binary,
		Children:      children(proj),
		Dir:           proj.Dir,
		Env:           plan.env,
		Logger:        log,
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
				printSummary(f, doc)
				return notify(opts.NotifyFD, doc)
			}
			return nil
		},
	})
	if err != nil {
		return err
	}

	var g oklog.Group
	// SIGHUP too: a closed terminal should stop the twins in order, not
	// leave them to Pdeathsig.
	g.Add(oklog.SignalHandler(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP))
	sctx, cancel := context.WithCancel(ctx)
	g.Add(func() error { return sup.Run(sctx) }, func(error) { cancel() })
	err = g.Run()
	if opts.ReadyJSON != "" && !first {
		os.Remove(opts.ReadyJSON)
	}
	var sig oklog.SignalError
	if errors.As(err, &sig) || errors.Is(err, context.Canceled) {
		log.Info("every twin stopped", "reason", err)
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

// notify writes the ready line for `up --detach` and closes the descriptor.
func notify(fd int, doc envDoc) error {
	if fd < 0 {
		return nil
	}
	f := os.NewFile(uintptr(fd), "notify")
	if f == nil {
		return fmt.Errorf("--notify-fd %d is not open", fd)
	}
	defer f.Close()
	b, err := marshalLine(doc)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err != nil {
		return fmt.Errorf("report readiness: %w", err)
	}
	return nil
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

// detachSlack is how much longer than --start-timeout `up --detach` waits
// for its background supervisor: children start in parallel, so this only
// covers the supervisor's own start and bookkeeping.
const detachSlack = 10 * time.Second

// runDetached starts `wraith up` again as a background process in its own
// session, with its logs in .wraith/up.log, and waits for the line it
// writes on --notify-fd when every twin is ready. If that process exits
// first, the end of its log is the error.
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
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", logPath, err)
	}
	defer logFile.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()

	args := []string{"up", "--file", proj.File, "--start-timeout", opts.StartTimeout.String(),
		"--log-format", opts.LogFormat, "--log-level", opts.LogLevel, "--notify-fd", "3"}
	if opts.ReadyJSON != "" {
		args = append(args, "--ready-json", opts.ReadyJSON) // absolute: see plan
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir = proj.Dir
	// The background process must find the same wraith-twin.
	cmd.Env = append(plan.env, supervisor.BinaryEnv+"="+plan.binary)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = supervisor.DetachedProcAttr()
	err = cmd.Start()
	w.Close()
	if err != nil {
		return fmt.Errorf("start the background supervisor: %w", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()

	line, err := readNotifyLine(ctx, r, opts.StartTimeout+detachSlack)
	if err != nil {
		if !isClosed(exited) {
			cmd.Process.Signal(syscall.SIGTERM) // it stops its children
			select {
			case <-exited:
			case <-time.After(supervisor.DefaultStopGrace + 5*time.Second):
				cmd.Process.Kill()
			}
		}
		<-exited
		return fmt.Errorf("%v; its log (%s) ends with:\n%s", err, logPath, logTail(logPath, 30))
	}
	var doc envDoc
	if err := json.Unmarshal(line, &doc); err != nil {
		return fmt.Errorf("wraith up --detach: bad ready line from the background supervisor: %w", err)
	}
	st, err := supervisor.Probe(proj.Dir)
	if err == nil {
		doc = envDocument(st)
	}
	printSummary(f, doc)
	fmt.Fprintf(f.Stdout, "logs: %s\n", logPath)
	cmd.Process.Release()
	return nil
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// readNotifyLine reads one line from r within d.
func readNotifyLine(ctx context.Context, r *os.File, d time.Duration) ([]byte, error) {
	type result struct {
		line []byte
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		line, err := bufio.NewReaderSize(r, 64<<10).ReadBytes('\n')
		ch <- result{line, err}
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case res := <-ch:
		if res.err != nil {
			return nil, errors.New("the background supervisor stopped before every twin was ready")
		}
		return res.line, nil
	case <-t.C:
		return nil, fmt.Errorf("the project was not ready within %s", d)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
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
