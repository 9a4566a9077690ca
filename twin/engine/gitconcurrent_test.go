package engine

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/google/go-github/v84/github"
)

// TestGitHubGitConcurrent runs writes on branches of their own beside
// reads, all in one session at once (run it under -race): every write
// lands, each branch holds exactly its own commits, and no read fails.
func TestGitHubGitConcurrent(t *testing.T) {
	url := httpTwin(t, newGitHub(t))
	ctx := context.Background()
	c := gitHubClient(t, &httptest.Server{URL: url}, "busy")
	if _, _, err := c.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("demo"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	main, _, err := c.Git.GetRef(ctx, "wraith-user", "demo", "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	const writers, commits = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers*commits*2)
	for w := range writers {
		branch := fmt.Sprintf("w%d", w)
		if _, _, err := c.Git.CreateRef(ctx, "wraith-user", "demo", github.CreateRef{Ref: "refs/heads/" + branch, SHA: main.GetObject().GetSHA()}); err != nil {
			t.Fatal(err)
		}
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := range commits {
				_, _, err := c.Repositories.CreateFile(ctx, "wraith-user", "demo", fmt.Sprintf("%s/%d.txt", branch, i), &github.RepositoryContentFileOptions{
					Message: github.Ptr("add"), Content: []byte(branch), Branch: github.Ptr(branch)})
				if err != nil {
					errs <- fmt.Errorf("write %s %d: %w", branch, i, err)
				}
			}
		}()
		go func() {
			defer wg.Done()
			for range commits {
				if _, _, err := c.Repositories.ListCommits(ctx, "wraith-user", "demo", &github.CommitsListOptions{SHA: "main"}); err != nil {
					errs <- fmt.Errorf("read: %w", err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for w := range writers {
		list, _, err := c.Repositories.ListCommits(ctx, "wraith-user", "demo", &github.CommitsListOptions{SHA: fmt.Sprintf("w%d", w)})
		if err != nil {
			t.Fatal(err)
		}
		if want, have := commits+1, len(list); want != have {
			t.Errorf("branch w%d: want its %d commits over the initial one, have %d commits", w, commits, have)
		}
	}
}
