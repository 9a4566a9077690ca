package engine

import (
	"context"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-github/v84/github"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/scrub"
)

// honestRoutes are template routes beside github-mini's resources, one
// of each kind honest.go tells apart.
const honestRoutes = `
[[routes]]
method = "GET"
path = "/rate_limit"
body = '{"rate":{"limit":5000}}'

[[routes]]
method = "GET"
path = "/repos/{owner}/{repo}/languages"
body = '{"Go":100}'

[[routes]]
method = "GET"
path = "/repos/{owner}/{repo}/releases"
body = '[{"id":1,"tag_name":"v1.0.0"}]'

[[routes]]
method = "GET"
path = "/repos/{owner}/{repo}/releases/{release_id}"
body = '{"id":1,"tag_name":"v1.0.0"}'

[[routes]]
method = "GET"
path = "/repos/{owner}/{repo}/actions/runs"
list_key = "workflow_runs"
body = '{"total_count":2,"workflow_runs":[{"id":1},{"id":2}]}'

[[routes]]
method = "GET"
path = "/repos/{owner}/{repo}/pulls/{pull_number}/merge"
status = 204

[[routes]]
method = "GET"
path = "/repos/{owner}/{repo}/issues/{issue_number}/labels"
body = '[{"id":9,"name":"sample"}]'

[[routes]]
method = "GET"
path = "/user/following/{username}"
status = 204

[[routes]]
method = "PUT"
path = "/repos/{owner}/{repo}/subscription"
body = '{"subscribed":true,"ignored":false}'

[[routes]]
method = "POST"
path = "/repos/{owner}/{repo}/releases"
status = 201
body = '{"id":1,"tag_name":"v1.0.0"}'

[[routes]]
method = "POST"
path = "/repos/{owner}/{repo}/dispatches"
status = 204
safe = true
`

// startHonest serves github-mini with honestRoutes on 127.0.0.1:0.
func startHonest(tb testing.TB, unknown string) *httptest.Server {
	tb.Helper()
	base, err := os.ReadFile("../../testdata/twins/github-mini/twin.toml")
	if err != nil {
		tb.Fatal(err)
	}
	tw, err := format.Load(fstest.MapFS{"twin.toml": {Data: append(base, honestRoutes...)}}, "github-mini")
	if err != nil {
		tb.Fatal(err)
	}
	e, err := New(tw, Options{UnknownEntity: unknown, Scrubber: scrub.New(scrub.DeriveKey([]byte(tw.Digest)), scrub.Policy{Verbatim: tw.Manifest.PII.Verbatim})})
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(e)
	tb.Cleanup(srv.Close)
	return srv
}

const jsonMedia = "application/json"

// honestWorld gives session sess a repository wraith-user/hello with
// pull request 1.
func honestWorld(tb testing.TB, url, sess string) {
	tb.Helper()
	ctx := context.Background()
	if r := send(tb, ctx, "POST", url+"/user/repos", jsonMedia, `{"name":"hello"}`, sessionHeader(sess)); r.status != 201 {
		tb.Fatalf("create repository: want 201, have %d %s", r.status, r.body)
	}
	if r := send(tb, ctx, "POST", url+"/repos/wraith-user/hello/pulls", jsonMedia, `{"title":"t","head":"f","base":"main"}`, sessionHeader(sess)); r.status != 201 {
		tb.Fatalf("create pull request: want 201, have %d %s", r.status, r.body)
	}
}

func TestHonestTemplates(t *testing.T) {
	srv := startHonest(t, NotFound)
	honestWorld(t, srv.URL, "h")
	const notFound = `{"message":"Not Found","documentation_url":"https://docs.github.com/rest","status":"404"}`
	tests := []struct {
		name, method, path string
		status             int
		prov               string
		body               string // the whole answer; "" to check only code
		code               string // the error code of a Wraith-shaped answer
	}{
		{"singleton", "GET", "/rate_limit", 200, ProvTemplate, `{"rate":{"limit":5000}}`, ""},
		{"under an entity the session has", "GET", "/repos/wraith-user/hello/languages", 200, ProvTemplate, `{"Go":100}`, ""},
		{"under an entity the session lacks", "GET", "/repos/wraith-user/nope/languages", 404, ProvMiss, notFound, ""},
		{"list of what the twin cannot model", "GET", "/repos/wraith-user/hello/releases", 200, ProvHandler, `[]`, ""},
		{"list under an entity the session lacks", "GET", "/repos/wraith-user/nope/releases", 404, ProvMiss, notFound, ""},
		{"item of what the twin cannot model", "GET", "/repos/wraith-user/hello/releases/1", 404, ProvMiss, notFound, ""},
		{"list in an envelope", "GET", "/repos/wraith-user/hello/actions/runs", 200, ProvHandler, `{"total_count":0,"workflow_runs":[]}`, ""},
		{"check of a pull request the session lacks", "GET", "/repos/wraith-user/hello/pulls/99/merge", 404, ProvMiss, notFound, ""},
		{"check of a pull request not merged", "GET", "/repos/wraith-user/hello/pulls/1/merge", 404, ProvMiss, notFound, ""},
		{"check of a fact the twin does not keep", "GET", "/user/following/octocat", 404, ProvMiss, notFound, ""},
		{"write under an entity the session has", "PUT", "/repos/wraith-user/hello/subscription", 501, ProvMiss, "", "unmodelled-write"},
		{"create the twin cannot model", "POST", "/repos/wraith-user/hello/releases", 501, ProvMiss, "", "unmodelled-write"},
		{"write under an entity the session lacks", "POST", "/repos/wraith-user/nope/releases", 404, ProvMiss, notFound, ""},
		{"safe write", "POST", "/repos/wraith-user/hello/dispatches", 204, ProvTemplate, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := send(t, context.Background(), tt.method, srv.URL+tt.path, jsonMedia, `{"event_type":"x"}`, sessionHeader("h"))
			if r.status != tt.status || r.header.Get("X-Wraith-Provenance") != tt.prov {
				t.Fatalf("want %d (%s), have %d (%s) %s", tt.status, tt.prov, r.status, r.header.Get("X-Wraith-Provenance"), r.body)
			}
			if tt.body != "" && string(r.body) != tt.body {
				t.Errorf("body: want %s, have %s", tt.body, r.body)
			}
			if tt.code != "" {
				e, _ := r.json["error"].(map[string]any)
				msg, _ := e["message"].(string)
				if e["code"] != tt.code || !strings.HasPrefix(msg, r.header.Get("X-Wraith-Route")+": ") {
					t.Errorf("error: want code %s and a message naming the route, have %s", tt.code, r.body)
				}
			}
		})
	}
}

// TestHonestCheckAfterAction: a check at an action's path answers yes
// once the entity is as the action leaves it.
func TestHonestCheckAfterAction(t *testing.T) {
	srv := startHonest(t, NotFound)
	honestWorld(t, srv.URL, "m")
	ctx := context.Background()
	if r := send(t, ctx, "PUT", srv.URL+"/repos/wraith-user/hello/pulls/1/merge", jsonMedia, `{}`, sessionHeader("m")); r.status != 200 {
		t.Fatalf("merge: want 200, have %d %s", r.status, r.body)
	}
	if r := send(t, ctx, "GET", srv.URL+"/repos/wraith-user/hello/pulls/1/merge", "", "", sessionHeader("m")); r.status != 204 {
		t.Errorf("merged check: want 204, have %d %s", r.status, r.body)
	}
	if r := send(t, ctx, "GET", srv.URL+"/repos/wraith-user/hello/pulls/1/merge", "", "", sessionHeader("other")); r.status != 404 {
		t.Errorf("the same check in a session without the pull request: want 404, have %d %s", r.status, r.body)
	}
}

// TestHonestEmptyListPages: an empty list is paged as the dialect pages
// any list, and a client decodes it.
func TestHonestEmptyListPages(t *testing.T) {
	srv := startHonest(t, NotFound)
	honestWorld(t, srv.URL, "g")
	gh := gitHubClient(t, srv, "g")
	releases, resp, err := gh.Repositories.ListReleases(context.Background(), "wraith-user", "hello", &github.ListOptions{Page: 2, PerPage: 10})
	if err != nil || resp.StatusCode != 200 || len(releases) != 0 {
		t.Fatalf("list releases: want 200 and none, have %v %v %v", resp, releases, err)
	}
	if link := resp.Header.Get("Link"); !strings.Contains(link, `rel="first"`) || resp.FirstPage != 1 {
		t.Errorf("page 2 of an empty list: want a Link to the first page, have %q", link)
	}
}

// TestHonestMemberList: a list at the path of an entity's member field
// answers the entries the session put there, paged.
func TestHonestMemberList(t *testing.T) {
	srv := startHonest(t, NotFound)
	honestWorld(t, srv.URL, "l")
	gh := gitHubClient(t, srv, "l")
	ctx := context.Background()
	if _, _, err := gh.Issues.Create(ctx, "wraith-user", "hello", &github.IssueRequest{Title: github.Ptr("labelled")}); err != nil {
		t.Fatal(err)
	}
	have, _, err := gh.Issues.ListLabelsByIssue(ctx, "wraith-user", "hello", 2, nil)
	if err != nil || len(have) != 0 {
		t.Fatalf("labels of a new issue: want none, have %v %v", have, err)
	}
	if _, _, err := gh.Issues.AddLabelsToIssue(ctx, "wraith-user", "hello", 2, []string{"bug", "docs"}); err != nil {
		t.Fatal(err)
	}
	have, resp, err := gh.Issues.ListLabelsByIssue(ctx, "wraith-user", "hello", 2, &github.ListOptions{PerPage: 1})
	if err != nil || len(have) != 1 || have[0].GetName() != "bug" || resp.NextPage != 2 {
		t.Fatalf("labels, one a page: want bug with a next page, have %v (next %d) %v", have, resp.NextPage, err)
	}
	if r := send(t, ctx, "GET", srv.URL+"/repos/wraith-user/hello/issues/7/labels", "", "", sessionHeader("l")); r.status != 404 {
		t.Errorf("labels of an issue the session lacks: want 404, have %d %s", r.status, r.body)
	}
}

// TestSynthesizeKeepsTemplates: the default policy answers every
// template as it is.
func TestSynthesizeKeepsTemplates(t *testing.T) {
	srv := startHonest(t, Synthesize)
	tests := []struct {
		method, path string
		status       int
		body         string
	}{
		{"GET", "/repos/o/nope/releases", 200, `[{"id":1,"tag_name":"v1.0.0"}]`},
		{"GET", "/repos/o/nope/releases/7", 200, `{"id":1,"tag_name":"v1.0.0"}`},
		{"GET", "/repos/o/nope/actions/runs", 200, `{"total_count":2,"workflow_runs":[{"id":1},{"id":2}]}`},
		{"GET", "/repos/o/nope/pulls/99/merge", 204, ``},
		{"POST", "/repos/o/nope/releases", 201, `{"id":1,"tag_name":"v1.0.0"}`},
	}
	for _, tt := range tests {
		r := send(t, context.Background(), tt.method, srv.URL+tt.path, jsonMedia, `{}`, sessionHeader("s"))
		if r.status != tt.status || string(r.body) != tt.body || r.header.Get("X-Wraith-Provenance") != ProvTemplate {
			t.Errorf("%s %s: want %d %s (template), have %d %s (%s)", tt.method, tt.path, tt.status, tt.body, r.status, r.body, r.header.Get("X-Wraith-Provenance"))
		}
	}
}
