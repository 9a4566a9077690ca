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
	var w strings.Builder
	render(&w, c, m)
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

func render(w io.Writer, c reportConfig, m medians) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("# Wraith side-by-side benchmark\n\n")
	p("Written by bench/run.sh (`make bench`) on %s, from %s. ", time.Now().UTC().Format("2006-01-02 15:04 MST"), c.title)
	p("bench/harness ran every server and load and printed one Go benchmark line per server, load and pass (`%s`); ", c.lines)
	p("benchstat computed every median, confidence interval and ratio below. How to run and read it: bench/README.md.\n\n")

	p("## Targets (issue 6)\n\n")
	p("Medians as benchstat gives them; the ratio is Wraith's median over the other server's.\n\n")
	p("| target | measured | ratio | goal | verdict |\n|---|---|---|---|---|\n")
	for _, t := range targets(m, c.sessions) {
		p("| %s | %s | %s | %s | %s |\n", t.what, t.measured, t.ratio, t.goal, t.verdict())
	}

	p("\n## Side by side (benchstat)\n\n")
	p("`benchstat -col '/server@(ceiling wraith …)'`: one column per server, the plain net/http ceiling first, so every \"vs base\" is a change against the ceiling measured in the same run ")
	p("(~ when benchstat cannot tell it from noise, which takes at least 4 passes; intervals take 6). ")
	p("Units: req/s; p50-ms and p99-ms, wrk's latency percentiles; cpu-us/op, the server's CPU time per request (`/proc/PID/stat`); ")
	p("peak-rss-MiB, VmHWM during that load alone; non2xx and sock-errors per load; other-cores, the cores that neither the server nor wrk kept busy meanwhile; ")
	p("for Start: ready-ms (exec → ready JSON, Wraith only), answer-ms (exec → first 2xx), idle-rss-MiB, and for wraith-10k seeded-rss-MiB and seed-ms.\n\n")
	p("```\n%s```\n", readOr(c.statText))

	if c.goText != "" {
		p("\n## Go benchmarks behind two targets (benchstat)\n\n")
		p("`go test -run '^$' -bench BenchmarkSessionMemory ./twin/engine` and `-bench BenchmarkUp10Twins ./cmd/wraith`:\n\n```\n%s```\n", readOr(c.goText))
	}
	if c.profile != "" {
		p("\n## Where Wraith's time goes\n\n%s", readOr(c.profile))
	}
	if c.gobench != "" {
		p("\nThe Go benchmarks of every package (`go test -bench . -benchmem ./...`) of this run: %s; compare two runs with `benchstat old.txt new.txt`.\n", c.gobench)
	}
	p("\n## Notes\n\n")
	for _, n := range c.noteLines {
		p("- %s\n", n)
	}
	p("- Wraith runs as `serve checkout --seed 42 --clock deterministic` with no rate limit; the ceiling, WireMock and Mountebank return Wraith's own bytes for both routes. stripe-mock answers from its own fixtures.\n")
	p("- Creates are stateful in Wraith and in nothing else here: every create is kept in its session, so Wraith's memory grows with the creates of the post loads.\n")
	p("- Server logs: bench/out/logs/.\n")
}

func readOr(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(%v)\n", err)
	}
	return string(b)
}
