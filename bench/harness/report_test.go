package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The files under testdata are a smoke run's (make bench BENCH_SMOKE=1):
// the harness's lines (smoke.load.txt) and benchstat's CSV of them and of
// the go test targets. The report must read the medians benchstat
// computed, not figures of its own.
func smokeMedians(t *testing.T, withGo bool) medians {
	t.Helper()
	m, err := readMedians("testdata/smoke.stat.csv")
	if err != nil {
		t.Fatal(err)
	}
	if withGo {
		gm, err := readMedians("testdata/smoke-go.stat.csv")
		if err != nil {
			t.Fatal(err)
		}
		m.merge(gm)
	}
	return m
}

func TestReadMedians(t *testing.T) {
	m := smokeMedians(t, true)
	for _, tc := range []struct {
		name string
		have float64
		want float64
	}{
		{"wraith-one get-c32 req/s", m.get("Load/load=get-c32", sWraith1, "req/s"), 38095},
		{"ceiling post-c256 p99-ms", m.get("Load/load=post-c256", sCeiling, "p99-ms"), 203.826},
		{"wraith-10k seeded RSS", m.get("Start", sWraith10k, "seeded-rss-MiB"), 33.3},
		{"wraith-256s RSS per held entity", m.get("Hold", sWraith256, "rss-B/entity"), 2249},
		{"serve-github ready", m.get("Start", startPrefix+"github", "ready-ms"), 47.1},
		{"session memory (go test, -N suffix)", m.any("SessionMemory/entities=10", "B/session"), 12105},
		{"up 10 twins (go test)", m.any("Up10Twins", "up-ms/op"), 308},
	} {
		if tc.have != tc.want {
			t.Errorf("%s: want %v, have %v", tc.name, tc.want, tc.have)
		}
	}
	if have := m.get("Load/load=post-c256", sWraith10k, "req/s"); !math.IsNaN(have) {
		t.Errorf("wraith-10k runs no create load at c=256, yet its median reads %v", have)
	}
	if have := loadConns(m); len(have) != 2 || have[0] != 32 || have[1] != 256 {
		t.Errorf("load connection counts: want [32 256], have %v", have)
	}
}

func TestTargetsJudgeBenchstatMedians(t *testing.T) {
	m := smokeMedians(t, false)
	want := map[[2]string]int{
		{"Recorded GET c=256 vs ceiling", "one session"}:                                              0,  // 37107 / 41833 < 0.90
		{"GET p99 c=256 vs ceiling", "256 sessions"}:                                                  1,  // 129 / 105 ms ≤ 1.5
		{"Create c=32 vs ceiling", "256 sessions"}:                                                    0,  // 33106 / 44247 = 0.748 < 0.75
		{"Start of `wraith serve checkout`: exec → ready JSON", "—"}:                                  1,  // 19.8 ms
		{"Recorded GET c=256, 1000 live sessions vs one session", "1000 sessions"}:                    1,  // 38683 / 37107
		{"Heap per session holding 0 created entities (go test)", "—"}:                                -1, // not in this CSV
		{"Peak RSS under the GET loads (highest median)", "one session"}:                              1,  // 48.4 MiB
		{"Non-2xx answers and socket errors, every Wraith load and memory load of every pass", "all"}: 0,
	}
	ts := append(targets16(m, 1000), targets6(m, 3, 1000)...)
	for _, tg := range ts {
		k := [2]string{tg.what, tg.shape}
		if w, ok := want[k]; ok {
			if tg.met != w {
				t.Errorf("%s (%s): want met=%d, have %d (%s, ratio %s)", tg.what, tg.shape, w, tg.met, tg.measured, tg.ratio)
			}
			delete(want, k)
		}
	}
	for k := range want {
		t.Errorf("no target %q for %q", k[0], k[1])
	}
	held := 0
	for _, tg := range ts {
		if strings.HasPrefix(tg.what, "RSS per held created customer") {
			held++
			if tg.met != 0 || tg.ratio == "—" {
				t.Errorf("RSS per held customer (%s): want measured and not met (about 2 KB per entity), have %s, ratio %s", tg.shape, tg.measured, tg.ratio)
			}
		}
	}
	if held != len(shapes) {
		t.Errorf("want the RSS target for each of %d shapes, have %d", len(shapes), held)
	}
}

func TestWraithFailures(t *testing.T) {
	if have, err := wraithFailures("testdata/smoke.load.txt"); err != nil || have != 0 {
		t.Errorf("smoke run: want 0 failures, have %v (%v)", have, err)
	}
	// A failing pass counts even when the other passes would make its
	// median 0; servers other than Wraith do not count.
	path := filepath.Join(t.TempDir(), "load.txt")
	lines := strings.Join([]string{
		"BenchmarkLoad/server=wraith-one/load=get-c32 100 50 req/s 1.0 p50-ms 2.0 p99-ms 10 cpu-us/op 20 peak-rss-MiB 0 non2xx 0 sock-errors 0.01 other-cores",
		"BenchmarkLoad/server=wraith-one/load=get-c32 100 50 req/s 1.0 p50-ms 2.0 p99-ms 10 cpu-us/op 20 peak-rss-MiB 3 non2xx 0 sock-errors 0.01 other-cores",
		"BenchmarkLoad/server=ceiling/load=get-c32 100 50 req/s 1.0 p50-ms 2.0 p99-ms 10 cpu-us/op 20 peak-rss-MiB 7 non2xx 7 sock-errors 0.01 other-cores",
		"BenchmarkHold/server=wraith-256s 500000 390 rss-B/entity 201.3 peak-rss-MiB 15.1 idle-rss-MiB 180.2 rss-MiB 21000 creates/s 0 non2xx 2 sock-errors",
		"# note: wiremock, pass 1: did not start",
	}, "\n")
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	if have, err := wraithFailures(path); err != nil || have != 5 {
		t.Errorf("want 5 failures (3 non-2xx, 2 socket errors), have %v (%v)", have, err)
	}
}

// Go's benchmark format reads a name's trailing -N as GOMAXPROCS, so a
// server named wraith-1 would reach benchstat as "wraith" (and be filtered
// out of every table by -col /server@(...)).
func TestServerNamesSurviveBenchstat(t *testing.T) {
	procs := regexp.MustCompile(`-[0-9]+$`)
	names := append([]string{}, allServers...)
	for _, twin := range []string{"checkout", "stripe", "github"} {
		names = append(names, startPrefix+twin)
	}
	for _, n := range names {
		if procs.MatchString(n) {
			t.Errorf("server %q ends in -N, which benchstat takes for GOMAXPROCS", n)
		}
	}
}

// Every server reads requests of one length: the session names of every
// shape have the same width, and the ceiling gets the one-session names.
func TestShapesSendNamesOfOneLength(t *testing.T) {
	const sessions = 10000
	one := shapeOf(sWraith1, sessions)
	if c := shapeOf(sCeiling, sessions); c != one || c.n != 1 {
		t.Errorf("ceiling: want the one-session shape %+v, have %+v", one, c)
	}
	want := len(one.name(0))
	for _, s := range []string{sWraith1, sWraith256, sWraith10k, sStripeMock} {
		sh := shapeOf(s, sessions)
		for _, i := range []int{0, sh.n - 1} {
			if n := sh.name(i); len(n) != want {
				t.Errorf("%s: session %d is %q, want %d characters like %q", s, i, n, want, one.name(0))
			}
		}
	}
	if n := shapeOf(sWraith256, sessions).n; n != 256 {
		t.Errorf("wraith-256s: want 256 sessions, have %d", n)
	}
}

// Every line the harness prints is one benchstat reads: a Go benchmark
// line with a name, an iteration count and value-unit pairs, or a note
// benchstat skips.
func TestLinesAreGoBenchmarkFormat(t *testing.T) {
	var b bytes.Buffer
	l := newLines(&b)
	l.load(loadResult{Server: sWraith10k, Load: loadSpec{"post", 256}.String(), Requests: 1234, RPS: 617, P50: 1500, P99: 9000, CPUPerReq: 40.5, PeakRSS: 40960})
	l.start(startResult{Server: sStripeMock, Pass: 1, Answer: 5e8, IdleRSS: 2048})
	l.hold(holdResult{Server: sWraith256, Entities: 500000, IdleRSS: 15 * 1024, PeakRSS: 15*1024 + 195312, RSS: 180 * 1024, Took: 25e9, Non2xx: 1})
	l.note("mountebank: %s", "not installed\nsecond line")
	want := []*regexp.Regexp{
		regexp.MustCompile(`^BenchmarkLoad/server=wraith-10k/load=post-c256 1234 617 req/s 1\.500 p50-ms 9\.000 p99-ms 40\.50 cpu-us/op 40\.0 peak-rss-MiB 0 non2xx 0 sock-errors 0\.00 other-cores$`),
		regexp.MustCompile(`^BenchmarkStart/server=stripe-mock 1 500\.0 answer-ms 2\.0 idle-rss-MiB$`),
		regexp.MustCompile(`^BenchmarkHold/server=wraith-256s 500000 400 rss-B/entity 205\.7 peak-rss-MiB 15\.0 idle-rss-MiB 180\.0 rss-MiB 20000 creates/s 1 non2xx 0 sock-errors$`),
		regexp.MustCompile(`^# note: mountebank: not installed second line$`),
	}
	have := bytes.Split(bytes.TrimSuffix(b.Bytes(), []byte("\n")), []byte("\n"))
	if len(have) != len(want) {
		t.Fatalf("want %d lines, have %d:\n%s", len(want), len(have), b.String())
	}
	for i, re := range want {
		if !re.Match(have[i]) {
			t.Errorf("line %d: want %s, have %s", i, re, have[i])
		}
	}
}
