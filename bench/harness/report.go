package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// target is one line of the targets, as measured.
type target struct {
	what, measured, ratio, goal string
	met                         int // 1 met, 0 not, -1 not measured, -2 for information only
}

func (t target) verdict() string {
	switch t.met {
	case 1:
		return "met"
	case 0:
		return "**not met**"
	case -2:
		return "(information)"
	}
	return "not measured"
}

// atLeast and atMost judge a ratio against a goal; NaN is "not measured".
func atLeast(r, goal float64) int {
	if na(r) {
		return -1
	}
	if r >= goal {
		return 1
	}
	return 0
}

func atMost(r, goal float64) int {
	if na(r) {
		return -1
	}
	if r <= goal {
		return 1
	}
	return 0
}

func writeReport(cfg benchConfig, d *runData, b bodies) error {
	stamp := d.Started.UTC().Format("2006-01-02T1504Z")
	raw, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(cfg.out, "raw-"+stamp+".json"), raw, 0o644); err != nil {
		return err
	}
	md := render(cfg, d, b)
	dated := filepath.Join(cfg.out, "results-"+stamp+".md")
	if err := os.WriteFile(dated, []byte(md), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(cfg.results, []byte(md), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s and %s\n", cfg.results, dated)
	return nil
}

func render(cfg benchConfig, d *runData, b bodies) string {
	m := medians{d}
	var w strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&w, format, a...) }
	loads := cfg.loads()
	maxC := cfg.conns[len(cfg.conns)-1]
	getMax, postFirst := fmt.Sprintf("GET c=%d", maxC), fmt.Sprintf("POST c=%d", cfg.conns[0])

	p("# Wraith side-by-side benchmark\n\n")
	p("Written by bench/run.sh (`make bench`, through bench/harness) on %s. ", d.Started.UTC().Format("2006-01-02 15:04 MST"))
	p("Medians of %d passes. In each pass every server is started (and warmed up for %s), then each load runs on every server in turn, ",
		cfg.passes, cfg.warmup)
	p("so the figures a ratio compares are taken seconds apart; a load runs %s with wrk (%d threads, keep-alive) against one server at a time on loopback, ",
		cfg.duration, cfg.wrkThreads)
	p("while the others wait idle; wrk and the server share the machine's cores. ")
	p("Every figure is also given as a ratio to the plain net/http ceiling (bench/ceiling) measured in the same run. ")
	p("How to run and read it: bench/README.md.\n\n")
	p("Machine: %s; load average %s at the start, %s at the end.\n\n", strings.Join(machine(), "; "), d.LoadAvgStart, d.LoadAvgEnd)
	if len(cfg.meta) > 0 {
		p("Versions: %s.\n\n", strings.Join(cfg.meta, "; "))
	}

	p("## Targets (issue 6)\n\n")
	p("| target | measured | ratio | goal | verdict |\n|---|---|---|---|---|\n")
	for _, t := range targets(cfg, m) {
		p("| %s | %s | %s | %s | %s |\n", t.what, t.measured, t.ratio, t.goal, t.verdict())
	}

	p("\n## Side by side\n\n")
	p("Throughput as %% of the ceiling; p99 and CPU time per request as a multiple of the ceiling's. ")
	p("Start is exec → ready JSON written for Wraith, exec → first successful answer for the others. ")
	p("Peak RSS is the highest VmHWM over all loads, creates included.\n\n")
	p("| server |")
	for _, l := range loads {
		p(" %s |", l)
	}
	p(" GET p99 c=%d | CPU per GET c=%d | CPU per create %s | start | idle RSS | peak RSS | non-2xx / errors |\n|---|", maxC, maxC, strings.TrimPrefix(postFirst, "POST "))
	for range loads {
		p("---|")
	}
	p("---|---|---|---|---|---|---|\n")
	for _, s := range cfg.servers {
		p("| %s |", label(s, cfg))
		if errs := m.startErrors(s); len(errs) == len(filter(d.Starts, s)) {
			p(" %s |\n", strings.Repeat(" — |", len(loads)+6)+" "+short(errs[0]))
			continue
		}
		for _, l := range loads {
			r := m.load(s, l.String(), rpsOf)
			p(" %s (%s) |", fRPS(r), fPct(r/m.load(sCeiling, l.String(), rpsOf)))
		}
		p99 := m.load(s, getMax, p99Of)
		cpuG, cpuP := m.load(s, getMax, cpuOf), m.load(s, postFirst, cpuOf)
		p(" %s (%s) | %s (%s) | %s (%s) |", fUS(p99), fX(p99/m.load(sCeiling, getMax, p99Of)),
			fCPU(cpuG), fX(cpuG/m.load(sCeiling, getMax, cpuOf)), fCPU(cpuP), fX(cpuP/m.load(sCeiling, postFirst, cpuOf)))
		startMs := m.start(s, func(r startResult) float64 { return ms(r.Answer) })
		if s == sWraith || s == sWraith10k {
			startMs = m.start(s, func(r startResult) float64 { return ms(r.Ready) })
		}
		non2xx, errs, _ := m.failures(s)
		p(" %s | %s | %s | %d / %d |\n", fMs(startMs), fMiB(m.start(s, func(r startResult) float64 { return float64(r.IdleRSS) })),
			fMiB(m.peak(s, "")), non2xx, errs)
	}

	p("\n## Every load\n\n")
	p("Medians; the req/s of each pass in the last column. Non-2xx counts responses with status ≥ 400 (all passes); errors are socket errors and timeouts (all passes). ")
	p("Peak RSS is VmHWM during that load alone (reset through /proc/PID/clear_refs before it). ")
	p("The one-session runs send `X-Wraith-Session: b-0` on every GET and spread creates over %d sessions b-0…; ", cfg.postSessions)
	p("the %d-session run spreads both over s-0…s-%d, each seeded with %d customers first. Every server gets the same request bytes.\n\n",
		cfg.sessions, cfg.sessions-1, cfg.seedEntities)
	p("wrk and others are the cores that wrk and everything else on the machine (neither wrk nor the server) kept busy during the load (medians). ")
	p("A load during which the others kept more than %.2f cores busy is disturbed, marked * in the last column, and measured again up to %d times, keeping the least disturbed attempt; ", disturbedCores, cfg.retries)
	p("every median leaves out the disturbed passes of a load unless all of them were.\n\n")
	p("| server | load | req/s | vs ceiling | p50 | p99 | p99 vs ceiling | CPU/req | CPU vs ceiling | peak RSS | non-2xx | errors | wrk, others (cores) | req/s per pass |\n")
	p("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range cfg.servers {
		for _, l := range loads {
			ls := l.String()
			var per []string
			var non2xx, errs int64
			for _, r := range d.Loads {
				if r.Server == s && r.Load == ls {
					mark := ""
					if r.Disturbed {
						mark = "*"
					}
					per = append(per, fmt.Sprintf("%.0f%s", r.RPS, mark))
					non2xx += r.Non2xx
					errs += r.Errors
				}
			}
			if len(per) == 0 {
				continue
			}
			rps, p99, cpu := m.load(s, ls, rpsOf), m.load(s, ls, p99Of), m.load(s, ls, cpuOf)
			p("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d | %d | %.2f, %.2f | %s |\n", label(s, cfg), ls,
				fRPS(rps), fPct(rps/m.load(sCeiling, ls, rpsOf)), fUS(m.load(s, ls, p50Of)), fUS(p99),
				fX(p99/m.load(sCeiling, ls, p99Of)), fCPU(cpu), fX(cpu/m.load(sCeiling, ls, cpuOf)),
				fMiB(m.load(s, ls, func(r loadResult) float64 { return float64(r.PeakRSS) })), non2xx, errs,
				m.load(s, ls, func(r loadResult) float64 { return r.ClientCores }), m.load(s, ls, func(r loadResult) float64 { return r.OtherCores }),
				strings.Join(per, ", "))
		}
	}

	p("\n## Starting\n\n")
	p("| server | exec → ready JSON | exec → first answer | idle RSS | RSS with sessions seeded | seeding | first GET body | same bytes as Wraith's |\n|---|---|---|---|---|---|---|---|\n")
	for _, s := range cfg.servers {
		f := func(g func(startResult) float64) float64 { return m.start(s, g) }
		same := "—"
		for _, r := range d.Starts {
			if r.Server == s && r.Answer > 0 {
				same = map[bool]string{true: "yes", false: "no"}[r.SameBytes]
			}
		}
		p("| %s | %s | %s | %s | %s | %s | %s | %s |\n", label(s, cfg),
			fMs(f(func(r startResult) float64 { return ms(r.Ready) })), fMs(f(func(r startResult) float64 { return ms(r.Answer) })),
			fMiB(f(func(r startResult) float64 { return float64(r.IdleRSS) })), fMiB(f(func(r startResult) float64 { return float64(r.SeededRSS) })),
			fMs(f(func(r startResult) float64 { return ms(r.Seed) })), bytesLen(f(func(r startResult) float64 { return float64(r.BodyLen) })), same)
	}

	renderExtras(&w, cfg)

	var notes []string
	for _, s := range cfg.servers {
		for _, e := range m.startErrors(s) {
			notes = append(notes, fmt.Sprintf("%s, %s", s, e))
		}
	}
	for _, r := range d.Starts {
		if r.PeakIsLifetime {
			notes = append(notes, fmt.Sprintf("%s pass %d: /proc/PID/clear_refs was refused, so its per-load peaks are peaks since start", r.Server, r.Pass))
		}
	}
	notes = append(notes,
		fmt.Sprintf("Wraith runs as `%s` (seed 42, deterministic clock, no rate limit); its GET answer is %d bytes, the create answer %d bytes; the ceiling, WireMock and Mountebank return exactly those bytes. stripe-mock answers from its own fixtures.", strings.Join(cfg.peers.wraithArgv("READY", cfg.sessions*2)[1:], " "), len(b.get), len(b.post)),
		"WireMock runs with --no-request-journal on the default JVM settings; Mountebank with --loglevel warn (at info it logs every request) and Connection: keep-alive on its stubs (its default closes connections).",
		"Creates are stateful in Wraith and in nothing else here: every create is kept in its session, so Wraith's memory grows with the creates of the POST loads (see the peak RSS rows of the targets).",
		"Raw measurements of every pass: bench/out/raw-*.json; server logs: bench/out/logs/.")
	p("\n## Notes\n\n")
	for _, n := range notes {
		p("- %s\n", n)
	}
	return w.String()
}

func renderExtras(w *strings.Builder, cfg benchConfig) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	if cfg.extras.sessionMem != "" {
		if b, err := os.ReadFile(cfg.extras.sessionMem); err == nil {
			p("\n## Memory per session (`go test -run '^$' -bench BenchmarkSessionMemory ./twin/engine`)\n\n```\n%s\n```\n", benchLines(string(b)))
		}
	}
	if cfg.extras.up10 != "" {
		if b, err := os.ReadFile(cfg.extras.up10); err == nil {
			p("\n## `wraith up` with 10 twins (`go test -run '^$' -bench BenchmarkUp10Twins ./cmd/wraith`)\n\n```\n%s\n```\n", benchLines(string(b)))
		}
	}
	if cfg.extras.profile != "" {
		if b, err := os.ReadFile(cfg.extras.profile); err == nil {
			p("\n## Where Wraith's time goes\n\n%s", string(b))
		}
	}
	if cfg.extras.gobench != "" {
		p("\nThe Go benchmarks of every package (`go test -bench . -benchmem ./...`) of this run: %s.\n", cfg.extras.gobench)
	}
}

// benchLines keeps the result lines of go test output.
func benchLines(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "Benchmark") || strings.HasPrefix(line, "cpu:") {
			out = append(out, strings.TrimRight(line, " \t"))
		}
	}
	return strings.Join(out, "\n")
}

func filter(starts []startResult, server string) []startResult {
	var out []startResult
	for _, s := range starts {
		if s.Server == server {
			out = append(out, s)
		}
	}
	return out
}

func short(s string) string {
	s = strings.ReplaceAll(strings.SplitN(s, "\n", 2)[0], "|", "/")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

func bytesLen(x float64) string {
	if na(x) || x == 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f B", x)
}

func label(s string, cfg benchConfig) string {
	switch s {
	case sCeiling:
		return "plain net/http (ceiling)"
	case sWraith:
		return "Wraith"
	case sWraith10k:
		return fmt.Sprintf("Wraith, %d sessions alive", cfg.sessions)
	case sStripeMock:
		return "stripe-mock"
	case sWireMock:
		return "WireMock"
	case sMountebank:
		return "Mountebank"
	}
	return s
}
