// Command sdk runs the official Stripe SDKs' own test suites twice, once
// against stripe-mock and once against `wraith serve stripe --compat
// stripe-mock`, and writes what passes where, with every difference
// sorted into classes, to sdk/RESULTS.md and sdk/results.json
// (docs/compat.md). `make sdk-suites` runs it; it is not part of the
// default test run, since one run takes minutes.
//
// Each test process talks to a session of its own: stripe-go's test
// binaries, one per package, are started by `go test -exec` through this
// program's exec-wrap mode, which starts a wraith of its own for each on
// a free port and runs the binary's tests one process each against it,
// the twin's sessions reset before each (-go-session test, the default;
// the twin's log then tells their requests apart); stripe-python's
// tests, all in one pytest process, get one session per test function
// through the /__s/{session}/ path prefix, set by a pytest plugin
// (pytest_wraith_session.py) around each test's call. stripe-mock is
// stateless and is shared.
//
// Usage:
//
//	sdk [-suite all|stripe-go|stripe-python] [-pkg ./customer] [-k EXPR] [-go-session test|package] [-report-only] [-dir .sdk]
//	sdk exec-wrap -wraith BIN -logs DIR TESTBINARY ARGS...   (go test -exec)
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
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if len(os.Args) > 1 && os.Args[1] == "exec-wrap" {
		var code int
		code, err = execWrap(ctx, os.Args[2:], os.Stdout, os.Stderr)
		if err == nil {
			stop()
			os.Exit(code)
		}
	} else {
		err = run(ctx, os.Args[1:], os.Stderr)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "sdk:", err)
		var ue usageError
		if errors.As(err, &ue) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// usageError is a mistake on the command line: exit 2.
type usageError struct{ error }

// options are the runner's flags.
type options struct {
	suite   string // all, stripe-go or stripe-python
	pkgs    string // stripe-go packages to run, e.g. ./customer (default ./...)
	keyword string // pytest -k expression
	dir     string // work folder: sources, binaries, raw outputs
	repo    string // the Wraith repository to build wraith from
	// goSession is what shares a session on Wraith in stripe-go's suite:
	// "test" (each test its own; the default) or "package" (a test
	// binary's tests, one after another).
	goSession string
	// reportOnly makes the report from the last run's raw outputs in
	// dir, running nothing: for a change of the classifier.
	reportOnly bool
}

// partial reports whether only part of a suite runs, or it runs other
// than as the committed report measures it: its figures then go to the
// work folder only.
func (o options) partial() bool {
	return o.pkgs != "./..." || o.keyword != "" || o.goSession != "test"
}

func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("sdk", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.suite, "suite", "all", "`SUITE` to run: all, stripe-go or stripe-python")
	fs.StringVar(&o.pkgs, "pkg", "./...", "stripe-go `PACKAGES` to run, as go test takes them (e.g. ./customer); a partial run is reported under -dir only")
	fs.StringVar(&o.keyword, "k", "", "stripe-python tests to run, a pytest -k `EXPR`; a partial run is reported under -dir only")
	fs.StringVar(&o.dir, "dir", ".sdk", "work `DIR` for sources, binaries and raw outputs (git-ignored)")
	fs.StringVar(&o.repo, "repo", ".", "the Wraith repository `DIR` whose wraith is measured")
	fs.StringVar(&o.goSession, "go-session", "test", "what shares a session in stripe-go's suite on Wraith: `test` (each test process its own, the sessions reset before it; the committed figure) or package (a test binary's tests, as go test runs them; reported under -dir only)")
	fs.BoolVar(&o.reportOnly, "report-only", false, "run nothing: make the report again from the last run's raw outputs under -dir")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q: the suites are chosen with -suite, -pkg and -k", fs.Arg(0))}
	}
	if o.goSession != "package" && o.goSession != "test" {
		return usageError{fmt.Errorf("-go-session %q: want package or test", o.goSession)}
	}
	switch o.suite {
	case "all", suiteGo, suitePython:
	default:
		return usageError{fmt.Errorf("-suite %q: want all, %s or %s", o.suite, suiteGo, suitePython)}
	}
	return runSuites(ctx, o, stderr)
}
