package gitworld

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
)

// day is a few steps an agent takes, the same in every world it runs in.
func day(tb testing.TB, w *World) (shas []string) {
	tb.Helper()
	r := must[*Repo](tb)(w.CreateRepo("octo/day", RepoOptions{AutoInit: true, Author: sig(0)}))
	main := must[Ref](tb)(r.Ref("heads/main"))
	must[Ref](tb)(r.CreateRef("heads/feature", main.SHA))
	f := must[FileResult](tb)(r.PutFile(FileChange{Branch: "feature", Path: "src/a.go", Content: []byte("package a\n"), Message: "add a", Author: sig(1)}))
	g := must[FileResult](tb)(r.PutFile(FileChange{Branch: "feature", Path: "src/a.go", SHA: f.SHA, Content: []byte("package a\n\nvar X = 1\n"), Message: "X", Author: sig(2)}))
	m := must[Commit](tb)(r.Merge(MergeRequest{Base: "main", Head: "feature", Method: Squash, Message: "Squash (#1)", Author: sig(3)}))
	tag := must[Tag](tb)(r.WriteTag(NewTag{Name: "v1", Message: "v1", Object: m.SHA, Tagger: sig(4)}))
	return []string{main.SHA, f.Commit.SHA, g.Commit.SHA, m.SHA, tag.SHA}
}

// TestDeterministic: two worlds doing the same steps with the same clock
// make the same shas and the same snapshot bytes; a restored snapshot
// answers the same and snapshots to the same bytes again.
func TestDeterministic(t *testing.T) {
	a, b := New(Limits{}), New(Limits{})
	sa, sb := day(t, a), day(t, b)
	if !slices.Equal(sa, sb) {
		t.Fatalf("shas: want the same in both worlds, have\n%q\n%q", sa, sb)
	}
	ba, bb := must[[]byte](t)(a.Snapshot()), must[[]byte](t)(b.Snapshot())
	if !bytes.Equal(ba, bb) {
		t.Fatalf("snapshots of equal worlds differ (%d and %d bytes)", len(ba), len(bb))
	}
	c := must[*World](t)(Restore(ba, Limits{}))
	if bc := must[[]byte](t)(c.Snapshot()); !bytes.Equal(bc, ba) {
		t.Fatalf("the snapshot of a restored world: want the bytes it was restored from")
	}
	r := must[*Repo](t)(c.Repo("OCTO/DAY"))
	if have := must[Ref](t)(r.Ref("heads/main")); have.SHA != sa[3] {
		t.Fatalf("restored main: want %s, have %s", sa[3], have.SHA)
	}
	if file := must[Content](t)(r.Content("main", "src/a.go")); string(file.Data) != "package a\n\nvar X = 1\n" {
		t.Fatalf("restored file: have %q", file.Data)
	}
	// Steps after a restore make the same shas as in the original.
	after := func(w *World) string {
		r := must[*Repo](t)(w.Repo("octo/day"))
		return must[FileResult](t)(r.PutFile(FileChange{Path: "c.txt", Content: []byte("c"), Message: "c", Author: sig(9)})).Commit.SHA
	}
	if x, y := after(a), after(c); x != y {
		t.Fatalf("a commit after the restore: want %s, have %s", x, y)
	}
}

func TestRestoreRefusesDamage(t *testing.T) {
	w := New(Limits{})
	day(t, w)
	good := must[[]byte](t)(w.Snapshot())
	flip := bytes.Clone(good)
	flip[len(flip)-3] ^= 0xff // inside the last object: its content no longer matches a reference
	tests := map[string][]byte{
		"empty":           nil,
		"other magic":     []byte("wraith-gitworld 9\n"),
		"cut short":       good[:len(good)-10],
		"trailing bytes":  append(bytes.Clone(good), 0),
		"changed content": flip,
	}
	for name, data := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := Restore(data, Limits{}); err == nil {
				t.Fatal("want an error, have a world")
			}
		})
	}
}

// TestForkIsolation: a fork sees what its parent held, and writes on
// either side stay on that side; Size counts only a world's own objects.
func TestForkIsolation(t *testing.T) {
	parent, r := newRepo(t, Limits{})
	before := parent.Size()
	if before == 0 {
		t.Fatal("Size of a world with an initial commit: want more than 0")
	}
	child := parent.Fork()
	if parent.Size() != 0 || child.Size() != 0 {
		t.Fatalf("Size right after a fork: want 0 on both sides (all shared), have %d and %d", parent.Size(), child.Size())
	}
	cr := must[*Repo](t)(child.Repo("octo/demo"))
	readme := must[Content](t)(cr.Content("", "README.md"))

	pw := must[FileResult](t)(r.PutFile(FileChange{Path: "parent.txt", Content: []byte("p"), Message: "p", Author: sig(1)}))
	cw := must[FileResult](t)(cr.PutFile(FileChange{Path: "README.md", SHA: readme.SHA, Content: []byte("child"), Message: "c", Author: sig(1)}))
	must[*Repo](t)(child.CreateRepo("octo/only-child", RepoOptions{}))

	if _, err := cr.Content("", "parent.txt"); err == nil {
		t.Fatal("the child sees the parent's later file")
	}
	if _, err := cr.Blob(pw.SHA); err == nil {
		t.Fatal("the child holds the parent's later blob")
	}
	if have := must[Content](t)(r.Content("", "README.md")); string(have.Data) != "# demo" {
		t.Fatalf("the parent's README after the child's write: want %q, have %q", "# demo", have.Data)
	}
	if _, err := r.Commit(cw.Commit.SHA); err == nil {
		t.Fatal("the parent holds the child's commit")
	}
	if _, err := parent.Repo("octo/only-child"); err == nil {
		t.Fatal("the parent sees the child's repository")
	}
	if parent.Size() == 0 || child.Size() == 0 {
		t.Fatalf("Size after writes on both sides: want more than 0, have %d and %d", parent.Size(), child.Size())
	}
	// A fork of a fork of a fork... stays readable past the layer bound.
	w := child
	for range maxDepth + 3 {
		rr := must[*Repo](t)(w.Repo("octo/demo"))
		cur := must[Content](t)(rr.Content("", "README.md"))
		must[FileResult](t)(rr.PutFile(FileChange{Path: "README.md", SHA: cur.SHA, Content: append(bytes.Clone(cur.Data), '!'), Message: "!", Author: sig(2)}))
		w = w.Fork()
	}
	rr := must[*Repo](t)(w.Repo("octo/demo"))
	if have := must[Content](t)(rr.Content("", "README.md")); string(have.Data) != "child"+string(bytes.Repeat([]byte("!"), maxDepth+3)) {
		t.Fatalf("README after %d forks: have %q", maxDepth+3, have.Data)
	}
}

// TestLimits: an object over the size limit and a world at its object
// limit are refused with their errors; deleting a repository frees room.
func TestLimits(t *testing.T) {
	w, r := newRepo(t, Limits{MaxBlobBytes: 1024, MaxObjects: 10})
	_, err := r.WriteBlob(make([]byte, 1025))
	mustErr(t, err, ErrBlobTooLarge)
	must[string](t)(r.WriteBlob(make([]byte, 1024)))
	var lastErr error
	for i := range 20 {
		if _, lastErr = r.WriteBlob([]byte{byte(i)}); lastErr != nil {
			break
		}
	}
	mustErr(t, lastErr, ErrTooManyObjects)
	// Writing an object the world already holds costs nothing.
	must[string](t)(r.WriteBlob(make([]byte, 1024)))
	_, err = w.CreateRepo("octo/two", RepoOptions{AutoInit: true, Author: sig(0)})
	mustErr(t, err, ErrTooManyObjects)
	if err := w.DeleteRepo("octo/demo"); err != nil {
		t.Fatal(err)
	}
	must[*Repo](t)(w.CreateRepo("octo/two", RepoOptions{AutoInit: true, Author: sig(0)}))
	if _, err := r.WriteBlob([]byte("x")); err == nil {
		t.Fatal("a write to a deleted repository: want ErrNotFound, have none")
	}
}

// TestConcurrentUse runs a session's requests at once (run with -race):
// file writes on branches of their own, reads, compares, forks, and
// fetches whose packs are written while the writes go on.
func TestConcurrentUse(t *testing.T) {
	w, r := newRepo(t, Limits{})
	url := serve(t, w)
	main := must[Ref](t)(r.Ref("heads/main"))
	var wg sync.WaitGroup
	stop := make(chan struct{})
	fetched := make(chan int)
	go func() {
		n := 0
		defer func() { fetched <- n }()
		for { // until the writes are done, and three fetches at least
			select {
			case <-stop:
				if n >= 3 {
					return
				}
			default:
			}
			refs := must[[]Ref](t)(r.Refs("heads/"))
			want := "want " + refs[len(refs)-1].SHA + "\n"
			body := fmt.Sprintf("%04x%s0000%04xdone\n", len(want)+4, want, len("done\n")+4)
			resp, err := http.Post(url+"/octo/demo.git/git-upload-pack", "application/x-git-upload-pack-request", strings.NewReader(body))
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("upload-pack during writes: %s", resp.Status)
				return
			}
			n++
		}
	}()
	for i := range 4 {
		branch := string(rune('a' + i))
		must[Ref](t)(r.CreateRef("heads/"+branch, main.SHA))
		wg.Add(1)
		go func() {
			defer wg.Done()
			sha := ""
			for j := range 10 {
				res, err := r.PutFile(FileChange{Branch: branch, Path: "f.txt", SHA: sha, Content: []byte{byte(j)}, Message: "m", Author: sig(j)})
				if err != nil {
					t.Error(err)
					return
				}
				sha = res.SHA
				if _, err := r.Compare(context.Background(), "main", branch); err != nil {
					t.Error(err)
				}
				w.Fork()
			}
		}()
	}
	wg.Wait()
	close(stop)
	<-fetched
}
