package openapi_test

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/ipc"
	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/dialect/dialects"
	"github.com/wraithdev/wraith/twin/embedded"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/server"
)

// Honest templates (SPEC §13) on the embedded imported twins, under
// --unknown-entity not_found: every template route is asked about
// entities no session holds, and none may answer as if it did.

// templateRoutes are the declared routes of an embedded twin that no
// resource serves.
func templateRoutes(tb testing.TB, name string) []*format.TwinRoute {
	tb.Helper()
	sub, err := fs.Sub(embedded.FS(), name)
	if err != nil {
		tb.Fatal(err)
	}
	tw, err := format.Load(sub, name)
	if err != nil {
		tb.Fatal(err)
	}
	table, err := tw.Routes()
	if err != nil {
		tb.Fatal(err)
	}
	var out []*format.TwinRoute
	for _, rt := range table {
		if rt.Declared != nil {
			out = append(out, rt)
		}
	}
	return out
}

// fillPath puts values in a route template: known's where it names the
// parameter ("owner"), or the parameter after its segment
// ("customers/{id}"), else an id no session holds; unknown counts the
// latter.
func fillPath(template string, known map[string]string) (string, int) {
	segs := strings.Split(template, "/")
	unknown := 0
	for i, s := range segs {
		if !strings.HasPrefix(s, "{") {
			continue
		}
		p := strings.TrimSuffix(strings.Trim(s, "{}"), "...")
		if v, ok := known[segs[i-1]+"/"+s]; ok {
			segs[i] = v
			continue
		}
		if v, ok := known[p]; ok {
			segs[i] = v
			continue
		}
		segs[i] = "404404"
		unknown++
	}
	return strings.Join(segs, "/"), unknown
}

type honestReply struct {
	status int
	prov   string
	body   []byte
}

func ask(tb testing.TB, srv *server.Server, sess, method, path, ctype, body string) honestReply {
	tb.Helper()
	r, err := http.NewRequest(method, srv.URL()+path, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	r.Header.Set(ipc.SessionHeader, sess)
	if ctype != "" {
		r.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return honestReply{status: resp.StatusCode, prov: resp.Header.Get("X-Wraith-Provenance"), body: b}
}

// emptyList reports whether b is a list with no entries: a bare array,
// a Stripe list, or an object whose one array member is empty.
func emptyList(b []byte) bool {
	var arr []any
	if json.Unmarshal(b, &arr) == nil {
		return len(arr) == 0
	}
	var obj map[string]any
	if json.Unmarshal(b, &obj) != nil {
		return false
	}
	lists := 0
	for _, v := range obj {
		if a, ok := v.([]any); ok {
			if len(a) > 0 {
				return false
			}
			lists++
		}
	}
	return lists > 0
}

// errorCode is a Wraith-shaped answer's error code.
func errorCode(b []byte) string {
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	json.Unmarshal(b, &e)
	return e.Error.Code
}

// honestWorlds are, per twin, what a session is given before a sweep,
// returning the path values that name it: a Stripe customer, a GitHub
// repository, so that the routes under them answer for the rest of
// their path.
var honestWorlds = map[string]struct {
	setup func(tb testing.TB, srv *server.Server, sess string) map[string]string
	body  string // what a write sends
	ctype string
}{
	"stripe": {
		setup: func(tb testing.TB, srv *server.Server, sess string) map[string]string {
			r := ask(tb, srv, sess, "POST", "/v1/customers", "application/x-www-form-urlencoded", "email=a%40example.com")
			var c struct{ ID string }
			if json.Unmarshal(r.body, &c); r.status != 200 || c.ID == "" {
				tb.Fatalf("create customer: want 200 with an id, have %d %s", r.status, r.body)
			}
			return map[string]string{"customers/{id}": c.ID, "customer": c.ID}
		},
		ctype: "application/x-www-form-urlencoded",
	},
	"github": {
		setup: func(tb testing.TB, srv *server.Server, sess string) map[string]string {
			if r := ask(tb, srv, sess, "POST", "/user/repos", "application/json", `{"name":"hello"}`); r.status != 201 {
				tb.Fatalf("create repository: want 201, have %d %s", r.status, r.body)
			}
			return map[string]string{"owner": "wraith-user", "repo": "hello"}
		},
		body:  `{}`,
		ctype: "application/json",
	},
}

// TestHonestReadSweep asks every GET template route of both imported
// twins about entities no session holds: with every parameter unknown,
// in an empty session, and (GitHub) under a repository the session has.
// An answer may be the provider's not-found (or another refusal), an
// empty list, or, for a path that names nothing or only what the
// session has, its template; never a 2xx about an entity the session
// lacks.
func TestHonestReadSweep(t *testing.T) {
	for _, name := range []string{"stripe", "github"} {
		t.Run(name, func(t *testing.T) {
			srv := startTwin(t, name, "--unknown-entity", "not_found")
			known := honestWorlds[name].setup(t, srv, "world")
			counts := map[string]int{}
			for _, rt := range templateRoutes(t, name) {
				if rt.Method != http.MethodGet {
					continue
				}
				for _, c := range []struct {
					sess  string
					known map[string]string
				}{{"empty", map[string]string{}}, {"world", known}} {
					path, unknown := fillPath(rt.Path, c.known)
					r := ask(t, srv, c.sess, "GET", path, "", "")
					switch {
					case r.status < 200 || r.status > 299:
						counts["refused"]++
						if r.status == 200 || r.prov == "template" {
							t.Errorf("%s %s: a refusal from the template: %d (%s)", rt.Method, path, r.status, r.prov)
						}
					case emptyList(r.body) && r.prov == "handler":
						counts["empty list"]++
					case unknown == 0 && r.prov == "template":
						counts["template of what the session has"]++
						if emptyList(r.body) {
							break
						}
						var arr []any
						if json.Unmarshal(r.body, &arr) == nil {
							t.Errorf("%s %s: a list template answered as it is: %s", rt.Method, path, r.body)
						}
					case unknown == 0 && r.prov == "handler":
						// The dialect's own answer of a path that names
						// nothing: GitHub's GET /user, the session's one user.
						counts["dialect's answer of a path naming nothing"]++
					default:
						t.Errorf("%s %s (%s session): want no 2xx about an entity the session lacks, have %d (%s) %.200s", rt.Method, path, c.sess, r.status, r.prov, r.body)
					}
				}
			}
			t.Logf("%s: GET template routes, each asked twice: %v", name, counts)
			if counts["empty list"] == 0 || counts["refused"] == 0 {
				t.Errorf("the sweep asked nothing of one kind: %v", counts)
			}
		})
	}
}

// TestHonestWriteSweep sends a write to every template route: one the
// twin cannot model is 501 unmodelled-write (or the provider's
// not-found, when its path names an entity the session lacks), never its
// template, unless the route is declared safe. Validation is off, so
// that every write reaches its route's handler whatever it sends.
func TestHonestWriteSweep(t *testing.T) {
	for _, name := range []string{"stripe", "github"} {
		t.Run(name, func(t *testing.T) {
			srv := startTwin(t, name, "--unknown-entity", "not_found", "--validate", "off")
			w := honestWorlds[name]
			known := w.setup(t, srv, "world")
			counts := map[string]int{}
			d, err := dialects.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			handler, _ := d.(dialect.Handler)
			for _, rt := range templateRoutes(t, name) {
				if rt.Method == http.MethodGet || rt.Method == http.MethodHead {
					continue
				}
				if handler != nil && handler.Handles(rt.Method+" "+rt.Path) {
					counts["the dialect's"]++ // modelled by the dialect (GitHub's git): not a template
					continue
				}
				path, unknown := fillPath(rt.Path, known)
				r := ask(t, srv, "world", rt.Method, path, w.ctype, w.body)
				switch {
				case rt.Declared.Safe && unknown == 0:
					counts["safe"]++
					if r.status < 200 || r.status > 299 || r.prov != "template" {
						t.Errorf("%s %s is safe: want its template, have %d (%s) %s", rt.Method, path, r.status, r.prov, r.body)
					}
				case r.status == http.StatusNotImplemented && errorCode(r.body) == "unmodelled-write" && r.prov == "miss":
					counts["unmodelled-write"]++
				case r.status == http.StatusNotFound && r.prov == "miss" && unknown > 0:
					// the path names an entity the session lacks
					counts["not found"]++
				default:
					t.Errorf("%s %s: want 501 unmodelled-write, have %d (%s) %.200s", rt.Method, path, r.status, r.prov, r.body)
				}
				if unknown == 0 && !rt.Declared.Safe && r.status >= 200 && r.status < 300 {
					t.Errorf("%s %s: a write the twin cannot model answered %d", rt.Method, path, r.status)
				}
			}
			t.Logf("%s: write template routes: %v", name, counts)
			if counts["unmodelled-write"] == 0 || counts["safe"] != 1 {
				t.Errorf("want unmodelled writes and the one safe route, have %v", counts)
			}
		})
	}
}

// TestHonestListDecodes: go-github reads the empty list of a route the
// twin cannot model, as it reads GitHub's.
func TestHonestListDecodes(t *testing.T) {
	srv := startTwin(t, "github", "--unknown-entity", "not_found")
	honestWorlds["github"].setup(t, srv, "gh")
	gh := githubClient(t, srv, "gh")
	ctx := context.Background()
	releases, resp, err := gh.Repositories.ListReleases(ctx, "wraith-user", "hello", nil)
	if err != nil || resp.StatusCode != 200 || len(releases) != 0 {
		t.Fatalf("list releases: want 200 and none, have %v %v %v", resp, releases, err)
	}
	runs, resp, err := gh.Actions.ListRepositoryWorkflowRuns(ctx, "wraith-user", "hello", nil)
	if err != nil || resp.StatusCode != 200 || runs.GetTotalCount() != 0 || len(runs.WorkflowRuns) != 0 {
		t.Fatalf("list workflow runs: want 200, total_count 0 and none, have %v %+v %v", resp, runs, err)
	}
	if _, resp, err := gh.Repositories.ListReleases(ctx, "wraith-user", "nope", nil); resp == nil || resp.StatusCode != 404 {
		t.Errorf("releases of a repository the session lacks: want 404, have %v %v", resp, err)
	}
	merged, resp, err := gh.PullRequests.IsMerged(ctx, "wraith-user", "hello", 99)
	if merged || resp == nil || resp.StatusCode != 404 {
		t.Errorf("is pull request 99 merged: want 404 (no), have %v %v %v", merged, resp, err)
	}
	if _, resp, _ := gh.Repositories.GetRelease(ctx, "wraith-user", "hello", 1); resp == nil || resp.StatusCode != 404 {
		t.Errorf("release 1: want 404, have %v", resp)
	}
}

// TestGitHubReadsJSONAsForm: GitHub reads a JSON body whatever the
// Content-Type says (curl -d '{...}' says form-encoded), and refuses a
// body that is no JSON with its sentence for it.
func TestGitHubReadsJSONAsForm(t *testing.T) {
	srv := startTwin(t, "github", "--unknown-entity", "not_found")
	honestWorlds["github"].setup(t, srv, "curl")
	tests := []struct {
		name, ctype, body string
		status            int
		title, message    string
	}{
		{"curl -d", "application/x-www-form-urlencoded", `{"title":"from curl","body":"hello"}`, 201, "from curl", ""},
		{"no Content-Type", "", `{"title":"bare"}`, 201, "bare", ""},
		{"JSON", "application/json", `{"title":"json"}`, 201, "json", ""},
		{"a form", "application/x-www-form-urlencoded", `title=form`, 0, "", "Problems parsing JSON"},
		{"broken JSON", "application/json", `{"title":`, 0, "", "Problems parsing JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ask(t, srv, "curl", "POST", "/repos/wraith-user/hello/issues", tt.ctype, tt.body)
			var m struct{ Title, Message string }
			json.Unmarshal(r.body, &m)
			if tt.status != 0 {
				if r.status != tt.status || m.Title != tt.title {
					t.Fatalf("want %d with title %q, have %d %s", tt.status, tt.title, r.status, r.body)
				}
				return
			}
			// GitHub answers 400; the engine answers a body it cannot
			// read in the twin's invalid-request shape (422) until it
			// has a shape of its own for it.
			if r.status < 400 || r.status > 499 || !strings.Contains(m.Message, tt.message) {
				t.Errorf("want a refusal saying %q, have %d %s", tt.message, r.status, r.body)
			}
		})
	}
}
