package engine

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-github/v84/github"
)

// BenchmarkGitHubContents reads and writes one file through the github
// twin's contents routes, answered from the session's git: a served
// request each, over loopback.
func BenchmarkGitHubContents(b *testing.B) {
	url := httpTwin(b, newGitHub(b))
	ctx := context.Background()
	c := gitHubClient(b, &httptest.Server{URL: url}, "bench")
	if _, _, err := c.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("demo"), AutoInit: github.Ptr(true)}); err != nil {
		b.Fatal(err)
	}
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			if _, _, resp, err := c.Repositories.GetContents(ctx, "wraith-user", "demo", "README.md", nil); err != nil || resp.StatusCode != http.StatusOK {
				b.Fatal(err)
			}
		}
	})
	b.Run("update", func(b *testing.B) {
		f, _, _, err := c.Repositories.GetContents(ctx, "wraith-user", "demo", "README.md", nil)
		if err != nil {
			b.Fatal(err)
		}
		sha := f.GetSHA()
		n := 0
		for b.Loop() {
			n++
			r, _, err := c.Repositories.UpdateFile(ctx, "wraith-user", "demo", "README.md", &github.RepositoryContentFileOptions{
				Message: github.Ptr("edit"), Content: []byte("# demo " + string(rune('a'+n%26))), SHA: github.Ptr(sha)})
			if err != nil {
				b.Fatal(err)
			}
			sha = r.Content.GetSHA()
		}
	})
}
