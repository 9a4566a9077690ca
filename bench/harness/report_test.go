package main

import (
	"bytes"
	"regexp"
	"testing"
)

// The CSV files under testdata are benchstat's output of a smoke run
// (make bench BENCH_SMOKE=1): the report must read the medians benchstat
// computed, not figures of its own.
func TestReadMedians(t *testing.T) {
	m, err := readMedians("testdata/smoke.stat.csv")
	if err != nil {
		t.Fatal(err)
	}
	gm, err := readMedians("testdata/smoke-go.stat.csv")
	if err != nil {
		t.Fatal(err)
	}
	m.merge(gm)
	for _, tc := range []struct {
		name string
		have float64
		want float64
	}{
		{"wraith get-c32 req/s", m.get("Load/load=get-c32", sWraith, "req/s"), 38573},
		{"ceiling post-c256 p99-ms", m.get("Load/load=post-c256", sCeiling, "p99-ms"), 60.393},
		{"wraith-10k seeded RSS", m.get("Start", sWraith10k, "seeded-rss-MiB"), 29.1},
		{"session memory (go test, -N suffix)", m.any("SessionMemory/entities=10", "B/session"), 7248},
		{"up 10 twins (go test)", m.any("Up10Twins", "up-ms/op"), 140.7},
	} {
		if tc.have != tc.want {
			t.Errorf("%s: want %v, have %v", tc.name, tc.want, tc.have)
		}
	}
	if have := loadConns(m); len(have) != 2 || have[0] != 32 || have[1] != 256 {
		t.Errorf("load connection counts: want [32 256], have %v", have)
	}
}

func TestTargetsJudgeBenchstatMedians(t *testing.T) {
	m, err := readMedians("testdata/smoke.stat.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{
		"Recorded GET c=32, Wraith vs ceiling":                  0,  // 38573 / 49641 < 0.80
		"Recorded GET c=256, Wraith vs ceiling":                 1,  // 42978 / 51648 ≥ 0.80
		"Idle RSS of Wraith serving checkout":                   1,  // 15.1 MiB
		"Heap per session holding 0 created entities (go test)": -1, // not in this CSV
	}
	for _, tg := range targets(m, 1000) {
		if w, ok := want[tg.what]; ok {
			if tg.met != w {
				t.Errorf("%s: want met=%d, have %d (%s, ratio %s)", tg.what, w, tg.met, tg.measured, tg.ratio)
			}
			delete(want, tg.what)
		}
	}
	for what := range want {
		t.Errorf("no target %q", what)
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
	l.note("mountebank: %s", "not installed\nsecond line")
	want := []*regexp.Regexp{
		regexp.MustCompile(`^BenchmarkLoad/server=wraith-10k/load=post-c256 1234 617 req/s 1\.500 p50-ms 9\.000 p99-ms 40\.50 cpu-us/op 40\.0 peak-rss-MiB 0 non2xx 0 sock-errors 0\.00 other-cores$`),
		regexp.MustCompile(`^BenchmarkStart/server=stripe-mock 1 500\.0 answer-ms 2\.0 idle-rss-MiB$`),
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
