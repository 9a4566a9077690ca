package main

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// suitePython is stripe-python's suite.
const suitePython = "stripe-python"

// errSkipped says a suite cannot run on this machine, and why; the run
// goes on without it (and fails under CI=true).
var errSkipped = errors.New("skipped")

// ensureDebs installs the pinned Debian packages of stripe-python's
// suite through apt-get when they are missing, as root; a no-op when
// they are there at the pinned versions.
func ensureDebs(ctx context.Context, stderr io.Writer) error {
	var want []string
	for _, d := range debs {
		out, err := exec.CommandContext(ctx, "dpkg-query", "-W", "-f", "${Version}", d.name).Output()
		if err != nil || strings.TrimSpace(string(out)) != d.version {
			want = append(want, d.name+"="+d.version)
		}
	}
	if len(want) == 0 {
		return nil
	}
	if _, err := exec.LookPath("apt-get"); err != nil || os.Geteuid() != 0 {
		return fmt.Errorf("%w: %s need installing, and that needs root and apt-get: apt-get install %s", errSkipped, strings.Join(want, " "), strings.Join(want, " "))
	}
	fmt.Fprintf(stderr, "sdk: apt-get install %s\n", strings.Join(want, " "))
	update := exec.CommandContext(ctx, "apt-get", "update", "-qq")
	install := exec.CommandContext(ctx, "apt-get", append([]string{"install", "-y", "-qq", "--no-install-recommends"}, want...)...)
	for _, cmd := range []*exec.Cmd{update, install} {
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%w: %s: %v: %s", errSkipped, strings.Join(cmd.Args, " "), err, lastLines(string(out), 3))
		}
	}
	return nil
}

// pytestCmd is pytest over the suite's copy in src (which holds tests/),
// its JUnit report going to junit.
func pytestCmd(ctx context.Context, src, junit, keyword string, port int, env []string, flags ...string) *exec.Cmd {
	args := []string{"-m", "pytest", "tests", "-q", "-p", "no:cacheprovider",
		"-o", "junit_family=xunit1", "--junitxml", junit}
	if keyword != "" {
		args = append(args, "-k", keyword)
	}
	args = append(args, flags...)
	cmd := exec.CommandContext(ctx, python, args...)
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "STRIPE_MOCK_PORT="+strconv.Itoa(port), "PYTHONDONTWRITEBYTECODE=1")
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// runPytest runs cmd, its output going to the file raw, and reads its
// JUnit report. pytest fails when any test does: that is a result.
func runPytest(cmd *exec.Cmd, junit, raw string) (*suiteRun, error) {
	f, err := os.Create(raw)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cmd.Stdout, cmd.Stderr = f, f
	os.Remove(junit)
	runErr := cmd.Run()
	if _, err := os.Stat(junit); err != nil {
		return nil, fmt.Errorf("pytest wrote no report (%v): see %s", runErr, raw)
	}
	return readJUnitFile(junit)
}

// readJUnitFile reads the JUnit report in the file path.
func readJUnitFile(path string) (*suiteRun, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: run the suite first (without -report-only)", err)
	}
	defer f.Close()
	return readJUnit(f)
}

// junitCase is one testcase of pytest's JUnit report.
type junitCase struct {
	Class   string    `xml:"classname,attr"`
	Name    string    `xml:"name,attr"`
	Failure *junitMsg `xml:"failure"`
	Error   *junitMsg `xml:"error"`
	Skipped *junitMsg `xml:"skipped"`
	Props   []struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	} `xml:"properties>property"`
}

type junitMsg struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// readJUnit reads pytest's JUnit report into a run; a test is named
// CLASSNAME::NAME, its process is its module.
func readJUnit(r io.Reader) (*suiteRun, error) {
	var doc struct {
		Suites []struct {
			Cases []junitCase `xml:"testcase"`
		} `xml:"testsuite"`
		Cases []junitCase `xml:"testcase"` // a lone <testsuite> root
	}
	if err := xml.NewDecoder(r).Decode(&doc); err != nil {
		return nil, fmt.Errorf("read pytest's JUnit report: %w", err)
	}
	cases := doc.Cases
	for _, s := range doc.Suites {
		cases = append(cases, s.Cases...)
	}
	run := newSuiteRun()
	for _, c := range cases {
		module := c.Class
		if i := strings.LastIndex(module, ".Test"); i > 0 {
			module = module[:i]
		}
		t := run.test(c.Class+"::"+c.Name, module)
		t.Outcome = pass
		switch {
		case c.Failure != nil:
			t.Outcome = fail
			t.appendText(c.Failure.Message + "\n" + c.Failure.Text)
		case c.Error != nil:
			t.Outcome = fail
			t.appendText(c.Error.Message + "\n" + c.Error.Text)
		case c.Skipped != nil:
			t.Outcome = skip
		}
		for _, p := range c.Props {
			if p.Name == "wraith_session" {
				t.Session = p.Value
			}
		}
	}
	return run, nil
}

// copySuite copies python3-stripe's tests into dst/tests, fresh, so that
// pytest runs them from a folder of the runner's.
func copySuite(dst string) error {
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	return copyTree(pythonTests, filepath.Join(dst, "tests"))
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}
