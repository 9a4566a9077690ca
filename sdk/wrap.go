package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// execWrap is `go test -exec`'s program: go test runs it as
// `sdk exec-wrap FLAGS TESTBINARY ARGS...` in the package's folder. It
// starts a wraith of its own for that one test binary, points the
// binary at it (STRIPE_MOCK_PORT, which stripe-go's testing package
// reads), runs it, and stops the wraith: so each test process has a
// twin, and a session, to itself. The wraith's log, one request a line,
// goes to LOGS/PACKAGE.log for the classifier. The exit code is the test
// binary's.
func execWrap(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("exec-wrap", flag.ContinueOnError)
	fs.SetOutput(stderr)
	bin := fs.String("wraith", "", "the wraith `BINARY` to serve with")
	logs := fs.String("logs", "", "`DIR` for each test binary's wraith log")
	root := fs.String("root", "", "the module's root `DIR`, which log names are relative to")
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
	cmd := exec.CommandContext(ctx, fs.Arg(0), fs.Args()[1:]...)
	cmd.Stdin, cmd.Stderr = os.Stdin, stderr
	cmd.Env = append(os.Environ(), "STRIPE_MOCK_PORT="+strconv.Itoa(w.Port))
	out, err := cmd.StdoutPipe()
	if err != nil {
		w.Stop()
		return 0, err
	}
	runErr := cmd.Start()
	if runErr == nil {
		relayMarks(out, stdout, marks, time.Now)
		runErr = cmd.Wait()
	}
	stopErr := w.Stop()
	var ee *exec.ExitError
	switch {
	case errors.As(runErr, &ee):
		return ee.ExitCode(), nil
	case runErr != nil:
		return 0, fmt.Errorf("run %s: %w", fs.Arg(0), runErr)
	case stopErr != nil:
		// The tests passed, but the twin under them failed: say so.
		return 0, fmt.Errorf("the wraith under %s: %w (log %s)", fs.Arg(0), stopErr, logFile)
	}
	return 0, nil
}

// relayMarks copies the test binary's output to stdout, and writes to
// marks, as it reads them, when each test started and ended: go test's
// own event times are taken later, by the go command, and a request the
// twin logged before one of them may be the test's own. Read here, a
// line's time is a few microseconds after the binary wrote it.
func relayMarks(out io.Reader, stdout, marks io.Writer, now func() time.Time) {
	br := bufio.NewReader(out)
	for {
		line, err := br.ReadString('\n')
		if len(line) > 0 {
			at := now()
			io.WriteString(stdout, line)
			if kind, name, ok := testMark(line); ok {
				fmt.Fprintf(marks, "%s\t%s\t%s\n", at.UTC().Format(time.RFC3339Nano), kind, name)
			}
		}
		if err != nil {
			return
		}
	}
}

// testMark reads a test's start ("=== RUN   TestX") or end ("--- PASS:
// TestX (0.00s)", FAIL, SKIP) from a line of go test's verbose output;
// under go test -json the binary prints them with a ^V prefix.
func testMark(line string) (kind, name string, ok bool) {
	line = strings.TrimLeft(line, "\x16 ")
	if rest, found := strings.CutPrefix(line, "=== RUN"); found {
		return "run", strings.TrimSpace(rest), true
	}
	for _, end := range []string{"--- PASS:", "--- FAIL:", "--- SKIP:"} {
		if rest, found := strings.CutPrefix(line, end); found {
			f := strings.Fields(rest)
			if len(f) > 0 {
				return "end", f[0], true
			}
		}
	}
	return "", "", false
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
