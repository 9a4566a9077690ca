package gitworld

import (
	"bytes"
	"errors"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// clock is the session time the tests commit at.
var clock = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

func sig(minutes int) Signature {
	return Signature{Name: "Wraith User", Email: "wraith-user@users.noreply.github.com", When: clock.Add(time.Duration(minutes) * time.Minute)}
}

// newRepo makes a World with one auto_init repository.
func newRepo(tb testing.TB, l Limits) (*World, *Repo) {
	tb.Helper()
	w := New(l)
	r, err := w.CreateRepo("octo/demo", RepoOptions{AutoInit: true, Author: sig(0)})
	if err != nil {
		tb.Fatal(err)
	}
	return w, r
}

// gitCLI runs the real git under a temporary HOME with a fixed
// configuration, so that neither the machine's nor the user's settings
// change what it does.
type gitCLI struct {
	tb   testing.TB
	home string
	env  []string
	// protocol, when set, is the protocol.version every command asks for
	// (git 2.39 asks for 2 by default, which the handler answers as 0).
	protocol string
}

func newGit(tb testing.TB) *gitCLI {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("CI=true: git: %v (make git-client installs it)", err)
		}
		tb.Skipf("git: %v: these tests drive the real client (make git-client installs it)", err)
	}
	home := tb.TempDir()
	cfg := "[user]\n\tname = Agent\n\temail = agent@example.com\n[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(cfg), 0o600); err != nil {
		tb.Fatal(err)
	}
	env := []string{
		"HOME=" + home, "PATH=" + os.Getenv("PATH"),
		"GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C",
		"GIT_AUTHOR_DATE=2026-03-04T06:00:00Z", "GIT_COMMITTER_DATE=2026-03-04T06:00:00Z",
	}
	return &gitCLI{tb: tb, home: home, env: env}
}

// run runs git in dir and returns its standard output; a failure fails
// the test with git's own words.
func (g *gitCLI) run(dir string, args ...string) string {
	g.tb.Helper()
	out, err := g.try(dir, args...)
	if err != nil {
		g.tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// try runs git and returns its output (standard error included on
// failure) and error.
func (g *gitCLI) try(dir string, args ...string) (string, error) {
	if g.protocol != "" {
		args = append([]string{"-c", "protocol.version=" + g.protocol}, args...)
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = g.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		return stdout.String() + stderr.String(), err
	}
	return stdout.String(), nil
}

// serve serves w's smart HTTP on 127.0.0.1:0 and returns its base URL.
func serve(tb testing.TB, w *World) string {
	tb.Helper()
	srv := httptest.NewServer(w.Handler())
	tb.Cleanup(srv.Close)
	return srv.URL
}

func mustErr(tb testing.TB, err, want error) {
	tb.Helper()
	if !errors.Is(err, want) {
		tb.Fatalf("want an error wrapping %v, have %v", want, err)
	}
}

func must[T any](tb testing.TB) func(T, error) T {
	return func(v T, err error) T {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
		return v
	}
}
