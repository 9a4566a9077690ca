package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/wraithdev/wraith/internal/serve"
	"github.com/wraithdev/wraith/ipc"
	"github.com/wraithdev/wraith/supervisor"
	"github.com/wraithdev/wraith/twin/server"
)

// serveOptions is what `wraith serve` runs with.
type serveOptions struct {
	*serve.Options
	// Detach starts the server in the background and returns once it
	// serves; Args are the flags it was given, to pass on.
	Detach bool
	Args   []string
	// DetachedLog, set by serve --detach on the server it starts, is the
	// name its log was created under; a clean exit removes the log.
	DetachedLog string
	f           *factory
	// executable is the program to start in the background.
	executable func() (string, error)
}

func newServeCmd(f *factory, runF func(context.Context, *serveOptions) error) *cobra.Command {
	gofs := flag.NewFlagSet("serve", flag.ContinueOnError)
	opts := &serveOptions{Options: serve.Flags(gofs), f: f, executable: os.Executable}
	cmd := &cobra.Command{
		Use:   "serve TWIN",
		Short: "Serve one twin in this process",
		Long: `Serve one twin: a folder with twin.toml, a .twin file, ./twins/NAME,
./NAME.twin, a twin on WRAITH_TWINS_PATH, or a twin embedded in wraith:
` + strings.Join(embeddedTwins(), ", ") + ` (wraith twins lists them all).

The ready document (--ready-json, --ready-fd) says where the twin listens
once it serves; --ready-json removes a file an earlier run left before
binding, and its own at exit. SIGINT or SIGTERM drain in-flight requests
and exit 0.

With --detach, serve starts the server in the background and returns once
it serves, printing its URL; its log goes to .wraith/serve-PID.log
and kill PID (the ready document's serve.pid) stops it. A clean exit
removes that log; the next serve --detach removes the logs of servers
that are gone.`,
		Example: `  wraith serve checkout --port 0 --ready-json /tmp/ready.json \
    --unknown-entity not_found --fixture baseline --seed 42 \
    --clock deterministic --clock-epoch 1700000000 --detach`,
		Args: exactArgs(1, "TWIN"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Server.Twin = args[0]
			if opts.Detach {
				if opts.ReadyFD >= 0 {
					return usagef("--detach and --ready-fd: --detach reports readiness itself; drop --ready-fd")
				}
				opts.Args = []string{"serve", args[0]}
				cmd.Flags().Visit(func(fl *pflag.Flag) {
					if fl.Name != "detach" && fl.Name != "detached-log" {
						opts.Args = append(opts.Args, "--"+fl.Name+"="+fl.Value.String())
					}
				})
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runServe(cmd.Context(), opts)
		},
	}
	cmd.Flags().AddGoFlagSet(gofs)
	cmd.Flags().BoolVar(&opts.Detach, "detach", false, "start in the background and return once serving, printing the URL (log: .wraith/serve-PID.log)")
	cmd.Flags().StringVar(&opts.DetachedLog, "detached-log", "", "set by --detach on the server it starts: the log to remove on a clean exit")
	cmd.Flags().MarkHidden("detached-log")
	return cmd
}

func runServe(ctx context.Context, opts *serveOptions) error {
	if opts.Detach {
		return runServeDetached(ctx, opts)
	}
	f := opts.f
	dir, err := f.Getwd()
	if err != nil {
		return err
	}
	srv, err := serve.Open(opts.Options, serve.Env{
		Logger: opts.Logger("wraith", f.Stderr),
		Stdin:  f.Stdin, Getenv: f.Getenv, Dir: dir, Version: f.Version,
	})
	if err != nil {
		var ue *server.UsageError
		if errors.As(err, &ue) {
			return &usageError{ue}
		}
		return err
	}
	if err := serve.Run(ctx, srv, f.Getenv); err != nil {
		return err
	}
	if opts.DetachedLog != "" {
		removeOwnLog(f, opts.DetachedLog)
	}
	return nil
}

// serveStartTimeout bounds how long `serve --detach` waits for the
// background server to be ready.
const serveStartTimeout = 30 * time.Second

// runServeDetached starts `wraith serve ... --ready-fd 3` in the
// background and returns once its ready line arrives, printing the URL.
func runServeDetached(ctx context.Context, opts *serveOptions) error {
	f := opts.f
	// Bad flags are usage errors here and now, not a log line in the
	// background.
	if err := opts.Validate(); err != nil {
		return &usageError{err}
	}
	exe, err := opts.executable()
	if err != nil {
		return fmt.Errorf("find the wraith executable: %w", err)
	}
	dir, err := f.Getwd()
	if err != nil {
		return err
	}
	// Beside up.log, not in .wraith/logs, which holds the twins of
	// `wraith up` that `wraith logs` lists.
	logs := filepath.Join(dir, supervisor.StateDir)
	if err := supervisor.EnsureStateDir(logs); err != nil {
		return err
	}
	pruneServeLogs(logs)
	// Named after the server's pid once it runs.
	log, err := os.CreateTemp(logs, "serve-starting-*.log")
	if err != nil {
		return fmt.Errorf("create the server's log: %w", err)
	}
	defer log.Close()
	bg, err := startBackground(exe, append(opts.Args, "--ready-fd=3", "--detached-log="+log.Name()), dir, os.Environ(), log)
	if err != nil {
		os.Remove(log.Name())
		return err
	}
	final := filepath.Join(logs, fmt.Sprintf("serve-%d.log", bg.cmd.Process.Pid))
	if os.Rename(log.Name(), final) == nil {
		bg.log = final
	}
	var ready ipc.Ready
	err = bg.wait(ctx, serveStartTimeout, opts.Server.Grace+5*time.Second, func(r *os.File) error {
		var err error
		ready, err = ipc.ReadReady(r)
		if errors.Is(err, ipc.ErrClosed) {
			return errors.New("the background server stopped before it was ready")
		}
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(f.Stdout, ready.Serve.URL)
	return nil
}
