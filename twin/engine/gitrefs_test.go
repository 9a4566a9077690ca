package engine

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-github/v84/github"
)

// TestGitHubLegacyPaths reads a repository the ways GitHub answers and
// its clients' own requests do not show: the root's contents without
// the trailing slash, and the older git/refs/{ref} path, which lists
// every reference for no ref and the references a ref begins when it
// names none (GitHub's "Get a reference" documentation), where
// git/ref/{ref} answers one reference or 404.
func TestGitHubLegacyPaths(t *testing.T) {
	e := newGitHub(t)
	url := httpTwin(t, e)
	ctx := context.Background()
	c := gitHubClient(t, &httptest.Server{URL: url}, "legacy")
	if _, resp, err := c.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("demo"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatalf("create repository: %v (%v)", err, resp)
	}
	main, _, err := c.Git.GetRef(ctx, "wraith-user", "demo", "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"feat-a", "feat-b"} {
		if _, _, err := c.Git.CreateRef(ctx, "wraith-user", "demo", github.CreateRef{Ref: "refs/heads/" + b, SHA: main.GetObject().GetSHA()}); err != nil {
			t.Fatalf("create %s: %v", b, err)
		}
	}
	get := func(path string) (int, any) {
		t.Helper()
		req, _ := http.NewRequest("GET", url+"/repos/wraith-user/demo"+path, nil)
		req.Header.Set("X-Wraith-Session", "legacy")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("GET %s: %d %s: %v", path, resp.StatusCode, b, err)
		}
		return resp.StatusCode, v
	}
	refsOf := func(v any) []string {
		var out []string
		for _, r := range v.([]any) {
			out = append(out, r.(map[string]any)["ref"].(string))
		}
		return out
	}
	cases := []struct {
		path   string
		status int
		refs   []string // an array of these refs; nil for an object or an error
		ref    string   // the one ref of an object answer
	}{
		{path: "/contents", status: 200},
		{path: "/git/refs/", status: 200, refs: []string{"refs/heads/feat-a", "refs/heads/feat-b", "refs/heads/main"}},
		{path: "/git/refs/heads/feat", status: 200, refs: []string{"refs/heads/feat-a", "refs/heads/feat-b"}},
		{path: "/git/refs/heads/feat-a", status: 200, ref: "refs/heads/feat-a"},
		{path: "/git/ref/heads/feat", status: 404},
		{path: "/git/refs/heads/nope", status: 404},
	}
	for _, tt := range cases {
		status, v := get(tt.path)
		if status != tt.status {
			t.Errorf("GET %s: want %d, have %d %v", tt.path, tt.status, status, v)
			continue
		}
		switch {
		case tt.path == "/contents":
			arr, ok := v.([]any)
			if !ok || len(arr) != 1 || arr[0].(map[string]any)["name"] != "README.md" {
				t.Errorf("GET /contents: want the root's listing [README.md], have %v", v)
			}
		case tt.refs != nil:
			if _, ok := v.([]any); !ok {
				t.Errorf("GET %s: want an array of references, have %v", tt.path, v)
				continue
			}
			if have := refsOf(v); len(have) != len(tt.refs) || !sameSet(have, tt.refs) {
				t.Errorf("GET %s: want %v, have %v", tt.path, tt.refs, have)
			}
		case tt.ref != "":
			if o, ok := v.(map[string]any); !ok || o["ref"] != tt.ref {
				t.Errorf("GET %s: want the reference %s, have %v", tt.path, tt.ref, v)
			}
		}
	}
}

func sameSet(a, b []string) bool {
	seen := map[string]int{}
	for _, s := range a {
		seen[s]++
	}
	for _, s := range b {
		seen[s]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}
