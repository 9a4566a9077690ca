package engine

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v84/github"

	"github.com/wraithdev/wraith/ipc"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/scrub"
	"github.com/wraithdev/wraith/twin/session"
)

// startGitHub serves testdata/twins/github-mini on 127.0.0.1:0.
func startGitHub(tb testing.TB, unknown string) *httptest.Server {
	tb.Helper()
	tw, err := format.Load(os.DirFS("../../testdata/twins/github-mini"), "github-mini")
	if err != nil {
		tb.Fatal(err)
	}
	e, err := New(tw, Options{
		UnknownEntity: unknown,
		Scrubber:      scrub.New(scrub.DeriveKey([]byte(tw.Digest)), scrub.Policy{Verbatim: tw.Manifest.PII.Verbatim}),
		Defaults:      session.Settings{Seed: 7, Clock: session.Clock{Mode: session.ClockDeterministic, BaseEpoch: 1700000000, Step: time.Second}},
	})
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(e)
	tb.Cleanup(srv.Close)
	return srv
}

// sessionTransport names a Wraith session on every request.
type sessionTransport struct{ name string }

func (s sessionTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(ipc.SessionHeader, s.name)
	return http.DefaultTransport.RoundTrip(r)
}

func gitHubClient(tb testing.TB, srv *httptest.Server, sess string) *github.Client {
	tb.Helper()
	c := github.NewClient(&http.Client{Transport: sessionTransport{sess}})
	base, _ := url.Parse(srv.URL + "/")
	c.BaseURL = base
	return c
}

func TestGitHubFlow(t *testing.T) {
	srv := startGitHub(t, NotFound)
	ctx := context.Background()
	for _, sess := range []string{"agent-a", "agent-b"} {
		t.Run(sess, func(t *testing.T) {
			gh := gitHubClient(t, srv, sess)
			repoName := "hello-" + sess
			repo, resp, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr(repoName), AutoInit: github.Ptr(true)})
			if err != nil || resp.StatusCode != 201 {
				t.Fatalf("create repository: %v (status %v)", err, resp)
			}
			owner := repo.GetOwner().GetLogin()
			if owner != "wraith-user" || repo.GetFullName() != "wraith-user/"+repoName || repo.GetID() == 0 {
				t.Fatalf("repository: want wraith-user/%s with an id, have %s/%s id %d", repoName, owner, repo.GetName(), repo.GetID())
			}
			if got, _, err := gh.Repositories.Get(ctx, owner, repoName); err != nil || got.GetID() != repo.GetID() {
				t.Fatalf("get repository: %v %v", got, err)
			}

			issue, resp, err := gh.Issues.Create(ctx, owner, repoName, &github.IssueRequest{Title: github.Ptr("first"), Body: github.Ptr("hello")})
			if err != nil || resp.StatusCode != 201 || issue.GetNumber() != 1 || issue.GetState() != "open" {
				t.Fatalf("create issue: want number 1 open, have %v %v", issue, err)
			}
			wantURL := srv.URL + "/repos/" + owner + "/" + repoName + "/issues/1"
			if issue.GetURL() != wantURL || !strings.HasPrefix(issue.GetNodeID(), "I_") {
				t.Errorf("issue url: want %s and a node id, have %s %q", wantURL, issue.GetURL(), issue.GetNodeID())
			}
			got, _, err := gh.Issues.Get(ctx, owner, repoName, 1)
			if err != nil || got.GetTitle() != "first" || got.GetID() != issue.GetID() {
				t.Fatalf("get issue: %v %v", got, err)
			}
			closed, _, err := gh.Issues.Edit(ctx, owner, repoName, 1, &github.IssueRequest{State: github.Ptr("closed")})
			if err != nil || closed.GetState() != "closed" || closed.ClosedAt == nil || closed.GetTitle() != "first" {
				t.Fatalf("close issue: want closed with closed_at and the title kept, have %v %v", closed, err)
			}
			if open, _, _ := gh.Issues.ListByRepo(ctx, owner, repoName, nil); len(open) != 0 {
				t.Errorf("list open issues: want none after closing, have %d", len(open))
			}
			reopened, _, err := gh.Issues.Edit(ctx, owner, repoName, 1, &github.IssueRequest{State: github.Ptr("open")})
			if err != nil || reopened.GetState() != "open" || reopened.ClosedAt != nil {
				t.Fatalf("reopen issue: want open with closed_at cleared, have %v %v", reopened, err)
			}

			comment, _, err := gh.Issues.CreateComment(ctx, owner, repoName, 1, &github.IssueComment{Body: github.Ptr("looks good")})
			if err != nil || comment.GetID() == 0 || comment.GetBody() != "looks good" {
				t.Fatalf("create comment: %v %v", comment, err)
			}
			if c, _, err := gh.Issues.GetComment(ctx, owner, repoName, comment.GetID()); err != nil || c.GetBody() != "looks good" {
				t.Fatalf("get comment: %v %v", c, err)
			}
			if cs, _, err := gh.Issues.ListComments(ctx, owner, repoName, 1, nil); err != nil || len(cs) != 1 {
				t.Fatalf("list comments of issue 1: want 1, have %d %v", len(cs), err)
			}

			labels, _, err := gh.Issues.AddLabelsToIssue(ctx, owner, repoName, 1, []string{"bug"})
			if err != nil || len(labels) != 1 || labels[0].GetName() != "bug" {
				t.Fatalf("add label: %v %v", labels, err)
			}
			if l, _, err := gh.Issues.GetLabel(ctx, owner, repoName, "bug"); err != nil || l.GetID() != labels[0].GetID() {
				t.Fatalf("the added label exists in the repository: %v %v", l, err)
			}
			if withLabel, _, _ := gh.Issues.Get(ctx, owner, repoName, 1); len(withLabel.Labels) != 1 {
				t.Errorf("issue labels: want 1, have %v", withLabel.Labels)
			}

			// A pull request's branches are the repository's git: make
			// feature (this mini twin has no contents route to commit on it).
			start, _, err := gh.Git.GetRef(ctx, owner, repoName, "heads/main")
			if err != nil {
				t.Fatalf("get main: %v", err)
			}
			if _, _, err := gh.Git.CreateRef(ctx, owner, repoName, github.CreateRef{Ref: "refs/heads/feature", SHA: start.GetObject().GetSHA()}); err != nil {
				t.Fatalf("create feature: %v", err)
			}
			pr, _, err := gh.PullRequests.Create(ctx, owner, repoName, &github.NewPullRequest{Title: github.Ptr("feature"), Head: github.Ptr("feature"), Base: github.Ptr("main")})
			if err != nil || pr.GetNumber() != 2 {
				t.Fatalf("create pull request: want number 2 (after issue 1), have %v %v", pr.GetNumber(), err)
			}
			if got, _, err := gh.PullRequests.Get(ctx, owner, repoName, 2); err != nil || got.GetTitle() != "feature" {
				t.Fatalf("get pull request: %v %v", got, err)
			}
			if res, _, err := gh.PullRequests.Merge(ctx, owner, repoName, 2, "", nil); err != nil || !res.GetMerged() {
				t.Fatalf("merge pull request: %v %#v", res, err)
			}

			// A ref names a commit of the repository's git (auto_init made one);
			// a sha that names nothing is GitHub's 422.
			if _, resp, _ := gh.Git.CreateRef(ctx, owner, repoName, github.CreateRef{Ref: "refs/heads/nowhere", SHA: "aa218f56b14c9653891f9e74264a383fa43fefbd"}); resp == nil || resp.StatusCode != 422 {
				t.Fatalf("create a ref to no object: want 422, have %v", resp)
			}
			main, _, err := gh.Git.GetRef(ctx, owner, repoName, "heads/main")
			if err != nil {
				t.Fatalf("get main: %v", err)
			}
			head := main.GetObject().GetSHA()
			ref, _, err := gh.Git.CreateRef(ctx, owner, repoName, github.CreateRef{Ref: "refs/heads/feature/x", SHA: head})
			if err != nil || ref.GetRef() != "refs/heads/feature/x" {
				t.Fatalf("create ref: %v %v", ref, err)
			}
			if got, _, err := gh.Git.GetRef(ctx, owner, repoName, "heads/feature/x"); err != nil || got.GetObject().GetSHA() != head {
				t.Fatalf("get ref (multi-segment): %v %v", got, err)
			}
			if resp, err := gh.Git.DeleteRef(ctx, owner, repoName, "heads/feature/x"); err != nil || resp.StatusCode != 204 {
				t.Fatalf("delete ref: want 204, have %v %v", resp, err)
			}
			if _, resp, err := gh.Git.GetRef(ctx, owner, repoName, "heads/feature/x"); err == nil || resp.StatusCode != 404 {
				t.Fatalf("read after delete: want 404, have %v", err)
			}

			// Each session sees only its own world.
			other := "hello-agent-b"
			if sess == "agent-b" {
				other = "hello-agent-a"
			}
			if _, resp, err := gh.Repositories.Get(ctx, owner, other); err == nil || resp.StatusCode != 404 {
				t.Errorf("the other session's repository: want 404, have %v", err)
			}
			repos, _, err := gh.Repositories.ListByAuthenticatedUser(ctx, nil)
			if err != nil || len(repos) != 1 || repos[0].GetName() != repoName {
				t.Errorf("list repositories: want only %s, have %d %v", repoName, len(repos), err)
			}
		})
	}
}

func TestGitHubPagingAndScopes(t *testing.T) {
	srv := startGitHub(t, NotFound)
	ctx := context.Background()
	gh := gitHubClient(t, srv, "pager")
	for _, name := range []string{"one", "two"} {
		if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr(name)}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 35 {
		if _, _, err := gh.Issues.Create(ctx, "wraith-user", "one", &github.IssueRequest{Title: github.Ptr("issue")}); err != nil {
			t.Fatalf("issue %d: %v", i, err)
		}
	}
	if is, _, err := gh.Issues.Create(ctx, "wraith-user", "two", &github.IssueRequest{Title: github.Ptr("elsewhere")}); err != nil || is.GetNumber() != 1 {
		t.Fatalf("another repository numbers from 1: have %d %v", is.GetNumber(), err)
	}
	opts := &github.IssueListByRepoOptions{ListOptions: github.ListOptions{PerPage: 10}}
	var numbers []int
	pages := 0
	for {
		page, resp, err := gh.Issues.ListByRepo(ctx, "wraith-user", "one", opts)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, is := range page {
			numbers = append(numbers, is.GetNumber())
		}
		if pages == 1 && (resp.LastPage != 4 || resp.NextPage != 2) {
			t.Errorf("first page: want next 2 and last 4, have %d %d (Link %q)", resp.NextPage, resp.LastPage, resp.Header.Get("Link"))
		}
		if resp.NextPage == 0 {
			if resp.PrevPage != 3 || resp.FirstPage != 1 {
				t.Errorf("last page: want prev 3 and first 1, have %d %d", resp.PrevPage, resp.FirstPage)
			}
			break
		}
		opts.ListOptions.Page = resp.NextPage
	}
	if pages != 4 || len(numbers) != 35 || numbers[0] != 35 || numbers[34] != 1 {
		t.Fatalf("paging: want 4 pages of 35 issues newest first, have %d pages, %d issues (%v)", pages, len(numbers), numbers)
	}
	if _, resp, err := gh.Issues.Get(ctx, "wraith-user", "two", 2); err == nil || resp.StatusCode != 404 {
		t.Errorf("issue 2 under the wrong repository: want 404, have %v", err)
	}
}

func TestGitHubErrorShapes(t *testing.T) {
	srv := startGitHub(t, NotFound)
	ctx := context.Background()
	gh := gitHubClient(t, srv, "errors")
	_, _, err := gh.Issues.Get(ctx, "nobody", "nothing", 1)
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response.StatusCode != 404 || er.Message != "Not Found" || er.DocumentationURL == "" {
		t.Errorf("404: want GitHub's Not Found with a documentation_url, have %#v", err)
	}
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("r")}); err != nil {
		t.Fatal(err)
	}
	_, _, err = gh.Issues.Create(ctx, "wraith-user", "r", &github.IssueRequest{Body: github.Ptr("no title")})
	if !errors.As(err, &er) || er.Response.StatusCode != 422 || er.Message != "Validation Failed" || len(er.Errors) != 1 {
		t.Fatalf("422: want Validation Failed with one error, have %#v", err)
	}
	if e := er.Errors[0]; e.Resource != "Issue" || e.Field != "title" || e.Code != "missing_field" {
		t.Errorf("422 error: want Issue/title/missing_field, have %+v", e)
	}
	_, _, err = gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("r")})
	if !errors.As(err, &er) || er.Response.StatusCode != 422 || len(er.Errors) != 1 || er.Errors[0].Code != "already_exists" {
		t.Errorf("a second repository of the same name: want 422 already_exists, have %#v", err)
	}
}

// TestGitHubDeterministic checks that two sessions with the same seed get
// the same ids, numbers and bytes for the same requests.
func TestGitHubDeterministic(t *testing.T) {
	srv := startGitHub(t, NotFound)
	ctx := context.Background()
	var bodies [2]string
	for i, sess := range []string{"same-1", "same-2"} {
		gh := gitHubClient(t, srv, sess)
		repo, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("r")})
		if err != nil {
			t.Fatal(err)
		}
		is, _, err := gh.Issues.Create(ctx, "wraith-user", "r", &github.IssueRequest{Title: github.Ptr("t")})
		if err != nil {
			t.Fatal(err)
		}
		bodies[i] = strings.Join([]string{repo.String(), is.String()}, "\n")
	}
	if bodies[0] != bodies[1] {
		t.Errorf("same seed, same requests: want the same answers\n%s\n%s", bodies[0], bodies[1])
	}
}
