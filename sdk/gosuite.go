package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// suiteGo is stripe-go's suite.
const suiteGo = "stripe-go"

// goTestCmd is `go test -json` of pkgs in stripe-go's folder src, with
// env added. go test runs the test binaries two at a time on two cores.
func goTestCmd(ctx context.Context, src, pkgs string, env []string, flags ...string) *exec.Cmd {
	args := append([]string{"test", "-json", "-count=1"}, flags...)
	args = append(args, pkgs)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = src
	// The module is stripe-go's, not Wraith's: no workspace, no flags of
	// the caller's that name Wraith's module.
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// runGoMock runs stripe-go's suite against stripe-mock's HTTPS port.
func runGoMock(ctx context.Context, src, pkgs string, httpsPort int, raw string) (*suiteRun, error) {
	cmd := goTestCmd(ctx, src, pkgs, []string{"STRIPE_MOCK_PORT=" + strconv.Itoa(httpsPort)})
	return runGoTest(cmd, raw)
}

// runGoWraith runs stripe-go's suite with every test binary started
// through exec-wrap, which gives it a wraith of its own; the wraiths'
// logs go to logs.
func runGoWraith(ctx context.Context, src, pkgs, wraith, logs, raw string, resetEach bool) (*suiteRun, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(logs, 0o755); err != nil {
		return nil, err
	}
	wrap := fmt.Sprintf("%s exec-wrap -wraith %s -logs %s -root %s -reset-each=%t", self, wraith, logs, src, resetEach)
	cmd := goTestCmd(ctx, src, pkgs, nil, "-exec", wrap)
	return runGoTest(cmd, raw)
}

// runGoTest runs cmd, keeping its JSON events in the file raw, and reads
// them. go test fails when any test does: that is a result, not an
// error; a run that yields no event at all is one.
func runGoTest(cmd *exec.Cmd, raw string) (*suiteRun, error) {
	f, err := os.Create(raw)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	run, perr := readGoEvents(io.TeeReader(out, f), moduleOf(cmd.Dir))
	werr := cmd.Wait()
	if perr != nil {
		return nil, perr
	}
	if len(run.Tests) == 0 {
		return nil, fmt.Errorf("go test in %s ran no test (%v): %s", cmd.Dir, werr, strings.TrimSpace(stderr.String()))
	}
	return run, nil
}

// moduleOf is the module path of the go.mod in dir, "" if unreadable.
func moduleOf(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// goEvent is one line of `go test -json` (cmd/test2json).
type goEvent struct {
	Time    time.Time
	Action  string
	Package string
	Test    string
	Output  string
}

// readGoEvents reads go test -json's events into a run. A test is named
// PACKAGE.TestName, PACKAGE relative to module; a test that started and
// never ended (its binary died) has failed, and the process's own output
// is kept when it failed as a whole.
func readGoEvents(r io.Reader, module string) (*suiteRun, error) {
	run := newSuiteRun()
	procOut := map[string]*strings.Builder{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		var e goEvent
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue // a build error's plain line
		}
		proc := processName(module, e.Package)
		if e.Test == "" {
			switch e.Action {
			case "output":
				b := procOut[proc]
				if b == nil {
					b = &strings.Builder{}
					procOut[proc] = b
				}
				if b.Len() < maxText {
					b.WriteString(e.Output)
				}
			case fail:
				if b := procOut[proc]; b != nil {
					run.Processes[proc] = b.String()
				} else {
					run.Processes[proc] = ""
				}
			}
			continue
		}
		t := run.test(proc+"."+e.Test, proc)
		switch e.Action {
		case "run":
			t.Start = e.Time
		case "output":
			t.appendText(e.Output)
		case pass, fail, skip:
			t.Outcome, t.End = e.Action, e.Time
		}
	}
	for _, t := range run.Tests {
		if t.Outcome == "" {
			t.Outcome = fail
			t.appendText("\n(the test did not finish: its test binary ended while it ran)\n")
		}
	}
	run.leaves()
	return run, sc.Err()
}

// processName is a package's name relative to the module: "customer",
// "root" for the module's own package, as exec-wrap names its logs.
func processName(module, pkg string) string {
	if pkg == module {
		return "root"
	}
	rel := strings.TrimPrefix(pkg, module+"/")
	return strings.ReplaceAll(rel, "/", ".")
}

// readGoFile reads the events an earlier run kept in the file raw.
func readGoFile(raw, module string) (*suiteRun, error) {
	f, err := os.Open(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: run the suite first (without -report-only)", err)
	}
	defer f.Close()
	return readGoEvents(f, module)
}
