// Command wraith-twin serves one twin; `wraith up` runs one per twin of a
// project. It takes serve's argument and flags, plus --ready-fd N: it
// writes its ready document as one line on descriptor N and, when its
// standard input is a pipe, stops when that pipe closes, so it never
// outlives the supervisor that started it. Started by hand with stdin on
// /dev/null or a terminal, it serves until SIGINT or SIGTERM. The wire contract is documented in package ipc.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/wraithdev/wraith/internal/serve"
	"github.com/wraithdev/wraith/twin/server"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	// The one place wraith-twin catches signals: the server drains when
	// ctx ends, and a stop by signal is a clean exit.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdin *os.File, stderr io.Writer) int {
	fs := flag.NewFlagSet("wraith-twin", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: wraith-twin TWIN [serve flags] [--ready-fd N]")
		fs.PrintDefaults()
	}
	opts := serve.Flags(fs)
	twin, rest := splitTwin(args)
	if err := fs.Parse(rest); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if twin == "" && fs.NArg() == 1 {
		twin = fs.Arg(0)
	} else if fs.NArg() > 0 || twin == "" {
		fmt.Fprintln(stderr, "wraith-twin: want exactly one TWIN argument (see wraith-twin --help)")
		return 2
	}
	opts.Server.Twin = twin
	log := opts.Logger("wraith-twin", stderr)
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "wraith-twin: %v\n", err)
		return 1
	}
	srv, err := serve.Open(opts, serve.Env{Logger: log, Stdin: stdin, Getenv: os.Getenv, Dir: dir, Version: version})
	if err != nil {
		// Through the logger, so a supervisor reading JSON lines
		// re-logs it as the error it is.
		log.Error(err.Error())
		var ue *server.UsageError
		if errors.As(err, &ue) {
			return 2
		}
		return 1
	}
	if err := serve.Run(ctx, srv, os.Getenv); err != nil {
		log.Error(err.Error())
		return 1
	}
	return 0
}

// splitTwin takes a leading positional TWIN so flags may follow it, as in
// `wraith-twin billing --port 0`.
func splitTwin(args []string) (string, []string) {
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		return args[0], args[1:]
	}
	return "", args
}
