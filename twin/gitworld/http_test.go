package gitworld

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCloneCommitPush clones an auto_init repository with the real git,
// commits and pushes a branch, and sees the branch and its file through
// the package's API.
func TestCloneCommitPush(t *testing.T) {
	g := newGit(t)
	w, r := newRepo(t, Limits{})
	url := serve(t, w)
	dir := filepath.Join(t.TempDir(), "demo")
	g.run("", "clone", url+"/octo/demo.git", dir)
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil || string(readme) != "# demo" {
		t.Fatalf("README.md: want %q, have %q (%v)", "# demo", readme, err)
	}
	main := must[Ref](t)(r.Ref("heads/main"))
	if have := strings.TrimSpace(g.run(dir, "rev-parse", "HEAD")); have != main.SHA {
		t.Fatalf("cloned HEAD: want %s, have %s", main.SHA, have)
	}
	g.run(dir, "switch", "-c", "feature")
	if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g.run(dir, "add", "hello.txt")
	g.run(dir, "commit", "-m", "Add hello")
	g.run(dir, "push", "origin", "feature")
	local := strings.TrimSpace(g.run(dir, "rev-parse", "HEAD"))
	feature, err := r.Ref("refs/heads/feature")
	if err != nil || feature.SHA != local {
		t.Fatalf("pushed branch: want %s, have %+v (%v)", local, feature, err)
	}
	c := must[Commit](t)(r.Commit(local))
	if c.Message != "Add hello\n" || len(c.Parents) != 1 || c.Parents[0] != main.SHA {
		t.Fatalf("pushed commit: want message %q and parent %s, have %+v", "Add hello\n", main.SHA, c)
	}
	_, entries, _, err := r.Tree("feature", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[1].Path != "hello.txt" {
		t.Fatalf("tree of feature: want README.md and hello.txt, have %+v", entries)
	}
	blob := must[[]byte](t)(r.Blob(entries[1].SHA))
	if string(blob) != "hello\n" {
		t.Fatalf("pushed blob: want %q, have %q", "hello\n", blob)
	}
}

// TestFetchSeesAPICommit writes a commit through the API and fetches it
// with git, which negotiates with haves it already holds.
func TestFetchSeesAPICommit(t *testing.T) {
	g := newGit(t)
	w, r := newRepo(t, Limits{})
	url := serve(t, w)
	dir := filepath.Join(t.TempDir(), "demo")
	g.run("", "clone", url+"/octo/demo.git", dir)

	main := must[Ref](t)(r.Ref("heads/main"))
	tree := must[string](t)(r.WriteTree(must[Commit](t)(r.Commit(main.SHA)).Tree, []TreeChange{{Path: "docs/api.md", Content: []byte("from the API\n")}}))
	c := must[Commit](t)(r.WriteCommit(NewCommit{Tree: tree, Parents: []string{main.SHA}, Message: "API commit", Author: sig(1)}))
	must[Ref](t)(r.UpdateRef("heads/main", c.SHA, false))

	g.run(dir, "fetch", "origin")
	if have := strings.TrimSpace(g.run(dir, "rev-parse", "origin/main")); have != c.SHA {
		t.Fatalf("fetched origin/main: want %s, have %s", c.SHA, have)
	}
	if have := g.run(dir, "show", "origin/main:docs/api.md"); have != "from the API\n" {
		t.Fatalf("fetched file: want %q, have %q", "from the API\n", have)
	}
	g.run(dir, "fsck", "--strict")
}

// TestNonFastForwardPushRefused: a push of a commit that does not descend
// from the branch as it now is (the API moved it) is refused, and the
// branch stays where it was.
func TestNonFastForwardPushRefused(t *testing.T) {
	g := newGit(t)
	w, r := newRepo(t, Limits{})
	url := serve(t, w)
	dir := filepath.Join(t.TempDir(), "demo")
	g.run("", "clone", url+"/octo/demo.git", dir)

	main := must[Ref](t)(r.Ref("heads/main"))
	base := must[Commit](t)(r.Commit(main.SHA))
	tree := must[string](t)(r.WriteTree(base.Tree, []TreeChange{{Path: "api.txt", Content: []byte("api\n")}}))
	c := must[Commit](t)(r.WriteCommit(NewCommit{Tree: tree, Parents: []string{main.SHA}, Message: "API commit", Author: sig(1)}))
	must[Ref](t)(r.UpdateRef("heads/main", c.SHA, false))

	os.WriteFile(filepath.Join(dir, "local.txt"), []byte("local\n"), 0o644)
	g.run(dir, "add", ".")
	g.run(dir, "commit", "-m", "local")
	out, err := g.try(dir, "push", "origin", "main")
	if err == nil || !strings.Contains(out, "rejected") {
		t.Fatalf("non-fast-forward push: want it rejected, have err %v:\n%s", err, out)
	}
	if have := must[Ref](t)(r.Ref("heads/main")); have.SHA != c.SHA {
		t.Fatalf("main after the refused push: want %s, have %s", c.SHA, have.SHA)
	}

	// After a fetch git knows the remote and still refuses: not a fast forward.
	g.run(dir, "fetch", "origin")
	out, err = g.try(dir, "push", "origin", "main")
	if err == nil || !strings.Contains(out, "non-fast-forward") {
		t.Fatalf("push after fetch: want non-fast-forward, have err %v:\n%s", err, out)
	}
}
