package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// execWrap is `go test -exec`'s program: go test runs it as
// `sdk exec-wrap FLAGS TESTBINARY ARGS...` in the package's folder. It
// starts a wraith of its own for that one test binary and points the
// binary at it (STRIPE_MOCK_PORT, which stripe-go's testing package
// reads): so each package's tests have a twin, and a session, to
// themselves. The wraith's log, one request a line, goes to
// LOGS/PACKAGE.log for the classifier.
//
// The binary's tests run one at a time, a process each (-test.run
// '^NAME$'), in the order it lists them, against that one wraith: a
// test's requests are then exactly those the twin logged between its
// process's start and exit, written to LOGS/PACKAGE.marks. (Run whole,
// a binary's output and the twin's log are two streams, and no clock
// reads both in order: a test's first request was given to the test
// before it.) With -reset-each the twin's sessions are reset before each
// test, so each starts from a fresh session. The exit code is the first
// failing run's, else 0.
func execWrap(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("exec-wrap", flag.ContinueOnError)
	fs.SetOutput(stderr)
	bin := fs.String("wraith", "", "the wraith `BINARY` to serve with")
	logs := fs.String("logs", "", "`DIR` for each test binary's wraith log")
	root := fs.String("root", "", "the module's root `DIR`, which log names are relative to")
	resetEach := fs.Bool("reset-each", false, "reset the twin's sessions before each test, so that every test starts from a fresh session")
	if err := fs.Parse(args); err != nil {
		return 0, usageError{err}
	}
	if *bin == "" || *logs == "" || fs.NArg() == 0 {
		return 0, usageError{errors.New("exec-wrap: want -wraith BINARY -logs DIR TESTBINARY [ARGS...], as go test -exec runs it")}
	}
	wd, err := os.Getwd()
	if err != nil {
		return 0, err
	}
	logFile := filepath.Join(*logs, logName(*root, wd))
	w, err := startWraith(ctx, *bin, logFile)
	if err != nil {
		return 0, err
	}
	marks, err := os.Create(strings.TrimSuffix(logFile, ".log") + ".marks")
	if err != nil {
		w.Stop()
		return 0, err
	}
	defer marks.Close()
	env := append(os.Environ(), "STRIPE_MOCK_PORT="+strconv.Itoa(w.Port))
	test, testArgs := fs.Arg(0), fs.Args()[1:]
	run := func(extra ...string) (int, error) {
		cmd := exec.CommandContext(ctx, test, append(slices.Clip(testArgs), extra...)...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Env = os.Stdin, stdout, stderr, env
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), nil
		}
		return 0, err
	}
	code, runErr := 0, error(nil)
	names, listed := listTests(ctx, test, testArgs, env)
	if !listed {
		// -test.list, a -test.run of go test's own, or a binary that
		// cannot list: run it as go test asked.
		code, runErr = run()
	}
	for i, name := range names {
		if *resetEach && i > 0 {
			if runErr = w.Reset(ctx); runErr != nil {
				break
			}
		}
		start := time.Now()
		c, err := run("-test.run=^" + regexp.QuoteMeta(name) + "$")
		fmt.Fprintf(marks, "%s\trun\t%s\n%s\tend\t%s\n", start.UTC().Format(time.RFC3339Nano), name, time.Now().UTC().Format(time.RFC3339Nano), name)
		if err != nil {
			runErr = err
			break
		}
		if code == 0 {
			code = c
		}
	}
	stopErr := w.Stop()
	switch {
	case runErr != nil:
		return 0, fmt.Errorf("run %s: %w", test, runErr)
	case stopErr != nil && code == 0:
		// The tests passed, but the twin under them failed: say so.
		return 0, fmt.Errorf("the wraith under %s: %w (log %s)", test, stopErr, logFile)
	}
	return code, nil
}

// listTests lists the binary's tests, examples and fuzz targets (whose
// seeds run as tests), unless go test asked for a list or a selection of
// its own, which it then gets as asked.
func listTests(ctx context.Context, test string, args, env []string) ([]string, bool) {
	for _, a := range args {
		if strings.HasPrefix(a, "-test.list") || strings.HasPrefix(a, "-test.run") || strings.HasPrefix(a, "-test.bench") || strings.HasPrefix(a, "-test.fuzz=") {
			return nil, false
		}
	}
	cmd := exec.CommandContext(ctx, test, append(slices.Clip(args), "-test.list", ".")...)
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return nil, false
	}
	var names []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		n := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(n, "Test") || strings.HasPrefix(n, "Example") || strings.HasPrefix(n, "Fuzz") {
			names = append(names, n)
		}
	}
	return names, len(names) > 0
}

// logName is the log file of the package in folder wd: its path under
// root with slashes as dots, "root" for the root's own package.
func logName(root, wd string) string {
	rel, err := filepath.Rel(root, wd)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		rel = "root"
	}
	return strings.ReplaceAll(filepath.ToSlash(rel), "/", ".") + ".log"
}
