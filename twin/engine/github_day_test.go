package engine

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v84/github"

	"github.com/wraithdev/wraith/twin/session"
)

// A coding agent's day on the embedded github twin through go-github, as
// issue 24 asks for it: who am I, a repository made with auto_init, its
// README read, a branch, two files through the contents API and one
// through git data, an issue with a comment, a pull request (sharing the
// issue's numbers), its files, a squash merge, the commit on main in the
// commit list and through compare, a release and its tag, and the pull
// request found by search. Each step's status and fields are asserted.
// The day is in two halves, so that a fork can be taken between them.

// agentDay is one session's run of the day.
type agentDay struct {
	t    *testing.T
	ctx  context.Context
	c    *github.Client
	shas []string // the commits and blobs the day made, in order

	main, feature, squash string
	issue, pull           int
}

func newAgentDay(t *testing.T, url, sess string, check *conforming) *agentDay {
	c := gitHubClient(t, &httptest.Server{URL: url}, sess)
	if check != nil {
		c = github.NewClient(&http.Client{Transport: check})
		c.BaseURL = mustURL(t, url+"/")
	}
	return &agentDay{t: t, ctx: context.Background(), c: c}
}

// step fails the test unless the answer has status and the dialect's or
// the engine's own provenance (never a template's).
func (d *agentDay) step(name string, resp *github.Response, err error, status int) {
	d.t.Helper()
	if resp == nil {
		d.t.Fatalf("%s: %v", name, err)
	}
	if resp.StatusCode != status {
		d.t.Fatalf("%s: want status %d, have %d (%v)", name, status, resp.StatusCode, err)
	}
	if p := resp.Header.Get("X-Wraith-Provenance"); p != ProvHandler {
		d.t.Errorf("%s: want provenance %s, have %q", name, ProvHandler, p)
	}
}

// morning: up to an open pull request of the branch.
func (d *agentDay) morning() {
	t, ctx, c := d.t, d.ctx, d.c
	t.Helper()
	me, resp, err := c.Users.Get(ctx, "")
	d.step("who am I", resp, err, 200)
	repo, resp, err := c.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("demo"), AutoInit: github.Ptr(true)})
	d.step("create repository", resp, err, 201)
	if want, have := me.GetLogin(), repo.GetOwner().GetLogin(); want != have || want != "wraith-user" {
		t.Errorf("the repository's owner: want GET /user's login %s, have %s", want, have)
	}
	if want, have := strings.TrimSuffix(c.BaseURL.String(), "/")+"/wraith-user/demo.git", repo.GetCloneURL(); want != have {
		t.Errorf("clone_url: want %s, have %s", want, have)
	}

	readme, _, resp, err := c.Repositories.GetContents(ctx, "wraith-user", "demo", "README.md", nil)
	d.step("read the README", resp, err, 200)
	if text, _ := readme.GetContent(); text != "# demo" {
		t.Errorf("README: want %q, have %q", "# demo", text)
	}
	main, resp, err := c.Git.GetRef(ctx, "wraith-user", "demo", "heads/main")
	d.step("get main", resp, err, 200)
	d.main = main.GetObject().GetSHA()
	_, resp, err = c.Git.CreateRef(ctx, "wraith-user", "demo", github.CreateRef{Ref: "refs/heads/feature", SHA: d.main})
	d.step("create the branch", resp, err, 201)

	var parent string
	for _, f := range []struct{ path, content string }{{"docs/a.md", "alpha\n"}, {"b.txt", "bravo\n"}} {
		r, resp, err := c.Repositories.CreateFile(ctx, "wraith-user", "demo", f.path, &github.RepositoryContentFileOptions{
			Message: github.Ptr("add " + f.path), Content: []byte(f.content), Branch: github.Ptr("feature"),
		})
		d.step("put "+f.path, resp, err, 201)
		if want, have := "wraith-user", r.GetAuthor().GetName(); want != have {
			t.Errorf("%s's commit author: want the session's identity %s, have %s", f.path, want, have)
		}
		d.shas = append(d.shas, r.GetSHA(), r.Content.GetSHA())
		parent = r.GetSHA()
	}
	blob, resp, err := c.Git.CreateBlob(ctx, "wraith-user", "demo", github.Blob{Content: github.Ptr(base64.StdEncoding.EncodeToString([]byte("charlie\n"))), Encoding: github.Ptr("base64")})
	d.step("create a blob", resp, err, 201)
	head, _, err := c.Git.GetCommit(ctx, "wraith-user", "demo", parent)
	if err != nil {
		t.Fatal(err)
	}
	tree, resp, err := c.Git.CreateTree(ctx, "wraith-user", "demo", head.GetTree().GetSHA(), []*github.TreeEntry{{Path: github.Ptr("src/c.go"), Mode: github.Ptr("100644"), Type: github.Ptr("blob"), SHA: blob.SHA}})
	d.step("create a tree", resp, err, 201)
	commit, resp, err := c.Git.CreateCommit(ctx, "wraith-user", "demo", github.Commit{Message: github.Ptr("add c"), Tree: tree, Parents: []*github.Commit{{SHA: github.Ptr(parent)}}}, nil)
	d.step("create a commit", resp, err, 201)
	_, resp, err = c.Git.UpdateRef(ctx, "wraith-user", "demo", "heads/feature", github.UpdateRef{SHA: commit.GetSHA()})
	d.step("move the branch", resp, err, 200)
	d.feature = commit.GetSHA()
	d.shas = append(d.shas, blob.GetSHA(), tree.GetSHA(), d.feature)

	// An issue, commented on: its count follows, and the pull request
	// opened next takes the number after it.
	issue, resp, err := c.Issues.Create(ctx, "wraith-user", "demo", &github.IssueRequest{Title: github.Ptr("Crash on start"), Body: github.Ptr("a null pointer"), Labels: &[]string{"bug"}})
	d.step("open an issue", resp, err, 201)
	d.issue = issue.GetNumber()
	if want, have := me.GetLogin(), issue.GetUser().GetLogin(); want != have {
		t.Errorf("the new issue's user: want %s, have %q", want, have)
	}
	comment, resp, err := c.Issues.CreateComment(ctx, "wraith-user", "demo", d.issue, &github.IssueComment{Body: github.Ptr("seen it")})
	d.step("comment on it", resp, err, 201)
	if want, have := me.GetLogin(), comment.GetUser().GetLogin(); want != have {
		t.Errorf("the comment's user: want %s, have %q", want, have)
	}
	// The author is kept with the comment, so a read and a list name it.
	if got, resp, err := c.Issues.GetComment(ctx, "wraith-user", "demo", comment.GetID()); true {
		d.step("read the comment", resp, err, 200)
		if want, have := me.GetLogin(), got.GetUser().GetLogin(); want != have {
			t.Errorf("the comment read back: want its user %s, have %q", want, have)
		}
	}
	if got, resp, err := c.Issues.ListComments(ctx, "wraith-user", "demo", d.issue, nil); true {
		d.step("list the comments", resp, err, 200)
		if len(got) != 1 || got[0].GetUser().GetLogin() != me.GetLogin() {
			t.Errorf("the issue's comments: want one by %s, have %v", me.GetLogin(), got)
		}
	}
	if got, resp, err := c.Issues.Get(ctx, "wraith-user", "demo", d.issue); true {
		d.step("read the issue", resp, err, 200)
		if want, have := 1, got.GetComments(); want != have {
			t.Errorf("the issue's comments: want %d, have %d", want, have)
		}
		if want, have := "wraith-user", got.GetUser().GetLogin(); want != have {
			t.Errorf("the issue's user: want %s, have %s", want, have)
		}
	}

	pr, resp, err := c.PullRequests.Create(ctx, "wraith-user", "demo", &github.NewPullRequest{Title: github.Ptr("Add the files"), Head: github.Ptr("feature"), Base: github.Ptr("main"), Body: github.Ptr("fixes the crash")})
	d.step("open a pull request", resp, err, 201)
	d.pull = pr.GetNumber()
	if want, have := me.GetLogin(), pr.GetUser().GetLogin(); want != have {
		t.Errorf("the new pull request's user: want %s, have %q", want, have)
	}
	if want, have := d.issue+1, d.pull; want != have {
		t.Errorf("the pull request's number: want %d, after the issue's, have %d", want, have)
	}
	got, resp, err := c.PullRequests.Get(ctx, "wraith-user", "demo", d.pull)
	d.step("read the pull request", resp, err, 200)
	if !got.GetMergeable() || got.GetMergeableState() != "clean" || got.GetMerged() || got.GetChangedFiles() != 3 || got.GetCommits() != 3 {
		t.Errorf("the open pull request: want mergeable, clean, not merged, 3 files in 3 commits; have %v, %s, %v, %d files in %d commits",
			got.GetMergeable(), got.GetMergeableState(), got.GetMerged(), got.GetChangedFiles(), got.GetCommits())
	}
	files, resp, err := c.PullRequests.ListFiles(ctx, "wraith-user", "demo", d.pull, nil)
	d.step("the pull request's files", resp, err, 200)
	var names []string
	for _, f := range files {
		names = append(names, f.GetFilename())
		if !strings.HasPrefix(f.GetPatch(), "@@ -0,0 +1 @@") {
			t.Errorf("%s: want a patch adding one line, have %q", f.GetFilename(), f.GetPatch())
		}
	}
	if want, have := "b.txt,docs/a.md,src/c.go", strings.Join(names, ","); want != have {
		t.Errorf("the pull request's files: want %s, have %s", want, have)
	}

	// The issue reads see the pull request as an issue.
	asIssue, resp, err := c.Issues.Get(ctx, "wraith-user", "demo", d.pull)
	d.step("the pull request as an issue", resp, err, 200)
	if !asIssue.IsPullRequest() || asIssue.GetTitle() != "Add the files" {
		t.Errorf("issue %d: want the pull request, with its pull_request member; have %q (pull request %v)", d.pull, asIssue.GetTitle(), asIssue.IsPullRequest())
	}
	list, resp, err := c.Issues.ListByRepo(ctx, "wraith-user", "demo", nil)
	d.step("list the issues", resp, err, 200)
	if len(list) != 2 || list[0].GetNumber() != d.pull || !list[0].IsPullRequest() || list[1].GetNumber() != d.issue || list[1].IsPullRequest() {
		t.Errorf("open issues: want the pull request %d then the issue %d, have %d items", d.pull, d.issue, len(list))
	}
	d.openIssues("with an issue and a pull request open", 2)
}

// openIssues asserts the repository's open_issues_count.
func (d *agentDay) openIssues(when string, want int) {
	d.t.Helper()
	repo, resp, err := d.c.Repositories.Get(d.ctx, "wraith-user", "demo")
	d.step("read the repository", resp, err, 200)
	if have := repo.GetOpenIssuesCount(); want != have {
		d.t.Errorf("open_issues_count %s: want %d, have %d", when, want, have)
	}
}

// afternoon: the merge, its commit seen, a release, search.
func (d *agentDay) afternoon() {
	t, ctx, c := d.t, d.ctx, d.c
	t.Helper()
	merged, resp, err := c.PullRequests.Merge(ctx, "wraith-user", "demo", d.pull, "", &github.PullRequestOptions{MergeMethod: "squash"})
	d.step("squash merge", resp, err, 200)
	d.squash = merged.GetSHA()
	d.shas = append(d.shas, d.squash)
	_, resp, err = c.PullRequests.Merge(ctx, "wraith-user", "demo", d.pull, "", nil)
	var ge *github.ErrorResponse
	if resp == nil || resp.StatusCode != 405 || !errors.As(err, &ge) || ge.Message != "Pull Request is not mergeable" {
		t.Errorf("a second merge: want 405 Pull Request is not mergeable, have %v", err)
	}
	pr, resp, err := c.PullRequests.Get(ctx, "wraith-user", "demo", d.pull)
	d.step("read the merged pull request", resp, err, 200)
	if !pr.GetMerged() || pr.GetMergeCommitSHA() != d.squash || pr.GetMergedBy().GetLogin() != "wraith-user" || pr.GetState() != "closed" {
		t.Errorf("the merged pull request: want merged by wraith-user as %s, closed; have merged %v as %s by %q, %s",
			d.squash, pr.GetMerged(), pr.GetMergeCommitSHA(), pr.GetMergedBy().GetLogin(), pr.GetState())
	}

	onMain, resp, err := c.Repositories.ListCommits(ctx, "wraith-user", "demo", &github.CommitsListOptions{SHA: "main"})
	d.step("main's commits", resp, err, 200)
	if len(onMain) != 2 || onMain[0].GetSHA() != d.squash || onMain[1].GetSHA() != d.main {
		t.Errorf("main after the squash: want %s over %s, have %d commits", d.squash, d.main, len(onMain))
	}
	cmp, resp, err := c.Repositories.CompareCommits(ctx, "wraith-user", "demo", d.main, "main", nil)
	d.step("compare the first commit with main", resp, err, 200)
	if cmp.GetAheadBy() != 1 || len(cmp.Commits) != 1 || cmp.Commits[0].GetSHA() != d.squash || len(cmp.Files) != 3 {
		t.Errorf("compare %s...main: want ahead by 1, the squash, 3 files; have %d, %d commits, %d files", d.main, cmp.GetAheadBy(), len(cmp.Commits), len(cmp.Files))
	}

	rel, resp, err := c.Repositories.CreateRelease(ctx, "wraith-user", "demo", &github.RepositoryRelease{TagName: github.Ptr("v1.0.0"), TargetCommitish: github.Ptr("main"), Name: github.Ptr("One")})
	d.step("create a release", resp, err, 201)
	if rel.GetAuthor().GetLogin() != "wraith-user" || rel.GetTagName() != "v1.0.0" || rel.GetDraft() {
		t.Errorf("the release: want v1.0.0 by wraith-user, published; have %s by %s (draft %v)", rel.GetTagName(), rel.GetAuthor().GetLogin(), rel.GetDraft())
	}
	_, resp, _ = c.Repositories.CreateRelease(ctx, "wraith-user", "demo", &github.RepositoryRelease{TagName: github.Ptr("v1.0.0")})
	if resp == nil || resp.StatusCode != 422 {
		t.Errorf("a second release of v1.0.0: want 422, have %v", resp)
	}
	for _, get := range []struct {
		name string
		call func() (*github.RepositoryRelease, *github.Response, error)
	}{
		{"latest release", func() (*github.RepositoryRelease, *github.Response, error) {
			return c.Repositories.GetLatestRelease(ctx, "wraith-user", "demo")
		}},
		{"release by tag", func() (*github.RepositoryRelease, *github.Response, error) {
			return c.Repositories.GetReleaseByTag(ctx, "wraith-user", "demo", "v1.0.0")
		}},
		{"release by id", func() (*github.RepositoryRelease, *github.Response, error) {
			return c.Repositories.GetRelease(ctx, "wraith-user", "demo", rel.GetID())
		}},
	} {
		got, resp, err := get.call()
		d.step(get.name, resp, err, 200)
		if got.GetID() != rel.GetID() {
			t.Errorf("%s: want release %d, have %d", get.name, rel.GetID(), got.GetID())
		}
	}
	tags, resp, err := c.Repositories.ListTags(ctx, "wraith-user", "demo", nil)
	d.step("list the tags", resp, err, 200)
	if len(tags) != 1 || tags[0].GetName() != "v1.0.0" || tags[0].GetCommit().GetSHA() != d.squash {
		t.Errorf("tags: want v1.0.0, made by the release at main's %s; have %d tags", d.squash, len(tags))
	}

	for _, s := range []struct {
		q    string
		want []int
	}{
		{"repo:wraith-user/demo is:pr is:closed files", []int{d.pull}},
		{"repo:wraith-user/demo is:issue label:bug crash", []int{d.issue}},
		{"crash author:wraith-user", []int{d.pull, d.issue}}, // the pull request's body names it too
		{"repo:wraith-user/demo is:open", []int{d.issue}},
		{"repo:wraith-user/other files", nil},
	} {
		found, resp, err := c.Search.Issues(ctx, s.q, nil)
		d.step("search "+s.q, resp, err, 200)
		var have []int
		for _, it := range found.Issues {
			have = append(have, it.GetNumber())
		}
		if !slices.Equal(s.want, have) || found.GetTotal() != len(s.want) {
			t.Errorf("search %q: want %v, have %v (total_count %d)", s.q, s.want, have, found.GetTotal())
		}
	}
	repos, resp, err := c.Search.Repositories(ctx, "demo user:wraith-user", nil)
	d.step("search repositories", resp, err, 200)
	if repos.GetTotal() != 1 || repos.Repositories[0].GetFullName() != "wraith-user/demo" {
		t.Errorf("search repositories: want wraith-user/demo, have %d", repos.GetTotal())
	}

	_, resp, err = c.Issues.Edit(ctx, "wraith-user", "demo", d.issue, &github.IssueRequest{State: github.Ptr("closed")})
	d.step("close the issue", resp, err, 200)
	d.openIssues("with the issue closed and the pull request merged", 0)
}

// TestGitHubCodingDay runs the day in two sessions, the first's every
// answer checked against GitHub's description: the same steps make the
// same shas and the same digests. A fork taken at noon merges its own
// way; each side sees only its own afternoon.
func TestGitHubCodingDay(t *testing.T) {
	e := newGitHub(t)
	url := httpTwin(t, e)
	schema := &conforming{next: sessionTransport{"day-a"}, doc: githubDescription(t)}
	a := newAgentDay(t, url, "day-a", schema)
	a.morning()
	src, err := e.Session("day-a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Store().Fork(context.Background(), src, "day-a-noon"); err != nil {
		t.Fatal(err)
	}
	a.afternoon()
	for _, bad := range schema.bad {
		t.Errorf("not as GitHub's description says: %s", bad)
	}
	if schema.seen < 40 {
		t.Errorf("answers checked against GitHub's description: want every one of the day's, at least 40, have %d", schema.seen)
	}

	b := newAgentDay(t, url, "day-b", nil)
	b.morning()
	b.afternoon()
	if !slices.Equal(a.shas, b.shas) {
		t.Errorf("two sessions doing the same day: want the same shas, have\n%v\n%v", a.shas, b.shas)
	}
	digest := func(name string) string {
		t.Helper()
		s, err := e.Session(name)
		if err != nil {
			t.Fatal(err)
		}
		var d string
		s.Do(func(st *session.State) { d, _ = st.Digest() })
		return d
	}
	if da, db := digest("day-a"), digest("day-b"); da != db {
		t.Errorf("two sessions doing the same day: want the same digest, have %s and %s", da, db)
	}

	// The fork merges with a merge commit instead: its own main, no
	// release; the source keeps its squash and its release.
	before := digest("day-a")
	fork := newAgentDay(t, url, "day-a-noon", nil)
	fork.pull, fork.main = a.pull, a.main
	merged, resp, err := fork.c.PullRequests.Merge(fork.ctx, "wraith-user", "demo", a.pull, "", &github.PullRequestOptions{MergeMethod: "merge"})
	fork.step("merge in the fork", resp, err, 200)
	if merged.GetSHA() == a.squash {
		t.Errorf("the fork's merge commit is the source's squash %s", a.squash)
	}
	if _, resp, _ := fork.c.Repositories.GetReleaseByTag(fork.ctx, "wraith-user", "demo", "v1.0.0"); resp == nil || resp.StatusCode != 404 {
		t.Errorf("the source's afternoon release in the fork: want 404, have %v", resp)
	}
	forkMain, _, err := fork.c.Git.GetRef(fork.ctx, "wraith-user", "demo", "heads/main")
	if err != nil || forkMain.GetObject().GetSHA() != merged.GetSHA() {
		t.Errorf("the fork's main: want its merge %s, have %v (%v)", merged.GetSHA(), forkMain.GetObject().GetSHA(), err)
	}
	srcMain, _, err := a.c.Git.GetRef(a.ctx, "wraith-user", "demo", "heads/main")
	if err != nil || srcMain.GetObject().GetSHA() != a.squash {
		t.Errorf("the source's main after the fork's merge: want its squash %s, have %v (%v)", a.squash, srcMain.GetObject().GetSHA(), err)
	}
	if after := digest("day-a"); after != before {
		t.Errorf("the fork's merge changed the source's digest")
	}
	if digest("day-a-noon") == before {
		t.Errorf("the fork, merged its own way, has its source's digest")
	}
}

// TestGitHubDayRefusals: what the day's new reads and writes refuse, as
// GitHub does, and where they leave the answer to the engine.
func TestGitHubDayRefusals(t *testing.T) {
	e := newGitHub(t)
	url := httpTwin(t, e)
	d := newAgentDay(t, url, "refusals", nil)
	ctx, c := d.ctx, d.c
	if _, resp, err := c.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("demo"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err, resp)
	}
	if _, resp, err := c.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("empty")}); err != nil {
		t.Fatal(err, resp)
	}
	// Two branches changing one line two ways: a pull request that
	// does not merge.
	main, _, err := c.Git.GetRef(ctx, "wraith-user", "demo", "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Git.CreateRef(ctx, "wraith-user", "demo", github.CreateRef{Ref: "refs/heads/other", SHA: main.GetObject().GetSHA()}); err != nil {
		t.Fatal(err)
	}
	readme, _, _, err := c.Repositories.GetContents(ctx, "wraith-user", "demo", "README.md", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, branch := range []string{"main", "other"} {
		if _, _, err := c.Repositories.UpdateFile(ctx, "wraith-user", "demo", "README.md", &github.RepositoryContentFileOptions{
			Message: github.Ptr(branch), Content: []byte("# " + branch + "\n"), SHA: readme.SHA, Branch: github.Ptr(branch),
		}); err != nil {
			t.Fatal(err)
		}
	}
	pr, _, err := c.PullRequests.Create(ctx, "wraith-user", "demo", &github.NewPullRequest{Title: github.Ptr("conflict"), Head: github.Ptr("other"), Base: github.Ptr("main")})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := c.PullRequests.Get(ctx, "wraith-user", "demo", pr.GetNumber())
	if err != nil || got.GetMergeable() || got.GetMergeableState() != "dirty" {
		t.Errorf("a conflicting pull request: want mergeable false, dirty; have %v, %s (%v)", got.GetMergeable(), got.GetMergeableState(), err)
	}

	for _, tc := range []struct {
		name   string
		call   func() (*github.Response, error)
		status int
	}{
		{"merge of a conflict", func() (*github.Response, error) {
			_, resp, err := c.PullRequests.Merge(ctx, "wraith-user", "demo", pr.GetNumber(), "", nil)
			return resp, err
		}, 405},
		{"search without q", func() (*github.Response, error) {
			_, resp, err := c.Search.Issues(ctx, "", nil)
			return resp, err
		}, 422},
		{"a release at a target that is not there", func() (*github.Response, error) {
			_, resp, err := c.Repositories.CreateRelease(ctx, "wraith-user", "demo", &github.RepositoryRelease{TagName: github.Ptr("v1"), TargetCommitish: github.Ptr("nope")})
			return resp, err
		}, 422},
		{"a release without a tag", func() (*github.Response, error) {
			_, resp, err := c.Repositories.CreateRelease(ctx, "wraith-user", "demo", &github.RepositoryRelease{Name: github.Ptr("x")})
			return resp, err
		}, 422},
		{"a release of a repository with no commit: the engine's", func() (*github.Response, error) {
			_, resp, err := c.Repositories.CreateRelease(ctx, "wraith-user", "empty", &github.RepositoryRelease{TagName: github.Ptr("v1")})
			return resp, err
		}, 501},
		{"a release that is not there", func() (*github.Response, error) {
			_, resp, err := c.Repositories.GetRelease(ctx, "wraith-user", "demo", 12345)
			return resp, err
		}, 404},
		{"a page past any int's reach", func() (*github.Response, error) {
			_, resp, err := c.Repositories.ListReleases(ctx, "wraith-user", "demo", &github.ListOptions{Page: 1<<62 - 1})
			return resp, err
		}, 200},
		{"a search's page past any int's reach", func() (*github.Response, error) {
			_, resp, err := c.Search.Issues(ctx, "conflict", &github.SearchOptions{ListOptions: github.ListOptions{Page: 1<<62 - 1, PerPage: 100}})
			return resp, err
		}, 200},
		{"an issue that is not there", func() (*github.Response, error) {
			_, resp, err := c.Issues.Get(ctx, "wraith-user", "demo", 99)
			return resp, err
		}, 404},
		{"the issues of a repository that is not there", func() (*github.Response, error) {
			_, resp, err := c.Issues.ListByRepo(ctx, "wraith-user", "nope", nil)
			return resp, err
		}, 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := tc.call()
			if resp == nil || resp.StatusCode != tc.status {
				t.Errorf("want %d, have %v (%v)", tc.status, resp, err)
			}
		})
	}
}

// TestGitHubIssueList holds the issue list's filters and order to
// GitHub's: state open unless asked, labels, creator, assignee, since,
// direction.
func TestGitHubIssueList(t *testing.T) {
	e := newGitHub(t)
	url := httpTwin(t, e)
	d := newAgentDay(t, url, "issues", nil)
	ctx, c := d.ctx, d.c
	if _, _, err := c.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("demo")}); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*github.IssueRequest{
		{Title: github.Ptr("one"), Labels: &[]string{"bug"}},
		{Title: github.Ptr("two")},
		{Title: github.Ptr("three"), Assignees: &[]string{"rev"}},
	} {
		if _, _, err := c.Issues.Create(ctx, "wraith-user", "demo", r); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := c.Issues.Edit(ctx, "wraith-user", "demo", 2, &github.IssueRequest{State: github.Ptr("closed")}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opt  github.IssueListByRepoOptions
		want []int
	}{
		{"open by default, newest first", github.IssueListByRepoOptions{}, []int{3, 1}},
		{"all", github.IssueListByRepoOptions{State: "all"}, []int{3, 2, 1}},
		{"closed", github.IssueListByRepoOptions{State: "closed"}, []int{2}},
		{"oldest first", github.IssueListByRepoOptions{State: "all", Direction: "asc"}, []int{1, 2, 3}},
		{"by label", github.IssueListByRepoOptions{Labels: []string{"bug"}}, []int{1}},
		{"by a label none has", github.IssueListByRepoOptions{Labels: []string{"bug", "docs"}}, nil},
		{"by creator", github.IssueListByRepoOptions{Creator: "wraith-user"}, []int{3, 1}},
		{"by another creator", github.IssueListByRepoOptions{Creator: "someone"}, nil},
		{"assigned to nobody", github.IssueListByRepoOptions{Assignee: "none"}, []int{1}},
		{"assigned to rev", github.IssueListByRepoOptions{Assignee: "rev"}, []int{3}},
		{"updated since the future", github.IssueListByRepoOptions{State: "all", Since: time.Unix(1900000000, 0)}, nil},
		{"a page of one", github.IssueListByRepoOptions{State: "all", ListOptions: github.ListOptions{PerPage: 1, Page: 2}}, []int{2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list, resp, err := c.Issues.ListByRepo(ctx, "wraith-user", "demo", &tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			var have []int
			for _, it := range list {
				have = append(have, it.GetNumber())
			}
			if !slices.Equal(tc.want, have) {
				t.Errorf("want %v, have %v", tc.want, have)
			}
			if tc.opt.ListOptions.PerPage == 1 && (resp.NextPage != 3 || resp.LastPage != 3 || resp.PrevPage != 1) {
				t.Errorf("Link: want next 3, last 3, prev 1; have %d, %d, %d", resp.NextPage, resp.LastPage, resp.PrevPage)
			}
		})
	}
}

// BenchmarkGitHubSearchIssues is one search over a session of 1,000
// issues with a comment each: the reads that span a resource walk every
// entity of it (Call.Each), so this is their cost per request.
func BenchmarkGitHubSearchIssues(b *testing.B) {
	e := newGitHub(b)
	url := httpTwin(b, e)
	c := gitHubClient(b, &httptest.Server{URL: url}, "bench")
	ctx := context.Background()
	if _, _, err := c.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("demo")}); err != nil {
		b.Fatal(err)
	}
	for i := range 1000 {
		title := "an issue"
		if i%100 == 0 {
			title = "a crash"
		}
		is, _, err := c.Issues.Create(ctx, "wraith-user", "demo", &github.IssueRequest{Title: github.Ptr(title)})
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := c.Issues.CreateComment(ctx, "wraith-user", "demo", is.GetNumber(), &github.IssueComment{Body: github.Ptr("x")}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		found, _, err := c.Search.Issues(ctx, "repo:wraith-user/demo is:issue crash", nil)
		if err != nil || found.GetTotal() != 10 {
			b.Fatalf("want 10 found, have %d (%v)", found.GetTotal(), err)
		}
	}
}
