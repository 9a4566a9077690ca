package main

import (
	"bufio"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// reportConfig is everything `harness report` is told: the files that
// bench/run.sh has written, benchstat's among them.
type reportConfig struct {
	out       string // the report to write
	lines     string // harness bench output: benchmark lines and "# note:" lines
	statText  string // benchstat's text tables of lines
	statCSV   string // the same as CSV, for the targets' medians
	goText    string // benchstat of the go test benchmarks behind two targets
	goCSV     string
	profile   string // markdown with pprof output, optional
	gobench   string // go test -bench of every package, named in the report
	title     string // what produced this report (full run or smoke)
	sessions  int    // sessions alive in the wraith-10k run
	hold      int    // creates of the memory load
	noteLines []string
}

func runReport(args []string) error {
	var c reportConfig
	fs := flag.NewFlagSet("harness report", flag.ContinueOnError)
	fs.StringVar(&c.out, "o", "bench/RESULTS.md", "report to (over)write")
	fs.StringVar(&c.lines, "lines", "", "harness bench output")
	fs.StringVar(&c.statText, "stat", "", "benchstat text output of -lines")
	fs.StringVar(&c.statCSV, "stat-csv", "", "benchstat -format csv output of -lines")
	fs.StringVar(&c.goText, "go-stat", "", "benchstat text output of BenchmarkSessionMemory and BenchmarkUp10Twins")
	fs.StringVar(&c.goCSV, "go-stat-csv", "", "the same as CSV")
	fs.StringVar(&c.profile, "profile", "", "markdown with pprof -top output to include")
	fs.StringVar(&c.gobench, "gobench", "", "go test -bench output of every package, named in the report")
	fs.StringVar(&c.title, "title", "a full run of make bench", "what produced this report")
	fs.IntVar(&c.sessions, "sessions", 10000, "sessions alive in the wraith-10k run")
	fs.IntVar(&c.hold, "hold", 500_000, "creates of the memory load")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if c.lines == "" || c.statText == "" || c.statCSV == "" {
		return usageError{"want -lines, -stat and -stat-csv (bench/run.sh passes them)"}
	}
	m, err := readMedians(c.statCSV)
	if err != nil {
		return err
	}
	if c.goCSV != "" {
		gm, err := readMedians(c.goCSV)
		if err != nil {
			return err
		}
		m.merge(gm)
	}
	if c.noteLines, err = notes(c.lines); err != nil {
		return err
	}
	failures, err := wraithFailures(c.lines)
	if err != nil {
		return err
	}
	var w strings.Builder
	render(&w, c, m, failures)
	if err := os.WriteFile(c.out, []byte(w.String()), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s\n", c.out)
	return nil
}

// medians are the center figures of benchstat's CSV, by row (benchmark
// name less its /server key), column (the server, or the file for go test
// output) and unit. benchstat computed them; this only looks them up.
type medians map[[3]string]float64

func (m medians) get(row, col, unit string) float64 {
	if v, ok := m[[3]string{row, col, unit}]; ok {
		return v
	}
	return math.NaN()
}

// any is the figure of a row and unit in whichever column has it: go test
// output has one column, named after its file, and its rows keep go test's
// -GOMAXPROCS suffix.
func (m medians) any(row, unit string) float64 {
	for k, v := range m {
		if k[2] == unit && (k[0] == row || procsSuffix.MatchString(strings.TrimPrefix(k[0], row))) {
			return v
		}
	}
	return math.NaN()
}

var procsSuffix = regexp.MustCompile(`^-[0-9]+$`)

func (m medians) merge(o medians) {
	for k, v := range o {
		m[k] = v
	}
}

// readMedians parses benchstat -format csv: tables apart by blank lines,
// each with a row of column names, a row of units ("CI", "vs base" and "P"
// between them), then one row per benchmark. Configuration lines before
// the first table are skipped.
func readMedians(path string) (medians, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := medians{}
	var cols, units []string
	r := csv.NewReader(bufio.NewReader(f))
	r.FieldsPerRecord = -1
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return m, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: not benchstat CSV: %w", path, err)
		}
		switch {
		case len(rec) < 2:
			continue
		case rec[0] == "" && cols != nil && units == nil:
			units = rec
		case rec[0] == "":
			cols, units = fill(rec), nil
		case units == nil || rec[0] == "geomean":
			continue // configuration lines, geomeans
		default:
			for i := 1; i < len(rec) && i < len(units) && i < len(cols); i++ {
				if units[i] == "" || units[i] == "CI" || units[i] == "vs base" || units[i] == "P" {
					continue
				}
				if v, err := strconv.ParseFloat(rec[i], 64); err == nil {
					m[[3]string{rec[0], cols[i], units[i]}] = v
				}
			}
		}
	}
}

// fill carries each column name over the empty cells after it.
func fill(rec []string) []string {
	out := make([]string, len(rec))
	for i, s := range rec {
		if s == "" && i > 0 {
			s = out[i-1]
		}
		out[i] = s
	}
	return out
}

// notes returns the "# note:" lines of harness bench output.
func notes(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if n, ok := strings.CutPrefix(line, "# note: "); ok {
			out = append(out, n)
		}
	}
	return out, nil
}

// wraithFailures sums the non2xx and sock-errors figures of every Wraith
// load and memory load line of harness bench output, every pass: a
// median would hide one failing pass.
func wraithFailures(path string) (float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	sum, seen := 0.0, false
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || !wraithLine.MatchString(f[0]) {
			continue
		}
		for i := 2; i+1 < len(f); i += 2 {
			if f[i+1] != "non2xx" && f[i+1] != "sock-errors" {
				continue
			}
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return 0, fmt.Errorf("%s: %q: %w", path, line, err)
			}
			sum, seen = sum+v, true
		}
	}
	if !seen {
		return math.NaN(), nil
	}
	return sum, nil
}

var wraithLine = regexp.MustCompile(`^Benchmark(Load|Hold)/server=wraith-`)

func render(w io.Writer, c reportConfig, m medians, failures float64) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("# Wraith side-by-side benchmark\n\n")
	p("Written by bench/run.sh (`make bench`) on %s, from %s. ", time.Now().UTC().Format("2006-01-02 15:04 MST"), c.title)
	p("bench/harness ran every server and load and printed one Go benchmark line per server, load and pass (`%s`); ", c.lines)
	p("benchstat computed every median, confidence interval and ratio below. How to run and read it: bench/README.md.\n\n")

	p("## Targets (issue 16)\n\n")
	p("Medians as benchstat gives them, over the passes of this run. The shapes: **one session**, every request (GETs and creates, every create kept) ")
	p("with `X-Wraith-Session: b-0000`; **256 sessions**, requests spread over b-0000…b-0255; **%[1]d sessions**, spread over %[1]d live sessions that already hold customers. ", c.sessions)
	p("The ceiling, and the peers, get the one-session requests byte for byte. The memory load sends %d creates to a fresh Wraith per shape ", c.hold)
	p("(its connections: the memory-load line of benchstat's header below): the one-session shape holds them all in one session, which `--max-entities %d` on every Wraith run allows; ", noEntityLimit)
	p("the 256-session shape spreads them, %d or so a session", c.hold/spreadSessions)
	if c.hold/spreadSessions < defaultMaxEntities {
		p(", under Wraith's default limit of %d anyway", defaultMaxEntities)
	}
	p(". The ratio is the first figure over the second, or over the goal.\n\n")
	table(p, targets16(m, c.sessions))
	p("\n## Round one's targets (issue 6), kept\n\n")
	table(p, targets6(m, failures, c.sessions))
	p("\n## Beside the peers\n\n")
	p("Medians; req/s with its ratio to the ceiling, p99 and CPU per request with theirs; start is exec → first 2xx answer.\n\n")
	beside(p, m)
	p("\n## Side by side (benchstat)\n\n")
	p("`benchstat -col '/server@(ceiling wraith-one wraith-256s …)'`: one column per server, the plain net/http ceiling first, so every \"vs base\" is a change against the ceiling measured in the same run, ")
	p("or, in a table the ceiling has no row in (Hold, ready-ms), against the first server that has one ")
	p("(~ when benchstat cannot tell it from noise, which takes at least 4 passes; intervals take 6). ")
	p("Units: req/s; p50-ms and p99-ms, wrk's latency percentiles; cpu-us/op, the server's CPU time per request (`/proc/PID/stat`); ")
	p("peak-rss-MiB, VmHWM during that load alone; non2xx and sock-errors per load; other-cores, the cores that neither the server nor wrk kept busy meanwhile; ")
	p("for Start: ready-ms (exec → ready JSON, Wraith only), answer-ms (exec → first 2xx), idle-rss-MiB, and for wraith-10k seeded-rss-MiB and seed-ms; ")
	p("serve-checkout, serve-stripe and serve-github are `wraith serve TWIN` started alone, timed and stopped; ")
	p("for Hold, the memory load: rss-B/entity, (peak − idle RSS) / customers held, peak-rss-MiB (VmHWM since start), idle-rss-MiB, rss-MiB (VmRSS at the end), creates/s.\n\n")
	p("```\n%s```\n", readOr(c.statText))

	if c.goText != "" {
		p("\n## Go benchmarks behind two targets (benchstat)\n\n")
		p("`go test -run '^$' -bench BenchmarkSessionMemory ./twin/engine` and `-bench BenchmarkUp10Twins ./cmd/wraith`:\n\n```\n%s```\n", readOr(c.goText))
	}
	if c.profile != "" {
		p("\n## Where Wraith's time goes\n\n")
		p("CPU profiles of Wraith serving the one-session loads at c=256, each of the load alone (`harness profile` starts it as wrk starts and stops it as wrk ends): ")
		p("the recorded GET on a fresh process, the same GET on a process filled with created customers first, whose live heap the garbage collector must mark, and the create; ")
		p("each with what garbage collection cost during it (runtime/metrics), and what the heap held once it was over. Then the engine's own benchmarks, without sockets.\n\n%s", readOr(c.profile))
	}
	if c.gobench != "" {
		p("\nThe Go benchmarks of every package (`go test -bench . -benchmem ./...`) of this run: %s; compare two runs with `benchstat old.txt new.txt`.\n", c.gobench)
	}
	p("\n## Notes\n\n")
	for _, n := range c.noteLines {
		p("- %s\n", n)
	}
	p("- Wraith runs as `serve checkout --seed 42 --clock deterministic --max-entities %d` with no rate limit; the ceiling returns Wraith's own bytes for both routes, its headers included (so both write the same bytes on the wire but for Date), WireMock and Mountebank its bodies. stripe-mock answers from its own fixtures.\n", noEntityLimit)
	p("- Creates are stateful in Wraith and in nothing else here: every create is kept in its session, so Wraith's memory grows with the creates of the post loads.\n")
	p("- The wraith-10k run loads GETs at every connection count and creates at the lowest only.\n")
	p("- Server logs: bench/out/logs/.\n")
}

func readOr(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(%v)\n", err)
	}
	return string(b)
}

// table writes targets as a markdown table.
func table(p func(string, ...any), ts []target) {
	p("| target | shape | measured | ratio | goal | verdict |\n|---|---|---|---|---|---|\n")
	for _, t := range ts {
		p("| %s | %s | %s | %s | %s | %s |\n", t.what, t.shape, t.measured, t.ratio, t.goal, t.verdict())
	}
}

// beside writes the servers side by side, a row each.
func beside(p func(string, ...any), m medians) {
	conns := loadConns(m)
	if len(conns) == 0 {
		p("(no loads ran)\n")
		return
	}
	hi := conns[len(conns)-1]
	p("| server |")
	for _, mode := range []string{"get", "post"} {
		for _, n := range conns {
			p(" %s c=%d |", map[string]string{"get": "GET", "post": "create"}[mode], n)
		}
	}
	p(" GET p99 c=%d | CPU per GET c=%d | start | idle RSS |\n|---|", hi, hi)
	for range 2*len(conns) + 4 {
		p("---|")
	}
	p("\n")
	ratio := func(x, base float64, unit string, pct bool) string {
		if math.IsNaN(x) {
			return "—"
		}
		r := x / base
		switch {
		case math.IsNaN(r):
			return f(x) + " " + unit
		case pct:
			return fmt.Sprintf("%s %s (%.0f%%)", f(x), unit, 100*r)
		}
		return fmt.Sprintf("%s %s (%.2f×)", f(x), unit, r)
	}
	for _, s := range allServers {
		if math.IsNaN(m.get("Start", s, "answer-ms")) {
			continue
		}
		p("| %s |", s)
		for _, mode := range []string{"get", "post"} {
			for _, n := range conns {
				p(" %s |", ratio(m.get(load(mode, n), s, "req/s"), m.get(load(mode, n), sCeiling, "req/s"), "/s", true))
			}
		}
		p(" %s |", ratio(m.get(load("get", hi), s, "p99-ms"), m.get(load("get", hi), sCeiling, "p99-ms"), "ms", false))
		p(" %s |", ratio(m.get(load("get", hi), s, "cpu-us/op"), m.get(load("get", hi), sCeiling, "cpu-us/op"), "µs", false))
		p(" %s ms | %s MiB |\n", f(m.get("Start", s, "answer-ms")), f(m.get("Start", s, "idle-rss-MiB")))
	}
}
