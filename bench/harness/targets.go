package main

import (
	"fmt"
)

// targets measures each target of issue 6 against this run.
func targets(cfg benchConfig, m medians) []target {
	var ts []target
	ratio := func(what string, a, b float64, f func(float64) string, goal string, judge int) target {
		return target{what: what, measured: f(a) + " vs " + f(b), ratio: fPct(a / b), goal: goal, met: judge}
	}
	W, K, C := sWraith, sWraith10k, sCeiling
	for _, n := range cfg.conns {
		l := fmt.Sprintf("GET c=%d", n)
		w, c := m.load(W, l, rpsOf), m.load(C, l, rpsOf)
		ts = append(ts, ratio("Recorded GET c="+itoa(n)+", Wraith vs ceiling", w, c, fRPS, "≥ 80%", atLeast(w/c, 0.80)))
	}
	maxL := fmt.Sprintf("GET c=%d", cfg.conns[len(cfg.conns)-1])
	w, c := m.load(W, maxL, p99Of), m.load(C, maxL, p99Of)
	ts = append(ts, target{what: "GET p99 " + maxL[4:] + ", Wraith vs ceiling", measured: fUS(w) + " vs " + fUS(c),
		ratio: fX(w / c), goal: "≤ 1.5×", met: atMost(w/c, 1.5)})
	for _, n := range cfg.conns {
		l := fmt.Sprintf("GET c=%d", n)
		w, c := m.load(W, l, cpuOf), m.load(C, l, cpuOf)
		ts = append(ts, target{what: "Server CPU per GET c=" + itoa(n) + ", Wraith vs ceiling", measured: fCPU(w) + " vs " + fCPU(c),
			ratio: fX(w / c), goal: "≤ 1.4×", met: atMost(w/c, 1.4)})
	}
	for _, n := range cfg.conns {
		l := fmt.Sprintf("POST c=%d", n)
		w, c := m.load(W, l, rpsOf), m.load(C, l, rpsOf)
		ts = append(ts, ratio("Stateful create c="+itoa(n)+", Wraith vs ceiling", w, c, fRPS, "≥ 60%", atLeast(w/c, 0.60)))
	}
	for _, mode := range []string{"GET", "POST"} {
		for _, n := range cfg.conns {
			l := fmt.Sprintf("%s c=%d", mode, n)
			k, w := m.load(K, l, rpsOf), m.load(W, l, rpsOf)
			what := "Recorded GET"
			if mode == "POST" {
				what = "Create"
			}
			ts = append(ts, ratio(fmt.Sprintf("%s c=%d, %d sessions alive vs one session", what, n, cfg.sessions), k, w, fRPS, "≥ 90%", atLeast(k/w, 0.90)))
		}
	}
	for _, e := range []struct {
		n    string
		goal float64
	}{{"0", 2048}, {"10", 16384}} {
		x := benchMetric(cfg.extras.sessionMem, "BenchmarkSessionMemory/entities="+e.n, "B/session")
		ts = append(ts, target{what: "Heap per session holding " + e.n + " created entities (go test)", measured: fKiB(x),
			ratio: fPct(x / e.goal), goal: "≤ " + fKiB(e.goal), met: atMost(x, e.goal)})
	}
	idle := m.start(W, func(r startResult) float64 { return float64(r.IdleRSS) })
	ts = append(ts, target{what: "Idle RSS of Wraith serving checkout", measured: fMiB(idle), ratio: fPct(idle / (30 * 1024)),
		goal: "≤ 30 MiB", met: atMost(idle, 30*1024)})
	pg := m.peak(W, "GET")
	ts = append(ts, target{what: "Peak RSS under the GET loads", measured: fMiB(pg), ratio: fPct(pg / (60 * 1024)),
		goal: "≤ 60 MiB", met: atMost(pg, 60*1024)})
	pa := m.peak(W, "")
	var created float64
	for _, n := range cfg.conns {
		created += m.load(W, fmt.Sprintf("POST c=%d", n), reqOf)
	}
	ts = append(ts, target{what: fmt.Sprintf("Peak RSS under all loads, holding ~%.0fk created entities at the end", created/1000),
		measured: fMiB(pa), ratio: fPct(pa / (60 * 1024)), goal: "≤ 60 MiB", met: atMost(pa, 60*1024)})
	if created > 0 {
		per := (pa - idle) * 1024 / created
		ts = append(ts, target{what: "Resident memory per created entity: (peak − idle RSS) ÷ entities (for information)",
			measured: fmt.Sprintf("%.0f B", per), ratio: "—", goal: "—", met: -2})
	}
	pk := m.peak(K, "GET")
	ts = append(ts, target{what: fmt.Sprintf("Peak RSS under the GET loads, %d sessions alive (for information)", cfg.sessions),
		measured: fMiB(pk), ratio: "—", goal: "—", met: -2})
	ready := m.start(W, func(r startResult) float64 { return ms(r.Ready) })
	ts = append(ts, target{what: "Start: exec → ready JSON written", measured: fMs(ready), ratio: fPct(ready / 100),
		goal: "≤ 100 ms", met: atMost(ready, 100)})
	up := benchMetric(cfg.extras.up10, "BenchmarkUp10Twins", "up-ms/op")
	ts = append(ts, target{what: "`wraith up` with 10 twins, all ready (go test)", measured: fMs(up), ratio: fPct(up / 1000),
		goal: "≤ 1 s", met: atMost(up, 1000)})
	var non2xx, errs int64
	var n int
	for _, s := range []string{W, K} {
		a, b, c := m.failures(s)
		non2xx, errs, n = non2xx+a, errs+b, n+c
	}
	judge := -1
	if n > 0 {
		judge = atMost(float64(non2xx+errs), 0)
	}
	ts = append(ts, target{what: fmt.Sprintf("No errors and no non-2xx under any load (%d Wraith loads)", n),
		measured: fmt.Sprintf("%d non-2xx, %d errors", non2xx, errs), ratio: "—", goal: "0", met: judge})
	return ts
}

func itoa(n int) string { return fmt.Sprint(n) }

func fKiB(b float64) string {
	if na(b) {
		return "—"
	}
	if b >= 10*1024 {
		return fmt.Sprintf("%.1f KiB", b/1024)
	}
	return fmt.Sprintf("%.2f KiB", b/1024)
}
