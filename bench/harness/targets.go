package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// target is one of issue 6's targets, judged on benchstat's medians.
type target struct {
	what, measured, ratio, goal string
	met                         int // 1 met, 0 not, -1 not measured
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

// targets holds issue 6's goals: throughput, latency and CPU as ratios to
// the ceiling, 10,000 sessions against one, and absolute memory and start
// figures.
func targets(m medians, sessions int) []target {
	const W, K, C = sWraith, sWraith10k, sCeiling
	load := func(mode string, n int) string { return fmt.Sprintf("Load/load=%s-c%d", mode, n) }
	conns := loadConns(m)
	var ts []target
	vs := func(what string, a, b float64, unit, goal string, atLeast bool, limit float64) {
		r := a / b
		ok := r <= limit
		if atLeast {
			ok = r >= limit
		}
		ts = append(ts, target{what: what, measured: f(a) + " vs " + f(b) + " " + unit, ratio: fmt.Sprintf("%.2f", r), goal: goal, met: judge(ok, r)})
	}
	for _, n := range conns {
		vs(fmt.Sprintf("Recorded GET c=%d, Wraith vs ceiling", n), m.get(load("get", n), W, "req/s"), m.get(load("get", n), C, "req/s"), "req/s", "≥ 0.80", true, 0.80)
	}
	if len(conns) > 0 {
		n := conns[len(conns)-1]
		vs(fmt.Sprintf("GET p99 c=%d, Wraith vs ceiling", n), m.get(load("get", n), W, "p99-ms"), m.get(load("get", n), C, "p99-ms"), "ms", "≤ 1.5", false, 1.5)
	}
	for _, n := range conns {
		vs(fmt.Sprintf("Server CPU per GET c=%d, Wraith vs ceiling", n), m.get(load("get", n), W, "cpu-us/op"), m.get(load("get", n), C, "cpu-us/op"), "µs", "≤ 1.4", false, 1.4)
	}
	for _, n := range conns {
		vs(fmt.Sprintf("Stateful create c=%d, Wraith vs ceiling", n), m.get(load("post", n), W, "req/s"), m.get(load("post", n), C, "req/s"), "req/s", "≥ 0.60", true, 0.60)
	}
	for _, mode := range []string{"get", "post"} {
		for _, n := range conns {
			vs(fmt.Sprintf("%s c=%d, %d sessions alive vs one session", mode, n, sessions), m.get(load(mode, n), K, "req/s"), m.get(load(mode, n), W, "req/s"), "req/s", "≥ 0.90", true, 0.90)
		}
	}
	abs := func(what string, x float64, unit string, limit float64) {
		ts = append(ts, target{what: what, measured: f(x) + " " + unit, ratio: fmt.Sprintf("%.2f", x/limit),
			goal: "≤ " + f(limit) + " " + unit, met: judge(x <= limit, x)})
	}
	abs("Heap per session holding 0 created entities (go test)", m.any("SessionMemory/entities=0", "B/session"), "B", 2048)
	abs("Heap per session holding 10 created entities (go test)", m.any("SessionMemory/entities=10", "B/session"), "B", 16384)
	abs("Idle RSS of Wraith serving checkout", m.get("Start", W, "idle-rss-MiB"), "MiB", 30)
	peakGet, peakAll := math.NaN(), math.NaN()
	for _, n := range conns {
		peakGet = maxNaN(peakGet, m.get(load("get", n), W, "peak-rss-MiB"))
		peakAll = maxNaN(peakAll, maxNaN(peakGet, m.get(load("post", n), W, "peak-rss-MiB")))
	}
	abs("Peak RSS under the GET loads (highest median)", peakGet, "MiB", 60)
	abs("Peak RSS under all loads, creates kept (highest median)", peakAll, "MiB", 60)
	abs("Start: exec → ready JSON written", m.get("Start", W, "ready-ms"), "ms", 100)
	abs("`wraith up` with 10 twins, all ready (go test)", m.any("Up10Twins", "up-ms/op"), "ms", 1000)
	bad, measured := 0.0, 0
	for _, s := range []string{W, K} {
		for _, mode := range []string{"get", "post"} {
			for _, n := range conns {
				if x := m.get(load(mode, n), s, "non2xx"); !math.IsNaN(x) {
					bad, measured = bad+x+nanZero(m.get(load(mode, n), s, "sock-errors")), measured+1
				}
			}
		}
	}
	if measured == 0 {
		bad = math.NaN()
	}
	ts = append(ts, target{what: "No non-2xx answers and no socket errors (median of each Wraith load)", measured: f(bad), ratio: "—", goal: "0", met: judge(bad == 0, bad)})
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

func maxNaN(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	}
	return math.Max(a, b)
}

func nanZero(x float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return x
}
