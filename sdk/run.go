package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// runSuites builds wraith and stripe-mock, runs the chosen suites on
// both, and writes the report: to the work folder always, and to sdk/
// when the suites ran whole.
func runSuites(ctx context.Context, o options, stderr io.Writer) error {
	dir, err := filepath.Abs(o.dir)
	if err != nil {
		return err
	}
	repo, err := filepath.Abs(o.repo)
	if err != nil {
		return err
	}
	bin, out, src := filepath.Join(dir, "bin"), filepath.Join(dir, "out"), filepath.Join(dir, "src")
	for _, d := range []string{bin, out, src} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	say := func(format string, args ...any) { fmt.Fprintf(stderr, "sdk: "+format+"\n", args...) }
	var wraith string
	var mock *mockProc
	if !o.reportOnly {
		say("building wraith from %s and stripe-mock from %s", repo, stripeMockModule)
		if wraith, err = buildWraith(ctx, repo, bin); err != nil {
			return err
		}
		mockBin, err := buildStripeMock(ctx, bin)
		if err != nil {
			return err
		}
		if mock, err = startMock(ctx, mockBin); err != nil {
			return err
		}
		defer mock.Stop()
	}

	committed := filepath.Join(repo, "sdk", "results.json")
	rep := report{Format: reportFormat}
	if !o.partial() {
		rep = readReport(committed)
	}
	if !o.reportOnly || rep.Wraith == "" {
		// A report made again from raw outputs keeps the tree and the
		// date they were measured at.
		rep.Wraith, rep.Date = commitOf(ctx, repo), time.Now().UTC().Format("2006-01-02 15:04 UTC")
	}
	var skipped []string
	suites := []struct {
		name string
		run  func() (suiteReport, error)
	}{
		{suiteGo, func() (suiteReport, error) { return goSuite(ctx, o, src, out, wraith, mock, say) }},
		{suitePython, func() (suiteReport, error) { return pythonSuite(ctx, o, src, out, repo, wraith, mock, say, stderr) }},
	}
	for _, s := range suites {
		if o.suite != "all" && o.suite != s.name {
			continue
		}
		start := time.Now()
		r, err := s.run()
		if errors.Is(err, errSkipped) {
			say("%s: %v", s.name, err)
			skipped = append(skipped, s.name)
			r = suiteReport{Suite: s.name, Skipped: err.Error()}
		} else if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		rep.put(r)
		if r.Skipped == "" {
			say("%s: %d tests; %d pass on stripe-mock, %d on Wraith, %d of those on both (%.1f%%), in %s",
				s.name, r.Tests, r.MockPassed, r.WraithPassed, r.BothPassed, 100*r.Ratio, time.Since(start).Round(time.Second))
		}
	}
	var md bytes.Buffer
	writeMarkdown(&md, rep)
	targets := []string{out}
	if !o.partial() {
		targets = append(targets, filepath.Join(repo, "sdk"))
	}
	for _, t := range targets {
		if err := writeJSON(filepath.Join(t, "results.json"), rep); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(t, "RESULTS.md"), md.Bytes(), 0o644); err != nil {
			return err
		}
		say("wrote %s", filepath.Join(t, "RESULTS.md"))
	}
	if len(skipped) > 0 && os.Getenv("CI") == "true" {
		return fmt.Errorf("CI=true: %s could not run here", strings.Join(skipped, ", "))
	}
	return nil
}

// goSuite runs stripe-go's suite against stripe-mock, then with a wraith
// per test binary.
func goSuite(ctx context.Context, o options, src, out, wraith string, mock *mockProc, say func(string, ...any)) (suiteReport, error) {
	rep := suiteReport{Suite: suiteGo, Version: versionOf(stripeGoModule), Against: "stripe-mock " + versionOf(stripeMockModule),
		Sessions: "Each test binary (one per package) runs against a wraith of its own in synthesize mode, started by `go test -exec` (sdk exec-wrap), which runs the binary's tests one process each, in order, so that the twin's log tells each test's requests apart; stripe-mock is shared, being stateless."}
	if o.goSession == "test" {
		rep.Sessions += " With -go-session test, the twin's sessions are reset before each test: every test starts from a fresh session."
	}
	dst := filepath.Join(src, "stripe-go")
	rawMock, rawWraith := filepath.Join(out, "stripe-go.mock.jsonl"), filepath.Join(out, "stripe-go.wraith.jsonl")
	logs := filepath.Join(out, "stripe-go.wraith-logs")
	var m, w *suiteRun
	var err error
	if o.reportOnly {
		if m, err = readGoFile(rawMock, moduleOf(dst)); err != nil {
			return rep, err
		}
		if w, err = readGoFile(rawWraith, moduleOf(dst)); err != nil {
			return rep, err
		}
	} else {
		if err := prepareStripeGo(ctx, dst); err != nil {
			return rep, err
		}
		say("%s: go test %s against stripe-mock", suiteGo, o.pkgs)
		if m, err = runGoMock(ctx, dst, o.pkgs, mock.HTTPSPort, rawMock); err != nil {
			return rep, err
		}
		os.RemoveAll(logs)
		say("%s: go test %s against a wraith per test binary", suiteGo, o.pkgs)
		if w, err = runGoWraith(ctx, dst, o.pkgs, wraith, logs, rawWraith, o.goSession == "test"); err != nil {
			return rep, err
		}
	}
	find := byProcessLog(logs, w)
	if o.goSession == "test" {
		// Reset before each test: nothing another test wrote is left.
		inPackage := find
		find = func(t *testResult) (reqs, _ []request) {
			reqs, _ = inPackage(t)
			return reqs, nil
		}
	}
	compare(&rep, m, w, find)
	return rep, nil
}

// pythonSuite runs stripe-python's suite against stripe-mock's HTTP
// port, then against one wraith with a session per test.
func pythonSuite(ctx context.Context, o options, src, out, repo, wraith string, mock *mockProc, say func(string, ...any), stderr io.Writer) (suiteReport, error) {
	rep := suiteReport{Suite: suitePython, Version: debs[0].version + " (Debian's python3-stripe)", Against: "stripe-mock " + versionOf(stripeMockModule),
		Sessions: "One pytest process against one wraith in synthesize mode, each test function in a session of its own (the /__s/{session}/ prefix on the API base, set by sdk/pytest_wraith_session.py around the test's call); stripe-mock is shared, being stateless."}
	junitMock, junitWraith := filepath.Join(out, "stripe-python.mock.xml"), filepath.Join(out, "stripe-python.wraith.xml")
	log := filepath.Join(out, "stripe-python.wraith.log")
	if o.reportOnly {
		m, err := readJUnitFile(junitMock)
		if err != nil {
			return rep, err
		}
		w, err := readJUnitFile(junitWraith)
		if err != nil {
			return rep, err
		}
		compare(&rep, m, w, bySession(log))
		return rep, nil
	}
	if err := ensureDebs(ctx, stderr); err != nil {
		return rep, err
	}
	dst := filepath.Join(src, "stripe-python")
	if err := copySuite(dst); err != nil {
		return rep, err
	}
	say("%s: pytest against stripe-mock", suitePython)
	m, err := runPytest(pytestCmd(ctx, dst, junitMock, o.keyword, mock.HTTPPort, nil), junitMock, filepath.Join(out, "stripe-python.mock.txt"))
	if err != nil {
		return rep, err
	}
	wp, err := startWraith(ctx, wraith, log)
	if err != nil {
		return rep, err
	}
	say("%s: pytest against wraith, a session per test", suitePython)
	plugin := []string{"PYTHONPATH=" + filepath.Join(repo, "sdk")}
	w, err := runPytest(pytestCmd(ctx, dst, junitWraith, o.keyword, wp.Port, plugin, "-p", "pytest_wraith_session"), junitWraith, filepath.Join(out, "stripe-python.wraith.txt"))
	if serr := wp.Stop(); err == nil && serr != nil {
		err = fmt.Errorf("the wraith under the suite: %w (log %s)", serr, log)
	}
	if err != nil {
		return rep, err
	}
	compare(&rep, m, w, bySession(log))
	return rep, nil
}

// versionOf is the version of a path@version.
func versionOf(mod string) string {
	if _, v, ok := strings.Cut(mod, "@"); ok {
		return v
	}
	return mod
}

// commitOf names the commit of repo, with "+dirty" when its tree differs.
func commitOf(ctx context.Context, repo string) string {
	out, err := exec.CommandContext(ctx, "git", "-C", repo, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "(unknown commit)"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.CommandContext(ctx, "git", "-C", repo, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		c += "+dirty"
	}
	return c
}
