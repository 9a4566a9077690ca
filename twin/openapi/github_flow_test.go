package openapi_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-github/v84/github"
)

// TestGitHubFlow drives the embedded github twin with go-github, as an
// agent would, in two sessions that must not see each other's world.
func TestGitHubFlow(t *testing.T) {
	srv := startTwin(t, "github", "--unknown-entity", "not_found", "--seed", "7", "--clock", "deterministic", "--clock-epoch", "1700000000")
	ctx := context.Background()
	for _, sess := range []string{"agent-a", "agent-b"} {
		t.Run(sess, func(t *testing.T) {
			gh := githubClient(t, srv, sess)
			name := "hello-" + sess
			repo, resp, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr(name)})
			if err != nil || resp.StatusCode != 201 || resp.Header.Get("X-Wraith-Provenance") != "handler" {
				t.Fatalf("create repository: want 201 from the handler, have %v %v", resp, err)
			}
			owner := repo.GetOwner().GetLogin()
			if owner != "wraith-user" || repo.GetFullName() != "wraith-user/"+name || repo.GetID() == 0 {
				t.Fatalf("repository: want wraith-user/%s with an id, have %s id %d", name, repo.GetFullName(), repo.GetID())
			}
			if got, _, err := gh.Repositories.Get(ctx, owner, name); err != nil || got.GetID() != repo.GetID() {
				t.Fatalf("get repository: %v %v", got, err)
			}

			issue, resp, err := gh.Issues.Create(ctx, owner, name, &github.IssueRequest{Title: github.Ptr("first"), Body: github.Ptr("hello")})
			if err != nil || resp.StatusCode != 201 || issue.GetNumber() != 1 || issue.GetState() != "open" {
				t.Fatalf("create issue: want number 1, open, have %v %v", issue, err)
			}
			if want := srv.URL() + "/repos/" + owner + "/" + name + "/issues/1"; issue.GetURL() != want {
				t.Errorf("issue url: want %s, have %s", want, issue.GetURL())
			}
			if got, _, err := gh.Issues.Get(ctx, owner, name, 1); err != nil || got.GetTitle() != "first" || got.GetID() != issue.GetID() {
				t.Fatalf("get issue: %v %v", got, err)
			}
			closed, _, err := gh.Issues.Edit(ctx, owner, name, 1, &github.IssueRequest{State: github.Ptr("closed")})
			if err != nil || closed.GetState() != "closed" || closed.ClosedAt == nil || closed.GetTitle() != "first" {
				t.Fatalf("close issue: want closed, closed_at set, title kept; have %v %v", closed, err)
			}
			if open, _, err := gh.Issues.ListByRepo(ctx, owner, name, nil); err != nil || len(open) != 0 {
				t.Errorf("open issues after closing: want none, have %d %v", len(open), err)
			}
			all, _, err := gh.Issues.ListByRepo(ctx, owner, name, &github.IssueListByRepoOptions{State: "all"})
			if err != nil || len(all) != 1 {
				t.Errorf("all issues: want 1, have %d %v", len(all), err)
			}
			reopened, _, err := gh.Issues.Edit(ctx, owner, name, 1, &github.IssueRequest{State: github.Ptr("open")})
			if err != nil || reopened.GetState() != "open" || reopened.ClosedAt != nil {
				t.Fatalf("reopen issue: want open, closed_at cleared; have %v %v", reopened, err)
			}

			comment, _, err := gh.Issues.CreateComment(ctx, owner, name, 1, &github.IssueComment{Body: github.Ptr("looks good")})
			if err != nil || comment.GetID() == 0 || comment.GetBody() != "looks good" {
				t.Fatalf("create comment: %v %v", comment, err)
			}
			if cs, _, err := gh.Issues.ListComments(ctx, owner, name, 1, nil); err != nil || len(cs) != 1 || cs[0].GetID() != comment.GetID() {
				t.Fatalf("list comments: want the one comment, have %d %v", len(cs), err)
			}
			labels, _, err := gh.Issues.AddLabelsToIssue(ctx, owner, name, 1, []string{"bug"})
			if err != nil || len(labels) != 1 || labels[0].GetName() != "bug" {
				t.Fatalf("add label: %v %v", labels, err)
			}
			if l, _, err := gh.Issues.GetLabel(ctx, owner, name, "bug"); err != nil || l.GetID() != labels[0].GetID() {
				t.Fatalf("the added label is the repository's: %v %v", l, err)
			}
			if got, _, _ := gh.Issues.Get(ctx, owner, name, 1); len(got.Labels) != 1 {
				t.Errorf("issue labels: want 1, have %v", got.Labels)
			}

			pr, resp, err := gh.PullRequests.Create(ctx, owner, name, &github.NewPullRequest{Title: github.Ptr("feature"), Head: github.Ptr("feature"), Base: github.Ptr("main")})
			if err != nil || resp.StatusCode != 201 || pr.GetNumber() != 2 {
				t.Fatalf("create pull request: want number 2, after issue 1, have %v %v", pr.GetNumber(), err)
			}
			if got, _, err := gh.PullRequests.Get(ctx, owner, name, 2); err != nil || got.GetTitle() != "feature" || got.GetState() != "open" {
				t.Fatalf("get pull request: %v %v", got, err)
			}

			other := "hello-agent-b"
			if sess == "agent-b" {
				other = "hello-agent-a"
			}
			var er *github.ErrorResponse
			if _, _, err := gh.Repositories.Get(ctx, owner, other); !errors.As(err, &er) || er.Response.StatusCode != 404 || er.Message != "Not Found" {
				t.Errorf("the other session's repository: want GitHub's 404, have %v", err)
			}
			if repos, _, err := gh.Repositories.ListByAuthenticatedUser(ctx, nil); err != nil || len(repos) != 1 || repos[0].GetName() != name {
				t.Errorf("list repositories: want only %s, have %d %v", name, len(repos), err)
			}
		})
	}
}

// TestGitHubPaging pages through 35 issues, 10 a page, by the Link header.
func TestGitHubPaging(t *testing.T) {
	srv := startTwin(t, "github", "--unknown-entity", "not_found")
	ctx := context.Background()
	gh := githubClient(t, srv, "pager")
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("many")}); err != nil {
		t.Fatal(err)
	}
	for i := range 35 {
		if _, _, err := gh.Issues.Create(ctx, "wraith-user", "many", &github.IssueRequest{Title: github.Ptr("issue")}); err != nil {
			t.Fatalf("issue %d: %v", i, err)
		}
	}
	opts := &github.IssueListByRepoOptions{ListOptions: github.ListOptions{PerPage: 10}}
	var numbers []int
	pages := 0
	for {
		page, resp, err := gh.Issues.ListByRepo(ctx, "wraith-user", "many", opts)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, is := range page {
			numbers = append(numbers, is.GetNumber())
		}
		if pages == 1 && (resp.NextPage != 2 || resp.LastPage != 4) {
			t.Errorf("first page: want next 2, last 4; have %d %d (Link %q)", resp.NextPage, resp.LastPage, resp.Header.Get("Link"))
		}
		if resp.NextPage == 0 {
			break
		}
		opts.ListOptions.Page = resp.NextPage
	}
	if pages != 4 || len(numbers) != 35 || numbers[0] != 35 || numbers[34] != 1 {
		t.Fatalf("paging: want 4 pages of 35 issues newest first, have %d pages, %d issues %v", pages, len(numbers), numbers)
	}
}

// TestGitHubValidation checks GitHub's 422 validation_failed shape.
func TestGitHubValidation(t *testing.T) {
	srv := startTwin(t, "github", "--unknown-entity", "not_found")
	ctx := context.Background()
	gh := githubClient(t, srv, "errors")
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("r")}); err != nil {
		t.Fatal(err)
	}
	_, _, err := gh.Issues.Create(ctx, "wraith-user", "r", &github.IssueRequest{Body: github.Ptr("no title")})
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response.StatusCode != 422 || er.Message != "Validation Failed" || len(er.Errors) != 1 {
		t.Fatalf("422: want Validation Failed with one error, have %#v", err)
	}
	if e := er.Errors[0]; e.Resource != "Issue" || e.Field != "title" || e.Code != "missing_field" {
		t.Errorf("422 error: want Issue/title/missing_field, have %+v", e)
	}
}
