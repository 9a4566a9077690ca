package main

import (
	"context"
	"debug/buildinfo"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wraithdev/wraith/internal/testbin"
)

// fanOutSpec is a description of width^levels-node samples: ops operations
// answer A0, and each of A0..A(levels-1) has width required properties
// referring to the next. With levels 1 and self, A0 refers to itself.
func fanOutSpec(levels, width, ops int, self bool) string {
	var schemas, paths []string
	for l := 0; l < levels; l++ {
		next := fmt.Sprintf("A%d", l+1)
		if self {
			next = "A0"
		}
		var req, props []string
		for i := 0; i < width; i++ {
			req = append(req, fmt.Sprintf(`"p%d"`, i))
			props = append(props, fmt.Sprintf(`"p%d":{"$ref":"#/components/schemas/%s"}`, i, next))
		}
		schemas = append(schemas, fmt.Sprintf(`"A%d":{"type":"object","required":[%s],"properties":{%s}}`, l, strings.Join(req, ","), strings.Join(props, ",")))
	}
	if !self {
		schemas = append(schemas, fmt.Sprintf(`"A%d":{"type":"string"}`, levels))
	}
	for i := 0; i < ops; i++ {
		paths = append(paths, fmt.Sprintf(`"/r%d":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/A0"}}}}}}}`, i))
	}
	return `{"openapi":"3.0.3","info":{"title":"Fan","version":"1"},"paths":{` + strings.Join(paths, ",") +
		`},"components":{"schemas":{` + strings.Join(schemas, ",") + `}}}`
}

// TestImportFanOutRefused: a description of a few hundred bytes whose
// sample would be billions of nodes is refused by import (exit 1) and by
// serve SPEC.json (exit 2, a file serve cannot serve), each naming the
// schema; import writes nothing. It took both past 3 GiB.
func TestImportFanOutRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fan.json"), []byte(fanOutSpec(1, 6, 1, true)), 0o644)
	const want = "components.schemas.A0: a sample of it would pass 100000 nodes: the schema fans out (6 references to itself)"
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"import", "openapi", "fan.json", "-o", "twins/fan"}, exitRuntime},
		{[]string{"serve", filepath.Join(dir, "fan.json"), "--port", "0"}, exitUsage},
	} {
		f, _, stderr := testFactory(dir, nil)
		if code := run(tt.args, f); code != tt.code || !strings.Contains(stderr.String(), want) {
			t.Errorf("%v: want exit %d saying %q, have %d: %s", tt.args, tt.code, want, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "twins")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused import wrote %s: %v", filepath.Join(dir, "twins"), err)
	}
}

// TestImportInterrupted sends SIGINT to a real `wraith import openapi`
// busy with a slow (but bounded) description: it stops, says so, exits 1
// and leaves no output folder. The import used to ignore the signal and
// finish.
func TestImportInterrupted(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			// 16 operations of a 56,000-node sample each: seconds of
			// sampling, within every budget.
			os.WriteFile(filepath.Join(dir, "slow.json"), []byte(fanOutSpec(6, 6, 16, false)), 0o644)
			cmd := exec.Command(bins.Path(t, "./cmd/wraith"), "import", "openapi", "slow.json", "-o", "twins/slow")
			cmd.Dir, cmd.Env = dir, testbin.Env()
			stderr := &testbin.Buffer{}
			cmd.Stderr = stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			t.Cleanup(func() {
				cmd.Process.Kill()
				<-exited
			})
			// The line comes after the signal handler is in place and
			// before the import starts.
			testbin.WaitUntil(t, 15*time.Second, "the importing line", func() bool {
				return strings.Contains(stderr.String(), "wraith: importing slow.json")
			})
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			var err error
			select {
			case err = <-exited:
			case <-time.After(30 * time.Second):
				t.Fatalf("import did not stop within 30 s of %v\n%s", sig, stderr)
			}
			exited <- err // for the cleanup
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitRuntime {
				t.Errorf("exit: want status %d, have %v\n%s", exitRuntime, err, stderr)
			}
			want := fmt.Sprintf("wraith: import slow.json stopped (%s signal received): nothing was written to twins/slow", sig)
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr: want %q, have %s", want, stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "twins")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("an interrupted import left %s: %v", filepath.Join(dir, "twins"), err)
			}
		})
	}
}

// badPathSpec has a path the router cannot serve (x{id} is not a whole
// segment) beside one it can, and a version that dates it.
const badPathSpec = `{"openapi":"3.0.3","info":{"title":"Files","version":"2026-08-26.files"},
"paths":{
 "/files/x{id}":{"get":{"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object"}}}}}}},
 "/ping":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","required":["ok"],"properties":{"ok":{"type":"boolean"}}}}}}}}}},
"components":{}}`

// TestImportServeAgree imports a description holding a path the router
// cannot serve, then serves the folder and the description itself as real
// processes: import skips the path with a report line, and both serve the
// rest, dated by the description's version. Import used to write the
// route, which serve then refused, and imported twins said they were
// recorded at the zero time.
func TestImportServeAgree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := filepath.Join(dir, "files.json")
	os.WriteFile(spec, []byte(badPathSpec), 0o644)
	f, _, stderr := testFactory(dir, nil)
	if code := run([]string{"import", "openapi", "files.json", "-o", "twins/files", "--name", "files"}, f); code != exitOK {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	if want := "1 skipped (paths the router cannot serve)"; !strings.Contains(stderr.String(), want) {
		t.Errorf("import: want %q, have %s", want, stderr)
	}
	report, _ := os.ReadFile(filepath.Join(dir, "twins", "files", "import-report.json"))
	for _, want := range []string{`"operations_skipped": 1`, `"subject": "GET /files/x{id}"`, "not a whole segment"} {
		if !strings.Contains(string(report), want) {
			t.Errorf("import-report.json: want %s, have %s", want, report)
		}
	}
	for _, twin := range []string{filepath.Join(dir, "twins", "files"), spec} {
		t.Run(filepath.Base(twin), func(t *testing.T) {
			p := startServe(t, twin, "--port", "0")
			resp, err := http.Get(p.ready.Serve.URL + "/ping")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("GET /ping: want 200, have %d", resp.StatusCode)
			}
			if have := resp.Header.Get("X-Wraith-Recorded-At"); have != "2026-08-26T00:00:00Z" {
				t.Errorf("X-Wraith-Recorded-At: want the description's date 2026-08-26T00:00:00Z, have %q", have)
			}
			if have := resp.Header.Get("X-Wraith-Twin-Age"); have == "" || have == "0" {
				t.Errorf("X-Wraith-Twin-Age: want the seconds since 2026-08-26, have %q", have)
			}
		})
	}
}

// aliasBombYAML is the review's 1.3 KB description: a schema whose
// properties are YAML aliases, eight wide and eight deep, which expands to
// some 93 million nodes.
func aliasBombYAML() string {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths:\n  /things:\n    get:\n      responses:\n        \"200\":\n          description: ok\n          content:\n            application/json:\n              schema:\n                type: object\n                properties:\n")
	props := make([]string, 8)
	for l := 'a'; l <= 'h'; l++ {
		for i := range props {
			props[i] = fmt.Sprintf("x%d: {type: string}", i+1)
			if l > 'a' {
				props[i] = fmt.Sprintf("y%d: *%c", i+1, l-1)
			}
		}
		fmt.Fprintf(&b, "                  %c: &%c {type: object, properties: {%s}}\n", l, l, strings.Join(props, ", "))
	}
	return b.String()
}

// childMemoryKiB bounds the address space of the children
// TestImportAliasBombRefused runs: the refusal needs some 20 MB, and the
// import it replaces ran out of memory at 1.85 GB, so on a regression the
// child fails on its own instead of taking the machine's memory.
const childMemoryKiB = 2_000_000

// TestImportAliasBombRefused runs a real `wraith import openapi` and a real
// `wraith serve SPEC.yaml` on the review's YAML alias bomb, in children
// whose address space is bounded (ulimit -v): import exits 1 and serve 2,
// each naming the alias and saying to write the description without
// aliases or as JSON, and import writes nothing. Both used to die with
// "fatal error: out of memory" (1.85 GB, 7.5 s and 5.3 s): kin-openapi
// decodes a description one struct at a time, each with a fresh go-yaml
// alias budget.
func TestImportAliasBombRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "bomb.yaml"), []byte(aliasBombYAML()), 0o644)
	bin := bins.Path(t, "./cmd/wraith")
	limit := fmt.Sprintf("ulimit -v %d && ", childMemoryKiB)
	if info, err := buildinfo.ReadFile(bin); err == nil && slices.Contains(info.Settings, debug.BuildSetting{Key: "-race", Value: "true"}) {
		limit = "" // the race detector's shadow memory needs far more address space
	}
	const want = "#/paths/~1things/get/responses/200/content/application~1json/schema/properties/h/properties/y1 (line 21): YAML aliases expand this description of 1291 bytes and 224 nodes to 93130688 nodes (this alias, *g, stands for 10186165 of them; 56 aliases in all): wraith lets aliases add at most 1000000 nodes; write the description without aliases, or as JSON"
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"import", "openapi", "bomb.yaml", "-o", "twins/bomb"}, exitRuntime},
		{[]string{"serve", "bomb.yaml", "--port", "0"}, exitUsage},
	} {
		t.Run(tt.args[0], func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", limit + `exec "$0" "$@"`, bin}, tt.args...)...)
			cmd.Dir, cmd.Env = dir, testbin.Env()
			stderr := &testbin.Buffer{}
			cmd.Stderr = stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tt.code || !strings.Contains(stderr.String(), want) {
				t.Errorf("want exit %d saying %q, have %v: %.2000s", tt.code, want, err, stderr)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "twins")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused import wrote %s: %v", filepath.Join(dir, "twins"), err)
	}
}
