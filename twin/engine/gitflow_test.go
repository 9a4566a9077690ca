package engine

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v84/github"

	"github.com/wraithdev/wraith/twin/embedded"
	"github.com/wraithdev/wraith/twin/resolve"
	"github.com/wraithdev/wraith/twin/scrub"
	"github.com/wraithdev/wraith/twin/session"
)

// newGitHub serves the embedded github twin as wraith serve does: names
// kept verbatim as its [pii] says, unknown entities not found, a
// deterministic clock.
func newGitHub(tb testing.TB) *Engine {
	tb.Helper()
	src, err := resolve.New(tb.TempDir(), "", embedded.FS()).Resolve("github")
	if err != nil {
		tb.Fatal(err)
	}
	tw, err := src.Load()
	if err != nil {
		tb.Fatal(err)
	}
	e, err := New(tw, Options{
		UnknownEntity: NotFound,
		Scrubber:      scrub.New(scrub.DeriveKey([]byte(tw.Digest)), scrub.Policy{Verbatim: tw.Manifest.PII.Verbatim}),
		Defaults:      session.Settings{Seed: 7, Clock: session.Clock{Mode: session.ClockDeterministic, BaseEpoch: 1700000000, Step: time.Second}},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// gitDay is a coding agent's day on the embedded github twin, through
// go-github, in session sess: a repository made with auto_init, its
// README read, a branch made by ref, two files committed through the
// contents API and one through git data, the commits listed and the
// branch compared with main. It returns the shas it saw, in order.
func gitDay(t *testing.T, url, sess string, check http.RoundTripper) []string {
	t.Helper()
	ctx := context.Background()
	c := gitHubClient(t, &httptest.Server{URL: url}, sess)
	if check != nil {
		c = github.NewClient(&http.Client{Transport: check})
		c.BaseURL = mustURL(t, url+"/")
	}
	var shas []string
	checkStep := func(step string, resp *github.Response, err error, status int) {
		t.Helper()
		if err != nil && (resp == nil || resp.StatusCode != status) {
			t.Fatalf("%s: %v", step, err)
		}
		if resp.StatusCode != status {
			t.Fatalf("%s: want status %d, have %d", step, status, resp.StatusCode)
		}
		if p := resp.Header.Get("X-Wraith-Provenance"); p != ProvHandler {
			t.Errorf("%s: want provenance %s, have %q", step, ProvHandler, p)
		}
	}

	repo, resp, err := c.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("demo"), AutoInit: github.Ptr(true)})
	checkStep("create repository", resp, err, 201)
	owner := repo.GetOwner().GetLogin()
	if want, have := "wraith-user/demo", repo.GetFullName(); want != have {
		t.Fatalf("full_name: want %s, have %s", want, have)
	}

	readme, _, resp, err := c.Repositories.GetContents(ctx, owner, "demo", "README.md", nil)
	checkStep("read README", resp, err, 200)
	text, err := readme.GetContent()
	if err != nil || text != "# demo" {
		t.Errorf("README: want %q, have %q (%v)", "# demo", text, err)
	}
	if want, have := "file", readme.GetType(); want != have {
		t.Errorf("README type: want %s, have %s", want, have)
	}
	if !strings.HasPrefix(readme.GetURL(), url+"/repos/wraith-user/demo/contents/README.md") {
		t.Errorf("README url: want it under the twin's own %s/repos/wraith-user/demo, have %s", url, readme.GetURL())
	}

	// The repository's root, as go-github asks for it (contents/, the
	// path ""): a listing of its one file.
	_, root, resp, err := c.Repositories.GetContents(ctx, owner, "demo", "", nil)
	checkStep("list the root", resp, err, 200)
	if len(root) != 1 || root[0].GetName() != "README.md" || root[0].GetType() != "file" {
		t.Errorf("root listing: want [README.md (file)], have %d entries %v", len(root), root)
	}

	main, resp, err := c.Git.GetRef(ctx, owner, "demo", "heads/main")
	checkStep("get main", resp, err, 200)
	shas = append(shas, main.GetObject().GetSHA())
	if _, resp, err := c.Git.CreateRef(ctx, owner, "demo", github.CreateRef{Ref: "refs/heads/feature", SHA: main.GetObject().GetSHA()}); true {
		checkStep("create branch", resp, err, 201)
	}
	_, resp, err = c.Git.CreateRef(ctx, owner, "demo", github.CreateRef{Ref: "refs/heads/feature", SHA: main.GetObject().GetSHA()})
	if resp == nil || resp.StatusCode != 422 {
		t.Errorf("create the branch again: want 422, have %v", err)
	}

	put := func(path, content, sha string, status int) *github.RepositoryContentResponse {
		t.Helper()
		opt := &github.RepositoryContentFileOptions{Message: github.Ptr("add " + path), Content: []byte(content), Branch: github.Ptr("feature")}
		if sha != "" {
			opt.SHA = github.Ptr(sha)
		}
		var r *github.RepositoryContentResponse
		var resp *github.Response
		var err error
		if sha == "" {
			r, resp, err = c.Repositories.CreateFile(ctx, owner, "demo", path, opt)
		} else {
			r, resp, err = c.Repositories.UpdateFile(ctx, owner, "demo", path, opt)
		}
		checkStep("put "+path, resp, err, status)
		return r
	}
	a := put("docs/a.md", "alpha\n", "", 201)
	shas = append(shas, a.GetSHA())
	if want, have := "docs/a.md", a.Content.GetPath(); want != have {
		t.Errorf("created file's path: want %s, have %s", want, have)
	}
	b := put("b.txt", "bravo\n", "", 201)
	shas = append(shas, b.GetSHA())
	if want, have := a.GetSHA(), b.Parents[0].GetSHA(); want != have {
		t.Errorf("second commit's parent: want %s, have %s", want, have)
	}
	b2 := put("b.txt", "bravo two\n", b.Content.GetSHA(), 200)
	shas = append(shas, b2.GetSHA())

	// Stale and missing shas are GitHub's 409 and 422.
	_, resp, _ = c.Repositories.UpdateFile(ctx, owner, "demo", "b.txt", &github.RepositoryContentFileOptions{Message: github.Ptr("stale"), Content: []byte("x"), SHA: b.Content.SHA, Branch: github.Ptr("feature")})
	if resp == nil || resp.StatusCode != 409 {
		t.Errorf("update with a stale sha: want 409, have %v", resp)
	}
	_, resp, _ = c.Repositories.CreateFile(ctx, owner, "demo", "b.txt", &github.RepositoryContentFileOptions{Message: github.Ptr("no sha"), Content: []byte("x"), Branch: github.Ptr("feature")})
	if resp == nil || resp.StatusCode != 422 {
		t.Errorf("update without a sha: want 422, have %v", resp)
	}

	// One file through git data: blob, tree on the branch's tree, commit, ref.
	blob, resp, err := c.Git.CreateBlob(ctx, owner, "demo", github.Blob{Content: github.Ptr(base64.StdEncoding.EncodeToString([]byte("charlie\n"))), Encoding: github.Ptr("base64")})
	checkStep("create blob", resp, err, 201)
	tree, resp, err := c.Git.CreateTree(ctx, owner, "demo", b2.Tree.GetSHA(), []*github.TreeEntry{{Path: github.Ptr("src/c.go"), Mode: github.Ptr("100644"), Type: github.Ptr("blob"), SHA: blob.SHA}})
	checkStep("create tree", resp, err, 201)
	if want, have := 4, len(tree.Entries); want != have {
		t.Errorf("tree entries at the top (README.md, b.txt, docs, src): want %d, have %d", want, have)
	}
	commit, resp, err := c.Git.CreateCommit(ctx, owner, "demo", github.Commit{Message: github.Ptr("add c"), Tree: tree, Parents: []*github.Commit{{SHA: b2.SHA}}}, nil)
	checkStep("create commit", resp, err, 201)
	shas = append(shas, commit.GetSHA())
	if want, have := "wraith-user", commit.GetAuthor().GetName(); want != have {
		t.Errorf("commit author: want %s, have %s", want, have)
	}
	_, resp, err = c.Git.UpdateRef(ctx, owner, "demo", "heads/feature", github.UpdateRef{SHA: commit.GetSHA()})
	checkStep("move the branch", resp, err, 200)
	_, resp, err = c.Git.UpdateRef(ctx, owner, "demo", "heads/feature", github.UpdateRef{SHA: main.GetObject().GetSHA()})
	var ge *github.ErrorResponse
	if resp == nil || resp.StatusCode != 422 || !errors.As(err, &ge) || ge.Message != "Update is not a fast forward" {
		t.Errorf("move the branch back without force: want 422 Update is not a fast forward, have %v", err)
	}

	tag, resp, err := c.Git.CreateTag(ctx, owner, "demo", github.CreateTag{Tag: "v0.1.0", Message: "first", Object: commit.GetSHA(), Type: "commit"})
	checkStep("create tag", resp, err, 201)
	shas = append(shas, tag.GetSHA())
	if _, resp, err := c.Git.CreateRef(ctx, owner, "demo", github.CreateRef{Ref: "refs/tags/v0.1.0", SHA: tag.GetSHA()}); true {
		checkStep("create the tag's ref", resp, err, 201)
	}
	got, resp, err := c.Git.GetTag(ctx, owner, "demo", tag.GetSHA())
	checkStep("get tag", resp, err, 200)
	if got.GetObject().GetSHA() != commit.GetSHA() || got.GetTag() != "v0.1.0" || got.GetTagger().GetName() != "wraith-user" {
		t.Errorf("tag: want v0.1.0 of %s by wraith-user, have %s of %s by %s", commit.GetSHA(), got.GetTag(), got.GetObject().GetSHA(), got.GetTagger().GetName())
	}

	list, resp, err := c.Repositories.ListCommits(ctx, owner, "demo", &github.CommitsListOptions{SHA: "feature", ListOptions: github.ListOptions{PerPage: 2}})
	checkStep("list commits", resp, err, 200)
	if len(list) != 2 || list[0].GetSHA() != commit.GetSHA() || list[1].GetSHA() != b2.GetSHA() {
		t.Errorf("first page of feature's commits: want %s, %s; have %d commits", commit.GetSHA(), b2.GetSHA(), len(list))
	}
	if resp.NextPage != 2 {
		t.Errorf("Link: want a next page 2, have %d", resp.NextPage)
	}
	onlyA, resp, err := c.Repositories.ListCommits(ctx, owner, "demo", &github.CommitsListOptions{SHA: "feature", Path: "docs"})
	checkStep("list commits of docs", resp, err, 200)
	if len(onlyA) != 1 || onlyA[0].GetSHA() != a.GetSHA() {
		t.Errorf("commits touching docs: want only %s, have %d", a.GetSHA(), len(onlyA))
	}

	cmp, resp, err := c.Repositories.CompareCommits(ctx, owner, "demo", "main", "feature", nil)
	checkStep("compare", resp, err, 200)
	if cmp.GetStatus() != "ahead" || cmp.GetAheadBy() != 4 || cmp.GetBehindBy() != 0 || len(cmp.Files) != 3 {
		t.Errorf("compare main...feature: want ahead by 4 with 3 files, have %s by %d/%d with %d files", cmp.GetStatus(), cmp.GetAheadBy(), cmp.GetBehindBy(), len(cmp.Files))
	}

	for _, dir := range []struct {
		path  string
		names []string
	}{{"docs", []string{"a.md"}}, {"src", []string{"c.go"}}} {
		_, list, resp, err := c.Repositories.GetContents(ctx, owner, "demo", dir.path, &github.RepositoryContentGetOptions{Ref: "feature"})
		checkStep("list "+dir.path+"/", resp, err, 200)
		var names []string
		for _, e := range list {
			names = append(names, e.GetName())
		}
		if want, have := strings.Join(dir.names, ","), strings.Join(names, ","); want != have {
			t.Errorf("contents of %q on feature: want %s, have %s", dir.path, want, have)
		}
	}

	branches, resp, err := c.Repositories.ListBranches(ctx, owner, "demo", nil)
	checkStep("list branches", resp, err, 200)
	if len(branches) != 2 || branches[0].GetName() != "feature" || branches[1].GetName() != "main" {
		t.Errorf("branches: want feature and main, have %d", len(branches))
	}
	// A pull request of the branch: its files and commits are git's, a
	// squash merge makes one commit on main, a second merge is 405.
	if _, resp, _ := c.PullRequests.Create(ctx, owner, "demo", &github.NewPullRequest{Title: github.Ptr("nope"), Head: github.Ptr("nope"), Base: github.Ptr("main")}); resp == nil || resp.StatusCode != 422 {
		t.Errorf("a pull request of a branch that is not there: want 422, have %v", resp)
	}
	pr, resp, err := c.PullRequests.Create(ctx, owner, "demo", &github.NewPullRequest{Title: github.Ptr("Add the files"), Head: github.Ptr("feature"), Base: github.Ptr("main")})
	checkStep("open pull request", resp, err, 201)
	prFiles, resp, err := c.PullRequests.ListFiles(ctx, owner, "demo", pr.GetNumber(), nil)
	checkStep("pull request files", resp, err, 200)
	var names []string
	for _, f := range prFiles {
		names = append(names, f.GetFilename())
		if f.GetPatch() == "" {
			t.Errorf("pull request file %s: want a patch, have none", f.GetFilename())
		}
	}
	if want, have := "b.txt,docs/a.md,src/c.go", strings.Join(names, ","); want != have {
		t.Errorf("pull request files: want %s, have %s", want, have)
	}
	prCommits, resp, err := c.PullRequests.ListCommits(ctx, owner, "demo", pr.GetNumber(), nil)
	checkStep("pull request commits", resp, err, 200)
	if len(prCommits) != 4 || prCommits[3].GetSHA() != commit.GetSHA() {
		t.Errorf("pull request commits: want 4 ending with %s, have %d", commit.GetSHA(), len(prCommits))
	}
	// The list names the author and both sides as a read does: each
	// branch's current sha and the repository (commit is feature's head).
	open, resp, err := c.PullRequests.List(ctx, owner, "demo", &github.PullRequestListOptions{Head: owner + ":feature"})
	checkStep("list pull requests", resp, err, 200)
	if len(open) != 1 || open[0].GetUser().GetLogin() != owner || open[0].GetHead().GetSHA() != commit.GetSHA() ||
		open[0].GetHead().GetLabel() != owner+":feature" || open[0].GetBase().GetSHA() != shas[0] || open[0].GetHead().GetRepo().GetFullName() != owner+"/demo" {
		t.Errorf("pull request list: want #%d by %s, head %s:feature at %s, base at %s, in %s/demo; have %d: %+v", pr.GetNumber(), owner, owner, commit.GetSHA(), shas[0], owner, len(open), open)
	}
	if closed, _, err := c.PullRequests.List(ctx, owner, "demo", &github.PullRequestListOptions{State: "closed"}); err != nil || len(closed) != 0 {
		t.Errorf("closed pull requests before the merge: want none, have %d (%v)", len(closed), err)
	}
	merged, resp, err := c.PullRequests.Merge(ctx, owner, "demo", pr.GetNumber(), "", &github.PullRequestOptions{MergeMethod: "squash"})
	if err != nil || resp.StatusCode != 200 || !merged.GetMerged() || len(merged.GetSHA()) != 40 {
		t.Fatalf("squash merge: want merged with a commit sha, have %v (%v)", merged, err)
	}
	shas = append(shas, merged.GetSHA())
	onMain, _, err := c.Repositories.ListCommits(ctx, owner, "demo", &github.CommitsListOptions{SHA: "main"})
	if err != nil || len(onMain) != 2 || onMain[0].GetSHA() != merged.GetSHA() || len(onMain[0].Parents) != 1 {
		t.Errorf("main after the squash: want the squash commit %s over the initial one, have %d commits (%v)", merged.GetSHA(), len(onMain), err)
	}
	if _, resp, _ := c.PullRequests.Merge(ctx, owner, "demo", pr.GetNumber(), "", nil); resp == nil || resp.StatusCode != 405 {
		t.Errorf("a second merge: want 405, have %v", resp)
	}
	if readme, _, _, err := c.Repositories.GetContents(ctx, owner, "demo", "src/c.go", nil); err != nil || readme.GetSHA() != blob.GetSHA() {
		t.Errorf("src/c.go on main after the merge: want blob %s, have %v", blob.GetSHA(), err)
	}

	one, resp, err := c.Repositories.GetCommit(ctx, owner, "demo", a.GetSHA(), nil)
	checkStep("get commit", resp, err, 200)
	if len(one.Files) != 1 || one.Files[0].GetFilename() != "docs/a.md" || one.GetStats().GetAdditions() != 1 {
		t.Errorf("commit %s: want one file docs/a.md with one line added, have %d files", a.GetSHA(), len(one.Files))
	}
	return shas
}

func mustURL(tb testing.TB, s string) *url.URL {
	tb.Helper()
	u, err := url.Parse(s)
	if err != nil {
		tb.Fatal(err)
	}
	return u
}

// TestGitHubGitDay runs the coding day twice, in two sessions of one
// twin: the same steps make the same commits, sha for sha; and a fork
// taken after the day diverges only on its own side. Every answer of the
// first day is checked against GitHub's description.
func TestGitHubGitDay(t *testing.T) {
	e := newGitHub(t)
	url := httpTwin(t, e)
	schema := &conforming{next: sessionTransport{"day-1"}, doc: githubDescription(t)}
	first := gitDay(t, url, "day-1", schema)
	second := gitDay(t, url, "day-2", nil)
	for _, bad := range schema.bad {
		t.Errorf("not as GitHub's description says: %s", bad)
	}
	if schema.seen < 20 {
		t.Errorf("answers checked against GitHub's description: want every one of the day's, at least 20, have %d", schema.seen)
	}
	if strings.Join(first, ",") != strings.Join(second, ",") {
		t.Errorf("two sessions doing the same day: want the same shas, have\n%v\n%v", first, second)
	}

	src, err := e.Session("day-1")
	if err != nil {
		t.Fatal(err)
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
	if d1, d2 := digest("day-1"), digest("day-2"); d1 != d2 {
		t.Errorf("two sessions doing the same day: want the same digest, git included, have %s and %s", d1, d2)
	}
	if _, err := e.Store().Fork(context.Background(), src, "day-1-fork"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	fork := gitHubClient(t, &httptest.Server{URL: url}, "day-1-fork")
	orig := gitHubClient(t, &httptest.Server{URL: url}, "day-1")
	r, resp, err := fork.Repositories.CreateFile(ctx, "wraith-user", "demo", "fork-only.txt", &github.RepositoryContentFileOptions{Message: github.Ptr("fork"), Content: []byte("f")})
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("a write in the fork: %v", err)
	}
	if _, _, resp, _ := orig.Repositories.GetContents(ctx, "wraith-user", "demo", "fork-only.txt", nil); resp == nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("the source session sees the fork's file: want 404, have %v", resp)
	}
	if _, _, resp, err := fork.Repositories.GetContents(ctx, "wraith-user", "demo", "docs/a.md", &github.RepositoryContentGetOptions{Ref: "feature"}); err != nil || resp.StatusCode != 200 {
		t.Errorf("the fork sees what its source made before the fork: %v", err)
	}
	// A snapshot carries the session's git, through its JSON, into a
	// restored session.
	snap, err := session.SnapshotOf(src, "github", "d")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	var back session.Snapshot
	if err := json.Unmarshal(doc, &back); err != nil {
		t.Fatal(err)
	}
	set, _ := src.Settings()
	if _, err := e.Restore("day-1-restored", set, &back.StateDoc); err != nil {
		t.Fatalf("restore: %v", err)
	}
	restored := gitHubClient(t, &httptest.Server{URL: url}, "day-1-restored")
	feature, _, err := restored.Git.GetRef(ctx, "wraith-user", "demo", "heads/feature")
	// first is main, the two contents commits, the update, the git data
	// commit (feature's head), the tag and the squash merge on main.
	if err != nil || feature.GetObject().GetSHA() != first[4] {
		t.Errorf("the restored session's feature: want %s, have %v (%v)", first[4], feature.GetObject().GetSHA(), err)
	}

	if d1, df := digest("day-1"), digest("day-1-fork"); d1 == df {
		t.Errorf("a fork with a commit of its own has its source's digest %s", d1)
	}
	if d1, dr := digest("day-1"), digest("day-1-restored"); d1 != dr {
		t.Errorf("a restored session's digest: want its source's %s, have %s", d1, dr)
	}
	main, _, err := orig.Git.GetRef(ctx, "wraith-user", "demo", "heads/main")
	if err != nil || main.GetObject().GetSHA() == r.GetSHA() || main.GetObject().GetSHA() != first[len(first)-1] {
		t.Errorf("the source's main moved with the fork's commit: have %v (%v)", main.GetObject().GetSHA(), err)
	}
}
