package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/wraithdev/wraith/internal/testbin"
	"github.com/wraithdev/wraith/twin/embedded"
)

func TestBuildVersion(t *testing.T) {
	t.Parallel()
	vcs := []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
		{Key: "vcs.time", Value: "2026-10-14T09:33:24Z"},
		{Key: "vcs.modified", Value: "true"},
	}
	tests := []struct {
		name    string
		stamped string
		bi      *debug.BuildInfo
		want    versionInfo
	}{
		{"no build info", "dev", nil, versionInfo{Version: "dev", Commit: "unknown"}},
		{"checkout build", "dev", &debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Version: "(devel)"}, Settings: vcs},
			versionInfo{Version: "dev", Commit: "0123456789abcdef0123456789abcdef01234567", CommitTime: "2026-10-14T09:33:24Z", Modified: true, Go: "go1.99"}},
		{"go install @version", "dev", &debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Version: "v1.4.0"}},
			versionInfo{Version: "v1.4.0", Commit: "unknown", Go: "go1.99"}},
		{"ldflags win", "v2.0.0", &debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Version: "v1.4.0"}},
			versionInfo{Version: "v2.0.0", Commit: "unknown", Go: "go1.99"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			if want.Go == "" {
				want.Go = runtime.Version()
			}
			want.Platform = runtime.GOOS + "/" + runtime.GOARCH
			if have := buildVersion(tt.stamped, tt.bi); have != want {
				t.Errorf("want %+v, have %+v", want, have)
			}
		})
	}
}

// TestVersionBinary builds wraith as a release would (VCS stamping on, a
// version set with -ldflags) and asks it what it is.
func TestVersionBinary(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a binary")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	rev, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	vcs := err == nil
	bin := filepath.Join(t.TempDir(), "wraith")
	build := exec.Command("go", "build", "-buildvcs="+map[bool]string{true: "true", false: "false"}[vcs],
		"-ldflags", "-X main.version=v9.8.7-test", "-o", bin, "./cmd/wraith")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version", "--format", "json").Output()
	if err != nil {
		t.Fatalf("wraith version --format json: %v", err)
	}
	var v versionInfo
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if v.Version != "v9.8.7-test" || v.Go != runtime.Version() || v.Platform != runtime.GOOS+"/"+runtime.GOARCH {
		t.Errorf("want v9.8.7-test built by %s, have %+v", runtime.Version(), v)
	}
	if vcs {
		// HEAD may have moved since the build; the commit must be one of ours.
		if !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(v.Commit) {
			t.Fatalf("commit: want a git revision (HEAD was %s), have %q", bytes.TrimSpace(rev), v.Commit)
		}
		if typ, err := exec.Command("git", "-C", root, "cat-file", "-t", v.Commit).Output(); err != nil || strings.TrimSpace(string(typ)) != "commit" {
			t.Errorf("commit %s is not a commit of this repository: %v", v.Commit, err)
		}
	}
	text, err := exec.Command(bin, "version").Output()
	if err != nil || !regexp.MustCompile(`(?m)^wraith\s+v9\.8\.7-test$`).Match(text) || !strings.Contains(string(text), runtime.Version()) {
		t.Errorf("wraith version: %v\n%s", err, text)
	}
}

func TestSuggestions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args      []string
		want      []string
		suggested bool
	}{
		{[]string{"serve", "checkout", "--clok", "real"}, []string{"unknown flag: --clok", "Did you mean this?\n\t--clock\n", "wraith serve --help"}, true},
		{[]string{"serve", "checkout", "--fixtrue=baseline"}, []string{"\t--fixture\n"}, true},
		{[]string{"serve", "checkout", "-seed", "1"}, []string{"unknown shorthand flag", "\t--seed\n"}, true},
		{[]string{"inspect", "checkout", "--fromat", "json"}, []string{"\t--format\n"}, true},
		{[]string{"twins", "--verbose"}, []string{"unknown flag: --verbose for wraith twins"}, false},
		{[]string{"srve", "checkout"}, []string{`unknown command "srve"`, "Did you mean this?\n\tserve\n"}, true},
		{[]string{"verison"}, []string{"\tversion\n"}, true},
		{[]string{"serve", "checkout", "--port"}, []string{"flag needs an argument", "wraith serve --help"}, false},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, _, stderr := testFactory(t.TempDir(), nil)
			if code := run(tt.args, f); code != exitUsage {
				t.Fatalf("want exit %d, have %d: %s", exitUsage, code, stderr)
			}
			for _, want := range tt.want {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("want %q in\n%s", want, stderr)
				}
			}
			if have := strings.Contains(stderr.String(), "Did you mean"); have != tt.suggested {
				t.Errorf("suggestion: want %v, have %v\n%s", tt.suggested, have, stderr)
			}
		})
	}
}

func TestLevenshtein(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"clock", "clock", 0}, {"clok", "clock", 1}, {"fixtrue", "fixture", 2},
		{"", "seed", 4}, {"kitten", "sitting", 3}, {"port", "", 4},
	} {
		if have := levenshtein(tt.a, tt.b); have != tt.d {
			t.Errorf("levenshtein(%q, %q): want %d, have %d", tt.a, tt.b, tt.d, have)
		}
	}
}

// goTypeWord matches what leaks when a flag's value has no display name:
// Go identifiers such as epochFlag or durationValue, qualified or pointer
// types, slices, and the sized numeric types.
var goTypeWord = regexp.MustCompile(`^(\*|\[\])|\.|^[a-z]+[A-Z]\w*$|^(u?int(8|16|32|64)|float(32|64)|func|value|interface.*|map\[.*)$`)

func TestHelpShowsNoGoTypeNames(t *testing.T) {
	t.Parallel()
	flagLine := regexp.MustCompile(`^\s+(?:-\w, )?--([\w-]+) (\S+)\s{2,}`)
	f, _, _ := testFactory(t.TempDir(), nil)
	var walk func(cmd *cobra.Command)
	checked := 0
	walk = func(cmd *cobra.Command) {
		if cmd.Hidden {
			return
		}
		path := strings.Fields(cmd.CommandPath())[1:]
		t.Run(strings.Join(append([]string{"wraith"}, path...), " "), func(t *testing.T) {
			hf, stdout, stderr := testFactory(t.TempDir(), nil)
			if code := run(append(path, "--help"), hf); code != exitOK {
				t.Fatalf("--help: exit %d: %s", code, stderr)
			}
			for _, line := range strings.Split(stdout.String(), "\n") {
				m := flagLine.FindStringSubmatch(line)
				if m == nil {
					continue
				}
				checked++
				if goTypeWord.MatchString(m[2]) {
					t.Errorf("--%s shows the Go type name %q; give it a value name (a `NAME` in backquotes in its usage):\n%s", m[1], m[2], line)
				}
				// serve's flags are the ones people type most: all of them
				// carry a display name in capitals.
				if cmd.Name() == "serve" && m[2] != strings.ToUpper(m[2]) {
					t.Errorf("serve --%s shows %q, want a display name in capitals:\n%s", m[1], m[2], line)
				}
			}
		})
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(f))
	if checked < 30 {
		t.Errorf("checked %d flag lines; the help format changed, so this test no longer sees flags", checked)
	}
	for _, word := range []string{"epochFlag", "int64", "*string", "time.Duration", "[]string", "durationValue"} {
		if !goTypeWord.MatchString(word) {
			t.Errorf("goTypeWord does not catch %q", word)
		}
	}
	for _, word := range []string{"SECS", "N", "string", "int", "duration", "PATH"} {
		if goTypeWord.MatchString(word) {
			t.Errorf("goTypeWord catches the display name %q", word)
		}
	}
}

func TestTwinsJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f, _, stderr := testFactory(dir, nil)
	if code := run([]string{"pack", "checkout", "-o", "checkout.twin"}, f); code != exitOK {
		t.Fatalf("pack: exit %d: %s", code, stderr)
	}
	f, stdout, stderr := testFactory(dir, nil)
	if code := run([]string{"twins", "--format", "json"}, f); code != exitOK {
		t.Fatalf("twins --format json: exit %d: %s", code, stderr)
	}
	var doc struct {
		Twins []struct {
			Name, Source, Shadows, Digest string
			Exchanges                     int
			Fixtures                      []string
		}
	}
	dec := json.NewDecoder(stdout)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	byName := map[string]int{}
	for i, tw := range doc.Twins {
		byName[tw.Name] = i
	}
	c, b := doc.Twins[byName["checkout"]], doc.Twins[byName["billing"]]
	if c.Source != filepath.Join(dir, "checkout.twin") || c.Shadows != "embedded" || c.Digest != embeddedDigest(t, "checkout") ||
		c.Exchanges == 0 || strings.Join(c.Fixtures, ",") != "baseline,happy-path" {
		t.Errorf("checkout: have %+v", c)
	}
	if b.Source != "embedded" || b.Shadows != "" || !strings.HasPrefix(b.Digest, "sha256:") {
		t.Errorf("billing: have %+v", b)
	}

	f, stdout, _ = testFactory(dir, nil)
	run([]string{"twins"}, f)
	if !strings.Contains(stdout.String(), "checkout.twin (shadows embedded)") {
		t.Errorf("twins text: want the shadowing named:\n%s", stdout)
	}
}

func TestShadowWarning(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f, _, stderr := testFactory(dir, nil)
	if code := run([]string{"pack", "checkout", "-o", "checkout.twin"}, f); code != exitOK {
		t.Fatalf("pack: exit %d: %s", code, stderr)
	}
	tests := []struct {
		args []string
		warn bool
	}{
		{[]string{"inspect", "checkout"}, true},
		{[]string{"diff", "checkout", "checkout"}, true},
		{[]string{"inspect", "embedded:checkout"}, false},
		{[]string{"inspect", "./checkout.twin"}, false},
		{[]string{"inspect", "billing"}, false},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, stdout, stderr := testFactory(dir, nil)
			if code := run(tt.args, f); code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			n := strings.Count(stderr.String(), "shadows the embedded twin")
			if want := map[bool]int{true: 1, false: 0}[tt.warn]; n != want {
				t.Errorf("want %d warning, have %d:\n%s", want, n, stderr)
			}
			if tt.warn && !strings.Contains(stderr.String(), "embedded:checkout") {
				t.Errorf("the warning does not say how to pick the embedded twin:\n%s", stderr)
			}
			if strings.Contains(stdout.String(), "shadows") {
				t.Errorf("the warning went to stdout:\n%s", stdout)
			}
		})
	}
	// serve warns once, through its logger, and still serves the local twin.
	logs := serveStderrIn(t, dir, "checkout")
	if n := strings.Count(logs, "shadows the embedded twin"); n != 1 || !strings.Contains(logs, "[WARN]") {
		t.Errorf("serve: want 1 shadow warning at WARN, have %d:\n%s", n, logs)
	}
}

// serveStderrIn runs `wraith serve args...` in dir until it is ready, stops
// it with SIGTERM, and returns what it logged.
func serveStderrIn(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	readyPath := filepath.Join(tb.TempDir(), "ready.json")
	cmd := exec.Command(bins.Path(tb, "./cmd/wraith"), append(append([]string{"serve"}, args...), "--ready-json", readyPath)...)
	cmd.Dir, cmd.Env = dir, testbin.Env()
	stderr := &testbin.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(15 * time.Second)
	for {
		if _, err := os.Stat(readyPath); err == nil {
			break
		}
		select {
		case err := <-exited:
			tb.Fatalf("wraith serve exited before it was ready: %v\n%s", err, stderr)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			tb.Fatalf("no ready JSON within 15 s\n%s", stderr)
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			tb.Errorf("wraith serve: %v\n%s", err, stderr)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		tb.Fatalf("wraith serve did not stop on SIGTERM\n%s", stderr)
	}
	return stderr.String()
}

// completeOut runs `wraith __complete args...` as a real process in dir and
// returns the completions, without the directive line.
func completeOut(tb testing.TB, dir string, env []string, args ...string) ([]string, string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bins.Path(tb, "./cmd/wraith"), append([]string{"__complete"}, args...)...)
	cmd.Dir, cmd.Env = dir, append(testbin.Env(), env...)
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("wraith __complete %s: %v", strings.Join(args, " "), err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	directive := lines[len(lines)-1]
	var names []string
	for _, l := range lines[:len(lines)-1] {
		name, _, _ := strings.Cut(l, "\t")
		names = append(names, name)
	}
	return names, directive
}

func TestCompletion(t *testing.T) {
	t.Parallel()
	dir, search := t.TempDir(), t.TempDir()
	f, _, stderr := testFactory(dir, nil)
	if code := run([]string{"pack", "billing", "-o", "local.twin"}, f); code != exitOK {
		t.Fatalf("pack: exit %d: %s", code, stderr)
	}
	if code := run([]string{"pack", "checkout", "-o", filepath.Join(search, "onpath.twin")}, f); code != exitOK {
		t.Fatalf("pack: exit %d: %s", code, stderr)
	}
	// A twin with fault profiles of its own: one new, one that replaces
	// the built-in slow; and one serve refuses (a rule's route is none
	// of the twin's).
	faultyTwin(t, filepath.Join(dir, "faulty"), outageProfile+slowerProfile)
	faultyTwin(t, filepath.Join(dir, "broken"), strings.ReplaceAll(outageProfile, `method = "GET"`, `method = "GET", route = "/v1/nowhere"`))
	env := []string{"WRAITH_TWINS_PATH=" + search}
	noFiles := ":4" // cobra.ShellCompDirectiveNoFileComp
	tests := []struct {
		args      []string
		want      string
		directive string
	}{
		{[]string{"serve", ""}, strings.Join(twinNamesWith(t, "local", "onpath"), ","), ":0"},
		{[]string{"serve", "ch"}, "checkout", ":0"},
		{[]string{"inspect", "lo"}, "local", ":0"},
		{[]string{"diff", "checkout", "o"}, "onpath", ":0"},
		{[]string{"diff", "checkout", "billing", ""}, "", noFiles},
		{[]string{"serve", "checkout", "--fixture", ""}, "baseline,happy-path", noFiles},
		{[]string{"serve", "billing", "--fixture", ""}, "baseline,checkout:baseline,checkout:happy-path", noFiles},
		{[]string{"serve", "local", "--fixture", "checkout:h"}, "checkout:happy-path", noFiles},
		{[]string{"serve", "checkout", "--clock", ""}, "real,deterministic,fixed", noFiles},
		{[]string{"serve", "checkout", "--unknown-entity", ""}, "synthesize,not_found", noFiles},
		{[]string{"serve", "checkout", "--log-format", ""}, "text,json", noFiles},
		{[]string{"serve", "checkout", "--fault-profile", ""}, "flaky,none,slow", noFiles},
		{[]string{"serve", "billing", "--fault-profile", "s"}, "slow", noFiles},
		{[]string{"serve", "./faulty", "--fault-profile", ""}, "flaky,none,outage,slow", noFiles},
		{[]string{"serve", "./broken", "--fault-profile", ""}, "", noFiles},
		{[]string{"serve", "nosuchtwin", "--fault-profile", ""}, "", noFiles},
		{[]string{"serve", "--fault-profile", ""}, "", noFiles},
		{[]string{"env", "--format", ""}, "json,shell,dotenv,github", noFiles},
		{[]string{"twins", "--format", ""}, "text,json", noFiles},
		{[]string{"completion", ""}, "bash,zsh,fish", noFiles},
		{[]string{"ver"}, "version", noFiles},
		{[]string{"serve", "checkout", "--cl"}, "--clock,--clock-epoch,--clock-step", noFiles},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			names, directive := completeOut(t, dir, env, tt.args...)
			if have := strings.Join(names, ","); have != tt.want || directive != tt.directive {
				t.Errorf("want %q %s, have %q %s", tt.want, tt.directive, have, directive)
			}
		})
	}

	for _, shell := range completionShells {
		t.Run("script "+shell, func(t *testing.T) {
			cmd := exec.Command(bins.Path(t, "./cmd/wraith"), "completion", shell)
			out, err := cmd.Output()
			if err != nil || !bytes.Contains(out, []byte("__complete")) || !bytes.Contains(out, []byte("wraith")) {
				t.Errorf("completion %s: %v\n%.300s", shell, err, out)
			}
		})
	}
	f, _, stderr = testFactory(dir, nil)
	if code := run([]string{"completion", "powershell"}, f); code != exitUsage || !strings.Contains(stderr.String(), "want bash, zsh, fish") {
		t.Errorf("completion powershell: want exit 2 naming the shells, have %d: %s", code, stderr)
	}
}

const outageProfile = `
[[fault_profiles]]
name = "outage"
description = "every read fails"
[[fault_profiles.rules]]
name = "read-500"
match = { method = "GET" }
when = { every = 1 }
effect = { error = "api_error" }
`

const slowerProfile = `
[[fault_profiles]]
name = "slow"
description = "replaces the built-in slow"
[[fault_profiles.rules]]
name = "slower-read"
match = { method = "GET" }
when = { every = 1 }
latency = "3s"
`

// faultyTwin writes the embedded checkout twin to dir with profiles, TOML
// [[fault_profiles]], added to its twin.toml.
func faultyTwin(tb testing.TB, dir, profiles string) {
	tb.Helper()
	sub, err := fs.Sub(embedded.FS(), "checkout")
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.CopyFS(dir, sub); err != nil {
		tb.Fatal(err)
	}
	manifest := filepath.Join(dir, "twin.toml")
	b, err := os.ReadFile(manifest)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(manifest, append(b, "\n"+profiles...), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// TestNoColor keeps the promise of docs/cli.md: Wraith writes no colour, so
// NO_COLOR holds. Code that turns colour on must consult NO_COLOR, and what
// the commands print carries no escape sequence even for a colour terminal.
func TestNoColor(t *testing.T) {
	t.Parallel()
	colour := regexp.MustCompile(`hclog\.(AutoColor|ForceColor)|fatih/color|\\x1b\[|\\033\[|\\u001b\[`)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	scanned := 0
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		// Hidden folders (.git, and the git-ignored downloads: .specs,
		// .sdk, .panel) and node_modules hold no code of Wraith's; walking
		// them took most of this test's time.
		if d.IsDir() && path != root && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "cli_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		scanned++
		if colour.Match(b) && !bytes.Contains(b, []byte("NO_COLOR")) {
			t.Errorf("%s turns colour on without consulting NO_COLOR", path)
		}
		return nil
	})
	if err != nil || scanned < 50 {
		t.Fatalf("scanned %d Go files: %v", scanned, err)
	}

	bin := bins.Path(t, "./cmd/wraith")
	for _, args := range [][]string{{"--help"}, {"serve", "--help"}, {"twins"}, {"srve"}, {"serve", "nope"}, {"version"}} {
		cmd := exec.Command(bin, args...)
		cmd.Dir = t.TempDir()
		cmd.Env = append(testbin.Env(), "TERM=xterm-256color", "CLICOLOR_FORCE=1")
		out, _ := cmd.CombinedOutput()
		if bytes.IndexByte(out, 0x1b) >= 0 {
			t.Errorf("wraith %s writes an escape sequence:\n%q", strings.Join(args, " "), out)
		}
	}
}

// twinNamesWith returns the embedded twins' names and extra, sorted.
func twinNamesWith(tb testing.TB, extra ...string) []string {
	tb.Helper()
	entries, err := fs.ReadDir(embedded.FS(), ".")
	if err != nil {
		tb.Fatal(err)
	}
	names := extra
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}
