package openapi_test

import (
	"context"
	"testing"

	"github.com/google/go-github/v84/github"
)

// TestGitHubIssueLabelsAndAssignees creates and edits issues with labels
// and assignees named by name, as go-github sends them, and decodes the
// label and user objects GitHub answers (SPEC §13: arrays of objects stay
// objects): a label the repository has is that label, one it lacks is
// made, as GitHub makes it, and reads and lists answer the same.
func TestGitHubIssueLabelsAndAssignees(t *testing.T) {
	srv := startTwin(t, "github", "--unknown-entity", "not_found", "--clock", "deterministic", "--clock-epoch", "1700000000")
	ctx := context.Background()
	gh := githubClient(t, srv, "labels")
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("r")}); err != nil {
		t.Fatal(err)
	}
	bug, _, err := gh.Issues.CreateLabel(ctx, "wraith-user", "r", &github.Label{Name: github.Ptr("bug"), Color: github.Ptr("d73a4a"), Description: github.Ptr("Something isn't working")})
	if err != nil {
		t.Fatal(err)
	}
	issue, _, err := gh.Issues.Create(ctx, "wraith-user", "r", &github.IssueRequest{
		Title:     github.Ptr("t"),
		Labels:    &[]string{"bug", "triage", "bug"},
		Assignees: &[]string{"ada", "lin"},
	})
	if err != nil {
		t.Fatalf("create issue: %v", err)
	}
	check := func(step string, is *github.Issue, labels, logins []string) {
		t.Helper()
		if len(is.Labels) != len(labels) {
			t.Fatalf("%s: want labels %q, have %+v", step, labels, is.Labels)
		}
		for i, l := range is.Labels {
			if l.GetName() != labels[i] || l.GetID() == 0 || l.GetNodeID() == "" || l.GetURL() != srv.URL()+"/repos/wraith-user/r/labels/"+labels[i] {
				t.Errorf("%s: label %d: want %q with an id, node id and its url, have %+v", step, i, labels[i], l)
			}
		}
		if is.Labels[0].GetID() != bug.GetID() || is.Labels[0].GetColor() != "d73a4a" {
			t.Errorf("%s: want the repository's bug label (id %d, color d73a4a), have %+v", step, bug.GetID(), is.Labels[0])
		}
		if len(is.Assignees) != len(logins) {
			t.Fatalf("%s: want assignees %q, have %+v", step, logins, is.Assignees)
		}
		for i, u := range is.Assignees {
			if u.GetLogin() != logins[i] || u.GetID() == 0 || u.GetType() != "User" || u.GetURL() != srv.URL()+"/users/"+logins[i] {
				t.Errorf("%s: assignee %d: want user %q with an id, have %+v", step, i, logins[i], u)
			}
		}
	}
	check("create", issue, []string{"bug", "triage"}, []string{"ada", "lin"})
	got, _, err := gh.Issues.Get(ctx, "wraith-user", "r", issue.GetNumber())
	if err != nil {
		t.Fatal(err)
	}
	check("get", got, []string{"bug", "triage"}, []string{"ada", "lin"})
	// The label the issue named is the repository's now, as at GitHub.
	triage, _, err := gh.Issues.GetLabel(ctx, "wraith-user", "r", "triage")
	if err != nil || triage.GetID() != issue.Labels[1].GetID() {
		t.Errorf("want the triage label made in the repository with the issue's id %d, have %+v %v", issue.Labels[1].GetID(), triage, err)
	}
	edited, _, err := gh.Issues.Edit(ctx, "wraith-user", "r", issue.GetNumber(), &github.IssueRequest{Labels: &[]string{"bug"}, Assignees: &[]string{"lin"}})
	if err != nil {
		t.Fatal(err)
	}
	check("edit", edited, []string{"bug"}, []string{"lin"})
	list, _, err := gh.Issues.ListByRepo(ctx, "wraith-user", "r", nil)
	if err != nil || len(list) != 1 {
		t.Fatalf("list: want the issue, have %d %v", len(list), err)
	}
	check("list", list[0], []string{"bug"}, []string{"lin"})
}
