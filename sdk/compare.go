package main

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// suiteReport is one suite's figures: its two runs side by side.
type suiteReport struct {
	Suite    string `json:"suite"`
	Version  string `json:"version"`
	Against  string `json:"against"`
	Sessions string `json:"sessions"`
	// Skipped says why the suite did not run; the figures are then zero.
	Skipped string `json:"skipped,omitempty"`
	// Tests counts the tests either run reached (subtests, not their
	// parents).
	Tests        int `json:"tests"`
	MockPassed   int `json:"passed_on_stripe_mock"`
	WraithPassed int `json:"passed_on_wraith"`
	// BothPassed of MockPassed is the ratio the suite is judged by.
	BothPassed int     `json:"passed_on_both"`
	Ratio      float64 `json:"ratio"`
	// WraithOnly pass on Wraith and not on stripe-mock.
	WraithOnly int          `json:"passed_on_wraith_only"`
	Classes    []classGroup `json:"classes"`
}

// classGroup is the tests of one class, sorted by name.
type classGroup struct {
	Class string    `json:"class"`
	Tests []failure `json:"tests"`
}

type failure struct {
	Test string `json:"test"`
	verdict
}

// requestsOf finds the requests of one test in the twin's log: what it
// sent (reqs) and what other tests of its process wrote before it
// (earlier).
type requestsOf func(t *testResult) (reqs, earlier []request)

// compare puts a suite's two runs side by side: every test that passes on
// stripe-mock and not on Wraith is classified.
func compare(rep *suiteReport, mock, wraith *suiteRun, find requestsOf) {
	names := map[string]bool{}
	for n := range mock.Tests {
		names[n] = true
	}
	for n := range wraith.Tests {
		names[n] = true
	}
	rep.Tests = len(names)
	groups := map[string][]failure{}
	for n := range names {
		m, w := mock.Tests[n], wraith.Tests[n]
		mp, wp := m != nil && m.Outcome == pass, w != nil && w.Outcome == pass
		if mp {
			rep.MockPassed++
		}
		if wp {
			rep.WraithPassed++
		}
		switch {
		case mp && wp:
			rep.BothPassed++
		case wp:
			rep.WraithOnly++
		case mp:
			if w == nil {
				w = &testResult{Name: n, Outcome: missing, Process: m.Process}
			}
			var reqs, earlier []request
			if w.Outcome != missing {
				reqs, earlier = find(w)
			}
			v := classify(w, reqs, earlier)
			if w.Outcome == skip {
				v = verdict{Class: classUnclassified, Reason: "skipped on Wraith", First: firstLine(w.Text)}
			}
			groups[v.Class] = append(groups[v.Class], failure{Test: n, verdict: v})
		}
	}
	if rep.MockPassed > 0 {
		rep.Ratio = float64(rep.BothPassed) / float64(rep.MockPassed)
	}
	for _, c := range classOrder {
		g := groups[c]
		if len(g) == 0 {
			continue
		}
		sort.Slice(g, func(i, j int) bool { return g[i].Test < g[j].Test })
		rep.Classes = append(rep.Classes, classGroup{Class: c, Tests: g})
	}
}

// byProcessLog finds a stripe-go test's requests in its process's log
// (exec-wrap's LOGS/PROCESS.log). exec-wrap's marks (LOGS/PROCESS.marks)
// say when each top-level test's own process started and ended: its
// requests are those the twin logged in between, and what other tests
// wrote before is what was logged before its start. A subtest shares its
// parent's span. Without marks, go test's event times stand in; they are
// taken later, so they may give a test's first request to the test
// before it.
func byProcessLog(logs string, run *suiteRun) requestsOf {
	cache := map[string][]request{}
	load := func(proc string) []request {
		if r, ok := cache[proc]; ok {
			return r
		}
		var reqs []request
		if f, err := os.Open(filepath.Join(logs, proc+".log")); err == nil {
			reqs, _ = readRequests(f)
			f.Close()
		}
		cache[proc] = reqs
		return reqs
	}
	type span struct{ start, end time.Time }
	spans := map[string]span{} // by PROCESS.TopLevelTest
	procs := map[string]bool{}
	for _, t := range run.Tests {
		procs[t.Process] = true
	}
	for proc := range procs {
		f, err := os.Open(filepath.Join(logs, proc+".marks"))
		if err != nil {
			continue
		}
		for _, m := range readMarks(f) {
			sp := spans[proc+"."+m.name]
			if m.kind == "run" {
				sp.start = m.at
			} else {
				sp.end = m.at
			}
			spans[proc+"."+m.name] = sp
		}
		f.Close()
	}
	return func(t *testResult) (reqs, earlier []request) {
		top, _, _ := strings.Cut(t.Name, "/")
		sp, ok := spans[top]
		if !ok {
			// go test's own times: the test began after its run event,
			// as near as they tell.
			sp = span{t.Start, t.End}
		}
		for _, r := range load(t.Process) {
			switch {
			case r.At.Before(sp.start):
				earlier = append(earlier, r)
			case sp.end.IsZero() || !r.At.After(sp.end):
				reqs = append(reqs, r)
			}
		}
		return reqs, earlier
	}
}

// mark is one line of exec-wrap's marks: a test's start or end.
type mark struct {
	at         time.Time
	kind, name string
}

func readMarks(r io.Reader) []mark {
	var out []mark
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), "\t", 3)
		if len(f) != 3 {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, f[0])
		if err != nil {
			continue
		}
		out = append(out, mark{at, f[1], f[2]})
	}
	return out
}

// bySession finds a stripe-python test's requests in the one twin's log
// by the session the plugin named for it; no other test shares it.
func bySession(log string) requestsOf {
	bySess := map[string][]request{}
	if f, err := os.Open(log); err == nil {
		reqs, _ := readRequests(f)
		f.Close()
		for _, r := range reqs {
			bySess[r.Session] = append(bySess[r.Session], r)
		}
	}
	return func(t *testResult) (reqs, earlier []request) {
		if t.Session == "" {
			return nil, nil
		}
		return bySess[t.Session], nil
	}
}
