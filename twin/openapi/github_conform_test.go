package openapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/format"
)

// githubScript is what the conformance run sends to the stateful
// operations, in order: the creates first, so that every read, update and
// action finds its entity, and the deletes last.
var githubScript = []struct{ id, body string }{
	{"repos/create-for-authenticated-user", `{"name":"conf","auto_init":true}`},
	{"git/create-ref", `{"ref":"refs/heads/feature","sha":"{main_sha}"}`}, // the pull request's head must exist
	{"issues/create", `{"title":"first"}`},
	{"pulls/create", `{"title":"pr","head":"feature","base":"main"}`},
	{"issues/create-label", `{"name":"bug"}`},
	{"issues/create-comment", `{"body":"hello"}`},
	{"issues/add-labels", `{"labels":["bug"]}`},
	{"issues/update", `{"state":"closed"}`},
	{"issues/update-label", `{"description":"a bug"}`},
	{"issues/update-comment", `{"body":"edited"}`},
	{"pulls/update", `{"body":"more"}`},
	{"git/update-ref", `{"sha":"{main_sha}"}`},
	{"repos/update", `{"description":"a repository"}`},
}

var githubLast = []string{"pulls/merge", "issues/delete-comment", "issues/delete-label", "git/delete-ref", "repos/delete"}

// TestGitHubConformance drives every operation of GitHub's description
// against the embedded github twin (the stateful ones on entities the
// session created) and validates every answer that is not a miss against
// the description's response for that operation.
func TestGitHubConformance(t *testing.T) {
	t.Parallel()
	doc := githubDoc(t)
	srv := startTwin(t, "github", "--clock", "deterministic", "--clock-epoch", "1700000000")
	tw, err := format.Load(mustSub(t, "github"), "embedded twin github")
	if err != nil {
		t.Fatal(err)
	}
	reqs := requestsOf(t, tw)
	type op struct{ method, path, id string }
	byID := map[string]op{}
	var all []op
	for _, p := range doc.Paths.Keys() {
		for m, o := range doc.Paths.Value(p).Operations() {
			byID[o.OperationID] = op{m, p, o.OperationID}
			all = append(all, op{m, p, o.OperationID})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].path+all[i].method < all[j].path+all[j].method })
	scripted := map[string]string{}
	var order []op
	for _, s := range githubScript {
		scripted[s.id] = s.body
		order = append(order, byID[s.id])
	}
	last := map[string]bool{}
	for _, id := range githubLast {
		last[id] = true
	}
	for _, o := range all {
		if _, ok := scripted[o.id]; !ok && !last[o.id] {
			order = append(order, o)
		}
	}
	for _, id := range githubLast {
		order = append(order, byID[id])
	}

	vals := map[string]string{"owner": "wraith-user", "repo": "conf", "issue_number": "1", "pull_number": "2", "name": "bug", "ref": "heads/feature"}
	param := regexp.MustCompile(`\{([^}]+)\}`)
	var answered, valid, missed int
	var failures []string
	for _, o := range order {
		target := param.ReplaceAllStringFunc(o.path, func(s string) string {
			if s == "{ref}" && !strings.Contains(o.path, "/git/") {
				return "main"
			}
			if v, ok := vals[s[1:len(s)-1]]; ok {
				return v
			}
			return "1"
		})
		// A request GitHub accepts: the script's, else the operation's
		// required members (request validation refuses less, as GitHub
		// does).
		body, ok := scripted[o.id]
		if rq := reqs.Lookup(strings.ToUpper(o.method), o.path); rq != nil && !ok {
			if o.method == "get" || o.method == "delete" {
				if q := minimalForm(rq.Params); q != "" {
					target += "?" + q
				}
			} else {
				body = minimalJSON(rq.Params)
			}
		} else if !ok && o.method != "get" && o.method != "delete" && o.method != "GET" && o.method != "DELETE" {
			body = "{}"
		}
		body = strings.ReplaceAll(body, "{main_sha}", vals["main_sha"])
		req, _ := http.NewRequest(strings.ToUpper(o.method), srv.URL()+target, strings.NewReader(body))
		req.Header.Set("X-Wraith-Session", "conformance")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.Header.Get("X-Wraith-Provenance") == "miss" {
			missed++
			continue
		}
		answered++
		if o.id == "repos/create-for-authenticated-user" {
			vals["main_sha"] = mainSHA(t, srv.URL()+"/repos/wraith-user/conf/git/ref/heads/main")
		}
		if o.id == "issues/create-comment" {
			var c struct{ ID json.Number }
			if json.Unmarshal(raw, &c) == nil {
				vals["comment_id"] = c.ID.String()
			}
		}
		if _, ok := scripted[o.id]; ok && resp.StatusCode >= 300 {
			t.Errorf("%s %s: want success from the session's state, have %s %s", o.method, target, resp.Status, raw)
		}
		if err := validate(doc, strings.ToUpper(o.method), o.path, req, resp, raw); err != nil {
			failures = append(failures, o.id+" ("+resp.Header.Get("X-Wraith-Provenance")+" "+resp.Status+"): "+firstLine(err.Error()))
			continue
		}
		valid++
	}
	t.Logf("github conformance: %d operations, %d answered, %d valid, %d misses", len(order), answered, valid, missed)
	for _, f := range failures {
		t.Logf("does not validate: %s", f)
	}
	if answered < 1000 {
		t.Errorf("want 1000+ of GitHub's operations answered, have %d", answered)
	}
	if valid != answered {
		t.Errorf("want every answer valid, have %d of %d", valid, answered)
	}
}

// mainSHA is the commit a repository's main branch names, read through
// the twin's git data API.
func mainSHA(t *testing.T, url string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("X-Wraith-Session", "conformance")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ref struct{ Object struct{ SHA string } }
	if err := json.NewDecoder(resp.Body).Decode(&ref); err != nil || ref.Object.SHA == "" {
		t.Fatalf("main's sha: %s %v", resp.Status, err)
	}
	return ref.Object.SHA
}
