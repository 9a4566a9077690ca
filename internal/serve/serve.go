// Package serve is the one serve entry point of the programs that serve a
// twin in their own process (wraith serve, wraith-twin, wraithprof) and of
// wraithtest, which serves one inside a test.
//
// It holds what those programs share and the server does not need: the
// process flags (--ready-json, --ready-fd, --log-format, --log-level), the
// process logger, the ready document (package ipc, which nothing under
// twin/ imports: the server only says when it serves), the inherited ready
// descriptor with its parent pipe, and GC tuning. Signals stay in each
// main, which turns SIGINT and SIGTERM into the end of the context it
// hands to Run.
package serve

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/hashicorp/go-hclog"

	"github.com/wraithdev/wraith/internal/gctune"
	"github.com/wraithdev/wraith/ipc"
	"github.com/wraithdev/wraith/twin/server"
)

// Options are the serve flags: the server's, and those of the process
// that runs it.
type Options struct {
	Server *server.Config
	// ReadyJSON is the file the ready document is written to; "" for
	// none.
	ReadyJSON string
	// ReadyFD is the inherited descriptor the ready line goes to; -1
	// for none.
	ReadyFD   int
	LogFormat string
	LogLevel  string
}

// Flags registers every serve flag on fs and returns the options they
// fill. The twin name is set by the caller, in Server.Twin.
func Flags(fs *flag.FlagSet) *Options {
	o := &Options{Server: server.Flags(fs)}
	fs.StringVar(&o.ReadyJSON, "ready-json", "", "write the ready document to the file at `PATH`, atomically, once serving")
	fs.IntVar(&o.ReadyFD, "ready-fd", -1, "write the ready document as one line to the inherited descriptor `FD`, and stop when standard input closes")
	fs.StringVar(&o.LogFormat, "log-format", "text", "log `FORMAT`: text or json")
	fs.StringVar(&o.LogLevel, "log-level", "info", "log `LEVEL`: trace, debug, info, warn or error")
	return o
}

// Validate checks every flag value, naming the flag in each error. The
// error is a *server.UsageError.
func (o *Options) Validate() error {
	var errs []error
	if err := o.Server.Validate(); err != nil {
		var ue *server.UsageError
		if !errors.As(err, &ue) {
			return err
		}
		errs = append(errs, ue.Err)
	}
	if o.LogFormat != "text" && o.LogFormat != "json" {
		errs = append(errs, fmt.Errorf("--log-format %q: want text or json", o.LogFormat))
	}
	if o.ReadyFD == 0 || o.ReadyFD == 1 || o.ReadyFD == 2 || o.ReadyFD < -1 {
		errs = append(errs, fmt.Errorf("--ready-fd %d: want an inherited descriptor of 3 or more", o.ReadyFD))
	}
	if len(errs) > 0 {
		return &server.UsageError{Err: errors.Join(errs...)}
	}
	return nil
}

// Logger is the process logger the options ask for, named name and
// writing to out.
func (o *Options) Logger(name string, out io.Writer) hclog.Logger {
	return NewLogger(name, out, o.LogFormat, o.LogLevel, o.Server.Debug)
}

// NewLogger is a process logger: format text or json, level by name
// (info when unknown), and with debug at the debug level at least.
func NewLogger(name string, out io.Writer, format, level string, debug bool) hclog.Logger {
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
		Output:     out,
		JSONFormat: format == "json",
	})
}

// Env is what the program hands the server of the outside world.
type Env struct {
	Logger hclog.Logger
	// Stdin is the process's standard input. With --ready-fd, end-of-file
	// on it means the parent went away, if it is a pipe (see
	// ipc.ParentPipe); a reader that is no *os.File counts as a pipe.
	Stdin   io.Reader
	Getenv  func(string) string
	Dir     string
	Version string
}

// Open checks the options, opens the ready descriptor, removes a ready
// document an earlier run left, and opens the server: the twin is loaded
// and the listener bound. Mistakes in the options are *server.UsageError.
// The descriptor is checked before the twin loads: a parent that passed a
// wrong one must hear so at once, not wait for a ready line that cannot
// come. The stale document goes before the listener binds, so a script
// that waits for the file never reads a dead server's URL.
func Open(o *Options, env Env) (*server.Server, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	log := env.Logger
	if log == nil {
		log = hclog.NewNullLogger()
	}
	ready := &readyDoc{path: o.ReadyJSON, version: env.Version, log: log}
	deps := server.Deps{Logger: env.Logger, Getenv: env.Getenv, Dir: env.Dir, Version: env.Version, Publisher: ready}
	if o.ReadyFD >= 0 {
		w, err := ipc.ReadyFD(o.ReadyFD)
		if err != nil {
			return nil, &server.UsageError{Err: fmt.Errorf("--ready-fd %d: %w", o.ReadyFD, err)}
		}
		ready.fd = w
		deps.ParentAlive = parentPipe(env.Stdin)
	}
	if err := removeStale(o.ReadyJSON); err != nil {
		return nil, err
	}
	return server.Open(*o.Server, deps)
}

// parentPipe is what to read for the parent's death: stdin when it is a
// pipe, nothing when it is /dev/null or a terminal.
func parentPipe(stdin io.Reader) io.Reader {
	f, ok := stdin.(*os.File)
	if !ok {
		return stdin
	}
	if p := ipc.ParentPipe(f); p != nil {
		return p
	}
	return nil
}

// Run serves srv until ctx ends or the parent goes away, keeping garbage
// collection rare while the live heap is small (package gctune), and
// returns once in-flight requests have drained.
func Run(ctx context.Context, srv *server.Server, getenv func(string) string) error {
	stopTuning := gctune.Start(ctx, gctune.Default(), getenv)
	defer stopTuning()
	return srv.Run(ctx)
}
