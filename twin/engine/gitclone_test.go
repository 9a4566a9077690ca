package engine

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v84/github"
)

// gitRun runs the real git in dir, under home's configuration alone,
// and returns its standard output; a failure fails the test unless
// mayFail, with git's own words.
func gitRun(tb testing.TB, home, dir string, mayFail bool, args ...string) (string, error) {
	tb.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C",
		"GIT_AUTHOR_DATE=2026-03-04T06:00:00Z", "GIT_COMMITTER_DATE=2026-03-04T06:00:00Z"}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil && !mayFail {
		tb.Fatalf("git %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return strings.TrimSpace(out.String()), err
}

// TestGitHubGitCLI clones, commits and pushes a branch with the real git
// against the github twin, in the session the credential's .wraith.
// suffix names (in the password, as git sends a token), and the REST API
// sees the pushed branch and its commit; another session's credential
// finds no such repository.
func TestGitHubGitCLI(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true: git: %v (make git-client installs it)", err)
		}
		t.Skipf("git: %v: this test drives the real client (make git-client installs it)", err)
	}
	url := httpTwin(t, newGitHub(t))
	ctx := context.Background()
	gh := gitHubClient(t, &httptest.Server{URL: url}, "agent-17")
	if _, resp, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("demo"), AutoInit: github.Ptr(true)}); err != nil || resp.StatusCode != 201 {
		t.Fatalf("create repository: %v", err)
	}

	home := t.TempDir()
	cfg := "[user]\n\tname = Agent\n\temail = agent@example.com\n[init]\n\tdefaultBranch = main\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(url, "http://")
	remote := "http://x:ghp_token.wraith.agent-17@" + host + "/wraith-user/demo.git"
	work := filepath.Join(t.TempDir(), "demo")
	gitRun(t, home, home, false, "clone", remote, work)
	readme, err := os.ReadFile(filepath.Join(work, "README.md"))
	if err != nil || string(readme) != "# demo" {
		t.Fatalf("the clone's README.md: want %q, have %q (%v)", "# demo", readme, err)
	}
	gitRun(t, home, work, false, "switch", "-c", "topic")
	if err := os.WriteFile(filepath.Join(work, "hello.go"), []byte("package hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, home, work, false, "add", "hello.go")
	gitRun(t, home, work, false, "commit", "-q", "-m", "add hello")
	head, _ := gitRun(t, home, work, false, "rev-parse", "HEAD")
	gitRun(t, home, work, false, "push", "-q", "origin", "topic")

	br, resp, err := gh.Repositories.GetBranch(ctx, "wraith-user", "demo", "topic", 0)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the pushed branch through the REST API: %v", err)
	}
	if want, have := head, br.GetCommit().GetSHA(); want != have {
		t.Errorf("topic's commit: want the pushed %s, have %s", want, have)
	}
	if want, have := "add hello", br.GetCommit().GetCommit().GetMessage(); want != have {
		t.Errorf("topic's message: want %q, have %q", want, have)
	}
	cmp, _, err := gh.Repositories.CompareCommits(ctx, "wraith-user", "demo", "main", "topic", nil)
	if err != nil || cmp.GetAheadBy() != 1 || len(cmp.Files) != 1 || cmp.Files[0].GetFilename() != "hello.go" {
		t.Errorf("compare main...topic: want 1 ahead with hello.go, have %v (%v)", cmp, err)
	}

	// A change through the REST API reaches the next fetch.
	if _, _, err := gh.Repositories.CreateFile(ctx, "wraith-user", "demo", "rest.txt", &github.RepositoryContentFileOptions{Message: github.Ptr("from REST"), Content: []byte("r"), Branch: github.Ptr("topic")}); err != nil {
		t.Fatalf("commit through contents: %v", err)
	}
	gitRun(t, home, work, false, "pull", "-q", "--ff-only", "origin", "topic")
	if _, err := os.Stat(filepath.Join(work, "rest.txt")); err != nil {
		t.Errorf("the REST commit after a pull: %v", err)
	}

	// A pull request of the pushed branch, merged through the REST API, is
	// in the next fetch.
	pr, _, err := gh.PullRequests.Create(ctx, "wraith-user", "demo", &github.NewPullRequest{Title: github.Ptr("topic"), Head: github.Ptr("topic"), Base: github.Ptr("main")})
	if err != nil {
		t.Fatalf("open a pull request of topic: %v", err)
	}
	merged, _, err := gh.PullRequests.Merge(ctx, "wraith-user", "demo", pr.GetNumber(), "", nil)
	if err != nil || len(merged.GetSHA()) != 40 {
		t.Fatalf("merge: want a merge commit, have %v (%v)", merged, err)
	}
	gitRun(t, home, work, false, "fetch", "-q", "origin")
	if have, _ := gitRun(t, home, work, false, "rev-parse", "origin/main"); have != merged.GetSHA() {
		t.Errorf("origin/main after the fetch: want the merge %s, have %s", merged.GetSHA(), have)
	}
	if parents, _ := gitRun(t, home, work, false, "log", "-1", "--format=%P", "origin/main"); len(strings.Fields(parents)) != 2 {
		t.Errorf("the merge commit's parents: want main and topic, have %q", parents)
	}

	other := "http://x:ghp_token.wraith.agent-18@" + host + "/wraith-user/demo.git"
	if out, err := gitRun(t, home, home, true, "ls-remote", other); err == nil {
		t.Errorf("another session's credential reaches agent-17's repository: %s", out)
	}
	// The path prefix names the session as well.
	out, _ := gitRun(t, home, home, false, "ls-remote", url+"/__s/agent-17/wraith-user/demo.git", "refs/heads/topic")
	if want, _ := gitRun(t, home, work, false, "rev-parse", "HEAD"); out != want+"\trefs/heads/topic" {
		t.Errorf("ls-remote through the path prefix: want refs/heads/topic, have %q", out)
	}
	// git sends credentials only once asked: a repository the session
	// does not hold is 401 without them, 404 with them.
	for _, tc := range []struct {
		user   string
		status int
	}{{"", http.StatusUnauthorized}, {"ghp_token.wraith.agent-17", http.StatusNotFound}} {
		req, err := http.NewRequest("GET", url+"/wraith-user/nothing.git/info/refs?service=git-upload-pack", nil)
		if err != nil {
			t.Fatal(err)
		}
		if tc.user != "" {
			req.SetBasicAuth(tc.user, "")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("a repository nobody made, credential %q: want %d, have %d", tc.user, tc.status, resp.StatusCode)
		}
	}
}
