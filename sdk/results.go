package main

import (
	"sort"
	"strings"
	"time"
)

// Outcomes of one test in one run.
const (
	pass    = "pass"
	fail    = "fail"
	skip    = "skip"
	missing = "not run" // the run never reached it
)

// testResult is one test's outcome in one run.
type testResult struct {
	Name    string
	Outcome string
	// Text is what the test printed (Go) or its failure (pytest),
	// bounded by maxText.
	Text string
	// Process names the test process (stripe-go's package), Session the
	// session its requests went to (stripe-python's per-test session).
	Process string
	Session string
	// Start and End bound the test in time (stripe-go), to find its
	// requests in its process's log.
	Start, End time.Time
}

// maxText bounds what is kept of one test's output: a failure's first
// lines say what went wrong.
const maxText = 8 << 10

// suiteRun is one run of a suite against one server.
type suiteRun struct {
	Tests map[string]*testResult
	// Processes are what a test process printed outside any test and how
	// it ended, when it failed as a whole (a build failure, the probe's
	// exit, a panic), by process name.
	Processes map[string]string
}

func newSuiteRun() *suiteRun {
	return &suiteRun{Tests: map[string]*testResult{}, Processes: map[string]string{}}
}

// test returns the named test's result, made on first use.
func (r *suiteRun) test(name, process string) *testResult {
	t := r.Tests[name]
	if t == nil {
		t = &testResult{Name: name, Process: process}
		r.Tests[name] = t
	}
	return t
}

// leaves drops every test that has subtests: the subtests are counted,
// and a parent passes or fails with them.
func (r *suiteRun) leaves() {
	names := make([]string, 0, len(r.Tests))
	for n := range r.Tests {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		if i+1 < len(names) && strings.HasPrefix(names[i+1], n+"/") {
			delete(r.Tests, n)
		}
	}
}

// appendText adds s to t's text, up to maxText.
func (t *testResult) appendText(s string) {
	if room := maxText - len(t.Text); room > 0 {
		if len(s) > room {
			s = s[:room]
		}
		t.Text += s
	}
}
