package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// target is one target of issue 16 or issue 6, judged on benchstat's
// medians.
type target struct {
	what, shape, measured, ratio, goal string
	met                                int // 1 met, 0 not, -1 not measured
}

func (t target) verdict() string {
	switch t.met {
	case 1:
		return "met"
	case 0:
		return "**not met**"
	}
	return "not measured"
}

func judge(ok bool, x float64) int {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return -1
	case ok:
		return 1
	}
	return 0
}

// shapes are Wraith's two shapes of load that issue 16's targets judge.
var shapes = []struct{ server, label string }{{sWraith1, "one session"}, {sWraith256, "256 sessions"}}

// judged collects targets; vs and abs add one each.
type judged []target

// vs adds a ratio target: a over b, against limit (at least or at most).
func (ts *judged) vs(what, shape string, a, b float64, unit, goal string, atLeast bool, limit float64) {
	r := a / b
	ok := r <= limit
	if atLeast {
		ok = r >= limit
	}
	*ts = append(*ts, target{what: what, shape: shape, measured: f(a) + " vs " + f(b) + " " + unit,
		ratio: fr(r), goal: goal, met: judge(ok, r)})
}

// abs adds an absolute target: x at most limit.
func (ts *judged) abs(what, shape string, x float64, unit string, limit float64) {
	*ts = append(*ts, target{what: what, shape: shape, measured: f(x) + " " + unit, ratio: fr(x / limit),
		goal: "≤ " + f(limit) + " " + unit, met: judge(x <= limit, x)})
}

func load(mode string, n int) string { return fmt.Sprintf("Load/load=%s-c%d", mode, n) }

// targets16 holds issue 16's goals, each for both shapes unless it is
// about one: throughput and tail latency as ratios to the ceiling, RSS per
// held customer after the memory load, the start of three twins, and
// 10,000 live sessions against one.
func targets16(m medians, sessions int) []target {
	conns := loadConns(m)
	var ts judged
	if len(conns) == 0 {
		conns = []int{32, 256}
	}
	lo, hi := conns[0], conns[len(conns)-1]
	for _, n := range conns {
		for _, s := range shapes {
			ts.vs(fmt.Sprintf("Recorded GET c=%d vs ceiling", n), s.label, m.get(load("get", n), s.server, "req/s"), m.get(load("get", n), sCeiling, "req/s"), "req/s", "≥ 0.90", true, 0.90)
		}
	}
	for _, s := range shapes {
		ts.vs(fmt.Sprintf("GET p99 c=%d vs ceiling", hi), s.label, m.get(load("get", hi), s.server, "p99-ms"), m.get(load("get", hi), sCeiling, "p99-ms"), "ms", "≤ 1.5", false, 1.5)
	}
	for _, s := range shapes {
		ts.vs(fmt.Sprintf("Create c=%d vs ceiling", lo), s.label, m.get(load("post", lo), s.server, "req/s"), m.get(load("post", lo), sCeiling, "req/s"), "req/s", "≥ 0.75", true, 0.75)
	}
	for _, s := range shapes {
		ts.abs("RSS per held created customer: (peak − idle RSS) / entities after the memory load", s.label, m.get("Hold", s.server, "rss-B/entity"), "B", 400)
	}
	ts.abs("Start of `wraith serve checkout`: exec → ready JSON", "—", m.get("Start", startPrefix+"checkout", "ready-ms"), "ms", 60)
	for _, twin := range []string{"stripe", "github"} {
		ts.abs(fmt.Sprintf("Start of the imported `%s` twin (`wraith serve %s`): exec → ready JSON", twin, twin), "—", m.get("Start", startPrefix+twin, "ready-ms"), "ms", 150)
	}
	for _, n := range conns {
		ts.vs(fmt.Sprintf("Recorded GET c=%d, %d live sessions vs one session", n, sessions), fmt.Sprintf("%d sessions", sessions), m.get(load("get", n), sWraith10k, "req/s"), m.get(load("get", n), sWraith1, "req/s"), "req/s", "≥ 0.95", true, 0.95)
	}
	return ts
}

// targets6 holds the first round's goals that issue 16 keeps: heap per
// session and `wraith up` (measured by go test), no failed answer, and the
// CPU, memory and many-session figures of issue 6 that issue 16 does not
// replace with stricter ones, in issue 6's shapes (GETs in one session,
// creates spread over 256). failures is the sum of non-2xx answers and
// socket errors over every Wraith load of every pass.
func targets6(m medians, failures float64, sessions int) []target {
	conns := loadConns(m)
	one := shapes[0]
	var ts judged
	ts.abs("Heap per session holding 0 created entities (go test)", "—", m.any("SessionMemory/entities=0", "B/session"), "B", 2048)
	ts.abs("Heap per session holding 10 created entities (go test)", "—", m.any("SessionMemory/entities=10", "B/session"), "B", 16384)
	ts.abs("`wraith up` with 10 twins, all ready (go test)", "—", m.any("Up10Twins", "up-ms/op"), "ms", 1000)
	ts = append(ts, target{what: "Non-2xx answers and socket errors, every Wraith load and memory load of every pass", shape: "all",
		measured: f(failures), ratio: "—", goal: "0", met: judge(failures == 0, failures)})
	for _, n := range conns {
		ts.vs(fmt.Sprintf("Server CPU per GET c=%d vs ceiling", n), one.label, m.get(load("get", n), one.server, "cpu-us/op"), m.get(load("get", n), sCeiling, "cpu-us/op"), "µs", "≤ 1.4", false, 1.4)
	}
	if len(conns) > 0 {
		ts.vs(fmt.Sprintf("Create c=%d, %d live sessions vs 256 sessions", conns[0], sessions), fmt.Sprintf("%d sessions", sessions), m.get(load("post", conns[0]), sWraith10k, "req/s"), m.get(load("post", conns[0]), sWraith256, "req/s"), "req/s", "≥ 0.90", true, 0.90)
	}
	ts.abs("Idle RSS of Wraith serving checkout", "—", m.get("Start", one.server, "idle-rss-MiB"), "MiB", 30)
	peak := math.NaN()
	for _, n := range conns {
		peak = maxNaN(peak, m.get(load("get", n), one.server, "peak-rss-MiB"))
	}
	ts.abs("Peak RSS under the GET loads (highest median)", one.label, peak, "MiB", 60)
	return ts
}

// loadConns are the connection counts the loads ran at, from their rows.
func loadConns(m medians) []int {
	var out []int
	for k := range m {
		if s, ok := strings.CutPrefix(k[0], "Load/load=get-c"); ok {
			if n, err := strconv.Atoi(s); err == nil && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}

func f(x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return "—"
	case math.Abs(x) >= 100:
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.3g", x)
}

// fr is a ratio to two decimals, or a dash when it could not be computed.
func fr(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return "—"
	}
	return fmt.Sprintf("%.2f", r)
}

func maxNaN(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	}
	return math.Max(a, b)
}
