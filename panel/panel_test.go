//go:build panel

package panel_test

import (
	"bufio"
	"encoding/json"
	"fmt"
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

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "wraith-panel-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bins = testbin.New(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

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
	answered, valid     int
	misses, sent        int
	undeclared          int // answers whose status the operation does not list
	failures            []string
	err                 string
}

// TestPanel imports, serves, drives and sweeps every description of the
// panel, and prints the table. A description that cannot be fetched
// fails the test: make panel fetches them first.
func TestPanel(t *testing.T) {
	wraith := bins.Path(t, "./cmd/wraith")
	var rows []*row
	for _, d := range readPanel(t) {
		r := &row{name: d.name}
		rows = append(rows, r)
		t.Run(d.name, func(t *testing.T) { runOne(t, wraith, d, r) })
	}
	report(t, rows)
}

func runOne(t *testing.T, wraith string, d description, r *row) {
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
	for i := range tw.Manifest.Resources {
		res := &tw.Manifest.Resources[i]
		flow(c, res)
	}
	sweep(c, tw.Manifest.Resources)
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
// of them go to .panel/failures.txt.
func report(t *testing.T, rows []*row) {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-22s %8s %5s %4s %9s %8s %7s %11s %10s %11s %10s %6s\n", "description", "KB", "ops", "res", "import ms", "start ms", "RSS MiB", "flow", "answered", "valid", "undeclared", "misses")
	var fp, fs, an, va, un int
	for _, r := range rows {
		if r.err != "" {
			fmt.Fprintf(&b, "%-22s %s\n", r.name, r.err)
			continue
		}
		fmt.Fprintf(&b, "%-22s %8d %5d %4d %9d %8d %7.1f %5d/%-5d %10d %5d/%-5d %10d %6d\n", r.name, r.bytes/1000, r.ops, r.resources, r.importMS, r.startMS, float64(r.rssKiB)/1024, r.flowPass, r.flowSteps, r.answered, r.valid, r.answered, r.undeclared, r.misses)
		fp, fs, an, va, un = fp+r.flowPass, fs+r.flowSteps, an+r.answered, va+r.valid, un+r.undeclared
	}
	fmt.Fprintf(&b, "%-22s %8s %5s %4s %9s %8s %7s %5d/%-5d %10d %5d/%-5d %10d\n", "all", "", "", "", "", "", "", fp, fs, an, va, an, un)
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
	os.WriteFile(filepath.Join("..", ".panel", "report.txt"), []byte(b.String()), 0o644)
	var all strings.Builder
	for _, r := range rows {
		for _, f := range r.failures {
			fmt.Fprintf(&all, "%s: %s\n", r.name, f)
		}
	}
	os.WriteFile(filepath.Join("..", ".panel", "failures.txt"), []byte(all.String()), 0o644)
}
