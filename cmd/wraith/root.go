package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/wraithdev/wraith/internal/serve"
)

// Exit codes. They are mapped from errors in exactly one place: run.
const (
	exitOK      = 0
	exitRuntime = 1
	exitUsage   = 2
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// factory carries what commands need from the outside world, so tests can
// run the whole program in-process with their own writers and environment.
type factory struct {
	Stdout  io.Writer
	Stderr  io.Writer
	Stdin   io.Reader
	Getenv  func(string) string
	Getwd   func() (string, error)
	Version string
	// Signals, when set, replaces the process's stop signals (see
	// stopSignals) as the reason to stop long-running commands.
	Signals context.Context
	// warned holds the warnings already given, so each is given once.
	warned map[string]bool
}

func newFactory() *factory {
	return &factory{
		Stdout:  os.Stdout,
		Stderr:  os.Stderr,
		Stdin:   os.Stdin,
		Getenv:  os.Getenv,
		Getwd:   os.Getwd,
		Version: buildVersion(version, readBuildInfo()).Version,
	}
}

// silentError carries an exit code for a failure already reported.
type silentError struct{ code int }

func (e *silentError) Error() string { return fmt.Sprintf("exit %d", e.code) }

func newRootCmd(f *factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "wraith",
		Short: "Serve local, deterministic, session-isolated twins of HTTP APIs",
		Long: `Wraith serves twins of third-party HTTP APIs, built from scrubbed recordings.
One process carries many agents, each in its own session namespace selected
by the X-Wraith-Session header. Every answer says where it came from.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       f.Version,
	}
	root.SetOut(f.Stdout)
	root.SetErr(f.Stderr)
	root.SetIn(f.Stdin)
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(
		newServeCmd(f, nil),
		newTwinsCmd(f, nil),
		newUpCmd(f, nil),
		newEnvCmd(f, nil),
		newDownCmd(f, nil),
		newStatusCmd(f, nil),
		newLogsCmd(f, nil),
		newRecordCmd(f, nil),
		newPackCmd(f, nil),
		newImportCmd(f, nil),
		newInspectCmd(f, nil),
		newDiffCmd(f, nil),
		newVersionCmd(f, nil),
		newFleetCmd(f, nil),
		newCoverageCmd(f, nil),
		newRunCmd(f, nil),
		newProxyCmd(f, nil),
		newSandboxHelperCmd(),
		newCompletionCmd(f),
	)
	registerCompletions(root, f)
	return root
}

// run executes the program and maps its error to an exit code.
func run(args []string, f *factory) int {
	root := newRootCmd(f)
	root.SetArgs(args)
	ctx := f.Signals
	if ctx == nil {
		// The one place wraith catches signals: commands see the end of
		// ctx, its cause naming the signal, and stop cleanly (exit 0).
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(context.Background(), stopSignals()...)
		defer stop()
	}
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var silent *silentError
	if errors.As(err, &silent) {
		return silent.code
	}
	fmt.Fprintf(f.Stderr, "wraith: %v\n", err)
	var usage *usageError
	if errors.As(err, &usage) || isUnknownCommand(err) {
		return exitUsage
	}
	return exitRuntime
}

// stopSignals are the signals that stop a long-running command in order:
// SIGINT, SIGTERM, and SIGHUP, so that a closed terminal stops `wraith up
// --foreground`'s twins in order rather than leaving them to Pdeathsig.
// SIGHUP is left alone when the program started with it ignored (nohup):
// catching it would undo that.
func stopSignals() []os.Signal {
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	return sigs
}

// newLogger builds a process logger on the factory's standard error.
func newLogger(f *factory, name, format, level string, debug bool) hclog.Logger {
	return serve.NewLogger(name, f.Stderr, format, level, debug)
}
