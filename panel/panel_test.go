//go:build panel

package panel_test

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wraithdev/wraith/internal/testbin"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/openapi"
)

var bins *testbin.Set

// only runs the descriptions it names (comma-separated), for a run of
// one description while its import is being worked on: the whole panel
// takes minutes (make panel PANEL_ONLY=petstore,slack).
var only = flag.String("panel.only", "", "run only these descriptions of descriptions.tsv (comma-separated names)")

// prismToo drives Prism beside each twin when it is installed; off, a
// run has wraith's rows only, in a fraction of the time.
var prismToo = flag.Bool("panel.prism", true, "drive Prism beside each twin when .panel/prism has it")

func TestMain(m *testing.M) { os.Exit(testbin.Run(m, &bins)) }

// description is one line of descriptions.tsv.
type description struct {
	name, pkg, path, sum string
}

func readPanel(tb testing.TB) []description {
	tb.Helper()
	f, err := os.Open("descriptions.tsv")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []description
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c := strings.Split(line, "\t")
		if len(c) != 4 {
			tb.Fatalf("descriptions.tsv: %q: want 4 tab-separated columns", line)
		}
		out = append(out, description{c[0], c[1], c[2], c[3]})
	}
	return out
}

// selected are the descriptions names lists, or all of them when names
// is empty; a name the panel does not have fails the test.
func selected(tb testing.TB, all []description, names string) []description {
	tb.Helper()
	if names == "" {
		return all
	}
	by := map[string]description{}
	for _, d := range all {
		by[d.name] = d
	}
	var out []description
	for _, n := range strings.Split(names, ",") {
		d, ok := by[strings.TrimSpace(n)]
		if !ok {
			tb.Fatalf("-panel.only %q: descriptions.tsv has no description %q", names, n)
		}
		out = append(out, d)
	}
	return out
}

// specFile is where fetch.sh put a description.
func specFile(d description) string {
	return filepath.Join("..", ".panel", d.name+filepath.Ext(d.path))
}

// row is one description's line of the report.
type row struct {
	name                string
	bytes               int64
	resources, ops      int
	importMS, startMS   int64
	rssKiB              int64
	flowPass, flowSteps int
	tally                     // answers of the flows and the sweep
	refusals            tally // answers of the bad requests (sendBad)
	misses, sent        int
	bad, refused        int // writes sent without a required property, and of those answered 400 or 422
	failures            []string
	err                 string
}

// tally counts answers validated against the description.
type tally struct {
	answered, valid int
	undeclared      int // answers whose status the operation does not list
	gaps            int // of those, answers no true answer of that status validates (client.send)
}

// TestPanel imports, serves, drives and sweeps every description of the
// panel, and prints the table. A description that cannot be fetched
// fails the test: make panel fetches them first.
func TestPanel(t *testing.T) {
	wraith := bins.Path(t, "./cmd/wraith")
	prism := filepath.Join("..", ".panel", "prism", "node_modules", ".bin", "prism")
	if !*prismToo {
		prism = ""
	} else if !fileExists(prism) {
		prism = ""
		t.Log("Prism is not installed in .panel/prism (make panel installs it): the table has wraith's rows only")
	}
	var rows []*row
	for _, d := range selected(t, readPanel(t), *only) {
		r := &row{name: d.name}
		rows = append(rows, r)
		var tw *format.Twin
		t.Run(d.name, func(t *testing.T) { tw = runOne(t, wraith, d, r) })
		if prism != "" && tw != nil {
			pr := &row{name: d.name + " (prism)", bytes: r.bytes, ops: r.ops, resources: r.resources}
			rows = append(rows, pr)
			t.Run(d.name+"/prism", func(t *testing.T) { runPrism(t, prism, d, tw, pr) })
		}
	}
	report(t, rows)
}

// runOne imports and serves one description, runs the flows and the
// sweep, and returns the imported twin for Prism's run.
func runOne(t *testing.T, wraith string, d description, r *row) *format.Twin {
	spec := specFile(d)
	b, err := os.ReadFile(spec)
	if err != nil {
		r.err = "not fetched"
		t.Fatalf("%v: run make panel, which fetches the panel first", err)
	}
	r.bytes = int64(len(b))
	doc, err := openapi.Parse(b)
	if err != nil {
		r.err = "parse: " + err.Error()
		t.Fatalf("parse %s: %v", spec, err)
	}
	dir := t.TempDir()
	twinDir := filepath.Join(dir, d.name)
	args := []string{"import", "openapi", spec, "-o", twinDir, "--name", d.name}
	if ov := filepath.Join("overlays", d.name+".toml"); fileExists(ov) {
		args = append(args, "--overlay", ov)
	}
	start := time.Now()
	if out, err := exec.Command(wraith, args...).CombinedOutput(); err != nil {
		r.err = "import failed"
		t.Fatalf("wraith %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	r.importMS = time.Since(start).Milliseconds()
	tw, err := format.Load(os.DirFS(twinDir), twinDir)
	if err != nil {
		r.err = "load: " + err.Error()
		t.Fatalf("load the imported twin: %v", err)
	}
	r.resources, r.ops = len(tw.Manifest.Resources), len(openapi.OperationsOf(doc))
	srv := startServe(t, wraith, twinDir, r)
	c := &client{t: t, base: srv, doc: doc, row: r, index: indexOps(doc)}
	drive(c, tw)
	return tw
}

// drive runs every resource's flow, then the sweep.
func drive(c *client, tw *format.Twin) {
	for i := range tw.Manifest.Resources {
		flow(c, &tw.Manifest.Resources[i])
	}
	sweep(c, tw.Manifest.Resources)
}

// runPrism serves the description with Prism's mock server and drives it
// as the twin was driven, through the twin's resources: Prism answers
// from the description alone (no state, no sessions) and serves paths
// without the servers' base path.
func runPrism(t *testing.T, prism string, d description, tw *format.Twin, r *row) {
	b, err := os.ReadFile(specFile(d))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close() // Prism binds it itself; another process taking it first fails the wait below
	cmd := exec.Command(prism, "mock", specFile(d), "-h", "127.0.0.1", "-p", strconv.Itoa(port))
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	// Prism reads Figma's description for about a minute on an idle
	// machine before it listens; on a loaded one, longer.
	testbin.WaitUntil(t, 3*time.Minute, "Prism to listen", func() bool {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	r.startMS = time.Since(start).Milliseconds()
	r.rssKiB = rss(cmd.Process.Pid)
	c := &client{t: t, base: base, doc: doc, row: r, index: indexOps(doc), noBase: true, peer: true}
	drive(c, tw)
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// startServe starts `wraith serve DIR` on port 0 and waits for its ready
// document; it records the time to ready and the idle resident memory.
func startServe(t *testing.T, wraith, dir string, r *row) string {
	ready := filepath.Join(t.TempDir(), "ready.json")
	cmd := exec.Command(wraith, "serve", dir, "--port", "0", "--ready-json", ready, "--unknown-entity", "not_found")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	var doc struct {
		Serve struct {
			URL string `json:"url"`
		} `json:"serve"`
	}
	testbin.WaitUntil(t, 30*time.Second, "wraith serve's ready document", func() bool {
		b, err := os.ReadFile(ready)
		return err == nil && json.Unmarshal(b, &doc) == nil && doc.Serve.URL != ""
	})
	r.startMS = time.Since(start).Milliseconds()
	r.rssKiB = rss(cmd.Process.Pid)
	return strings.TrimSuffix(doc.Serve.URL, "/")
}

// rss is a process's resident memory in KiB, from /proc, or 0.
func rss(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			return n
		}
	}
	return 0
}

// report prints the table, and each description's first failures; all
// of them go to .panel/failures.txt (failures.only.txt for a run of
// some descriptions).
func report(t *testing.T, rows []*row) {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-30s %8s %5s %4s %9s %8s %7s %11s %10s %11s %10s %4s %9s %9s %6s\n", "description", "KB", "ops", "res", "import ms", "start ms", "RSS MiB", "flow", "answered", "valid", "undeclared", "gap", "refused", "its valid", "misses")
	type total struct {
		fp, fs, bad, ref  int
		answers, refusals tally
	}
	add := func(t *tally, r tally) {
		t.answered, t.valid, t.undeclared, t.gaps = t.answered+r.answered, t.valid+r.valid, t.undeclared+r.undeclared, t.gaps+r.gaps
	}
	var wraith, prism total
	for _, r := range rows {
		if r.err != "" {
			fmt.Fprintf(&b, "%-30s %s\n", r.name, r.err)
			continue
		}
		fmt.Fprintf(&b, "%-30s %8d %5d %4d %9d %8d %7.1f %5d/%-5d %10d %5d/%-5d %10d %4d %4d/%-4d %4d/%-4d %6d\n", r.name, r.bytes/1000, r.ops, r.resources, r.importMS, r.startMS, float64(r.rssKiB)/1024, r.flowPass, r.flowSteps, r.answered, r.valid, r.answered, r.undeclared, r.gaps, r.refused, r.bad, r.refusals.valid, r.refusals.answered-r.refusals.gaps, r.misses)
		tt := &wraith
		if strings.HasSuffix(r.name, "(prism)") {
			tt = &prism
		}
		tt.fp, tt.fs, tt.bad, tt.ref = tt.fp+r.flowPass, tt.fs+r.flowSteps, tt.bad+r.bad, tt.ref+r.refused
		add(&tt.answers, r.tally)
		add(&tt.refusals, r.refusals)
	}
	for _, tt := range []struct {
		name string
		t    total
	}{{"all (wraith)", wraith}, {"all (prism)", prism}} {
		if a := tt.t.answers; a.answered > 0 {
			fmt.Fprintf(&b, "%-30s %8s %5s %4s %9s %8s %7s %5d/%-5d %10d %5d/%-5d %10d %4d %4d/%-4d %4d/%-4d\n", tt.name, "", "", "", "", "", "", tt.t.fp, tt.t.fs, a.answered, a.valid, a.answered, a.undeclared, a.gaps, tt.t.ref, tt.t.bad, tt.t.refusals.valid, tt.t.refusals.answered-tt.t.refusals.gaps)
		}
	}
	// A gap is an answer no true answer of its status validates: of a
	// class (2xx, 4xx) its operation lists no status of and has no
	// default for, a 404 where it lists no status it says is not found,
	// or a refusal where it lists no 400, 422 or default. The description
	// judges the others only.
	for _, tt := range []struct {
		name string
		t    total
	}{{"wraith", wraith}, {"prism", prism}} {
		if a := tt.t.answers; a.answered-a.gaps > 0 {
			judged := a.answered - a.gaps
			fmt.Fprintf(&b, "%s: of the %d answers the description can judge, %d valid (%.1f%%); %d gaps apart, which no true answer validates\n", tt.name, judged, a.valid, 100*float64(a.valid)/float64(judged), a.gaps)
		}
		if tt.t.bad > 0 {
			r := tt.t.refusals
			fmt.Fprintf(&b, "%s: of %d bad requests, %d refused with 400 or 422; of their %d answers the description can judge, %d valid\n", tt.name, tt.t.bad, tt.t.ref, r.answered-r.gaps, r.valid)
		}
	}
	for _, r := range rows {
		for i, f := range r.failures {
			if i == 12 {
				fmt.Fprintf(&b, "  %s: ... %d more\n", r.name, len(r.failures)-i)
				break
			}
			fmt.Fprintf(&b, "  %s: %s\n", r.name, f)
		}
	}
	fmt.Print(b.String())
	// A run of some descriptions keeps the whole panel's report.
	suffix := ".txt"
	if *only != "" {
		suffix = ".only.txt"
	}
	os.WriteFile(filepath.Join("..", ".panel", "report"+suffix), []byte(b.String()), 0o644)
	var all strings.Builder
	for _, r := range rows {
		for _, f := range r.failures {
			fmt.Fprintf(&all, "%s: %s\n", r.name, f)
		}
	}
	os.WriteFile(filepath.Join("..", ".panel", "failures"+suffix), []byte(all.String()), 0o644)
}
