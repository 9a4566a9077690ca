package main

import (
	"context"
	"errors"
	"flag"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/wraithdev/wraith/internal/gctune"
	"github.com/wraithdev/wraith/ipc"
	"github.com/wraithdev/wraith/twin/server"
)

// serveOptions is what `wraith serve` runs with.
type serveOptions struct {
	Config *server.Config
	f      *factory
}

func newServeCmd(f *factory, runF func(context.Context, *serveOptions) error) *cobra.Command {
	gofs := flag.NewFlagSet("serve", flag.ContinueOnError)
	opts := &serveOptions{Config: server.Flags(gofs), f: f}
	cmd := &cobra.Command{
		Use:   "serve TWIN",
		Short: "Serve one twin in this process",
		Long: `Serve one twin: a folder with twin.toml, a .twin file, ./twins/NAME,
./NAME.twin, a twin on WRAITH_TWINS_PATH, or an embedded twin (checkout, billing).

The ready document (--ready-json, --ready-fd) says where the twin listens
once it serves. SIGINT or SIGTERM drain in-flight requests and exit 0.`,
		Example: `  wraith serve checkout --port 0 --ready-json /tmp/ready.json \
    --unknown-entity not_found --fixture baseline --seed 42 \
    --clock deterministic --clock-epoch 1700000000`,
		Args: exactArgs(1, "TWIN"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Config.Twin = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runServe(cmd.Context(), opts)
		},
	}
	cmd.Flags().AddGoFlagSet(gofs)
	return cmd
}

func runServe(ctx context.Context, opts *serveOptions) error {
	f := opts.f
	log := newLogger(f, "wraith", opts.Config.LogFormat, opts.Config.LogLevel, opts.Config.Debug)
	dir, err := f.Getwd()
	if err != nil {
		return err
	}
	deps := server.Deps{Logger: log, Getenv: f.Getenv, Dir: dir, Version: f.Version}
	if fd := opts.Config.ReadyFD; fd >= 0 {
		w, err := ipc.ReadyFD(fd)
		if err != nil {
			return usagef("--ready-fd %d: %v", fd, err)
		}
		deps.ReadyWriter = w
		deps.ParentAlive = f.Stdin
	}
	srv, err := server.Open(*opts.Config, deps)
	if err != nil {
		var ue *server.UsageError
		if errors.As(err, &ue) {
			return &usageError{ue}
		}
		return err
	}
	stopTuning := gctune.Start(ctx, gctune.Default(), f.Getenv)
	defer stopTuning()
	return srv.Run(ctx)
}

// newLogger builds the process logger on stderr.
func newLogger(f *factory, name, format, level string, debug bool) hclog.Logger {
	lvl := hclog.LevelFromString(level)
	if lvl == hclog.NoLevel {
		lvl = hclog.Info
	}
	if debug && lvl > hclog.Debug {
		lvl = hclog.Debug
	}
	return hclog.New(&hclog.LoggerOptions{
		Name:       name,
		Level:      lvl,
		Output:     f.Stderr,
		JSONFormat: format == "json",
	})
}
