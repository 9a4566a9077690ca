package gitworld

import (
	"slices"
	"testing"
)

// TestWriteTreeBaseTree checks GitHub's base_tree semantics: entries add
// or replace paths, nested paths make subtrees, a deleted path goes (and
// a directory left empty with it), and the base's other entries stay.
func TestWriteTreeBaseTree(t *testing.T) {
	_, r := newRepo(t, Limits{})
	readme := must[Content](t)(r.Content("", "README.md"))
	base := must[string](t)(r.WriteTree("", []TreeChange{
		{Path: "README.md", SHA: readme.SHA},
		{Path: "src/main.go", Content: []byte("package main\n")},
		{Path: "src/util/util.go", Content: []byte("package util\n")},
		{Path: "run.sh", Mode: "100755", Content: []byte("#!/bin/sh\n")},
	}))
	tests := []struct {
		name    string
		changes []TreeChange
		want    []string // "path mode type" of the recursive listing
	}{
		{"add", []TreeChange{{Path: "docs/a.md", Content: []byte("a\n")}},
			[]string{"README.md 100644 blob", "docs 040000 tree", "docs/a.md 100644 blob", "run.sh 100755 blob", "src 040000 tree", "src/main.go 100644 blob", "src/util 040000 tree", "src/util/util.go 100644 blob"}},
		{"replace", []TreeChange{{Path: "src/main.go", Content: []byte("package main // v2\n")}},
			[]string{"README.md 100644 blob", "run.sh 100755 blob", "src 040000 tree", "src/main.go 100644 blob", "src/util 040000 tree", "src/util/util.go 100644 blob"}},
		{"delete", []TreeChange{{Path: "run.sh", Delete: true}},
			[]string{"README.md 100644 blob", "src 040000 tree", "src/main.go 100644 blob", "src/util 040000 tree", "src/util/util.go 100644 blob"}},
		{"delete empties a directory", []TreeChange{{Path: "src/util/util.go", Delete: true}},
			[]string{"README.md 100644 blob", "run.sh 100755 blob", "src 040000 tree", "src/main.go 100644 blob"}},
		{"delete of a missing path", []TreeChange{{Path: "nope/x", Delete: true}},
			[]string{"README.md 100644 blob", "run.sh 100755 blob", "src 040000 tree", "src/main.go 100644 blob", "src/util 040000 tree", "src/util/util.go 100644 blob"}},
		{"a file replaces a directory", []TreeChange{{Path: "src/util", Content: []byte("now a file\n")}},
			[]string{"README.md 100644 blob", "run.sh 100755 blob", "src 040000 tree", "src/main.go 100644 blob", "src/util 100644 blob"}},
		{"deep new path", []TreeChange{{Path: "a/b/c/d.txt", Content: []byte("d\n")}},
			[]string{"README.md 100644 blob", "a 040000 tree", "a/b 040000 tree", "a/b/c 040000 tree", "a/b/c/d.txt 100644 blob", "run.sh 100755 blob", "src 040000 tree", "src/main.go 100644 blob", "src/util 040000 tree", "src/util/util.go 100644 blob"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sha := must[string](t)(r.WriteTree(base, tt.changes))
			_, entries, _, err := r.Tree(sha, true)
			if err != nil {
				t.Fatal(err)
			}
			var have []string
			for _, e := range entries {
				have = append(have, e.Path+" "+e.Mode+" "+e.Type)
			}
			if !slices.Equal(have, tt.want) {
				t.Fatalf("tree:\nwant %q\nhave %q", tt.want, have)
			}
		})
	}
	// The same tree from no base and from the base gives one sha.
	again := must[string](t)(r.WriteTree("", []TreeChange{
		{Path: "run.sh", Mode: "100755", Content: []byte("#!/bin/sh\n")},
		{Path: "src/util/util.go", Content: []byte("package util\n")},
		{Path: "src/main.go", Content: []byte("package main\n")},
		{Path: "README.md", SHA: readme.SHA},
	}))
	if again != base {
		t.Fatalf("the same entries in another order: want tree %s, have %s", base, again)
	}
}

func TestWriteTreeRefusals(t *testing.T) {
	_, r := newRepo(t, Limits{})
	blob := must[string](t)(r.WriteBlob([]byte("x")))
	tests := []struct {
		name string
		base string
		c    TreeChange
	}{
		{"empty path part", "", TreeChange{Path: "a//b", Content: []byte("x")}},
		{"dot dot", "", TreeChange{Path: "../etc/passwd", Content: []byte("x")}},
		{".git", "", TreeChange{Path: ".git/config", Content: []byte("x")}},
		{"bad mode", "", TreeChange{Path: "a", Mode: "100666", Content: []byte("x")}},
		{"sha of a missing blob", "", TreeChange{Path: "a", SHA: "1111111111111111111111111111111111111111"}},
		{"blob sha as a tree", "", TreeChange{Path: "a", Mode: "040000", SHA: blob}},
		{"bad base", "nope", TreeChange{Path: "a", Content: []byte("x")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.WriteTree(tt.base, []TreeChange{tt.c})
			mustErr(t, err, ErrInvalid)
		})
	}
	_, err := r.WriteTree("2222222222222222222222222222222222222222", nil)
	mustErr(t, err, ErrNotFound)
}

// TestRefs: create, list by prefix, fast-forward update, a refused
// non-fast-forward, a forced one, delete.
func TestRefs(t *testing.T) {
	_, r := newRepo(t, Limits{})
	main := must[Ref](t)(r.Ref("heads/main"))
	root := must[Commit](t)(r.Commit(main.SHA))
	c1 := must[Commit](t)(r.WriteCommit(NewCommit{Tree: root.Tree, Parents: []string{root.SHA}, Message: "one", Author: sig(1)}))
	side := must[Commit](t)(r.WriteCommit(NewCommit{Tree: root.Tree, Parents: []string{root.SHA}, Message: "side", Author: sig(2)}))

	must[Ref](t)(r.CreateRef("refs/heads/feature", root.SHA))
	_, err := r.CreateRef("heads/feature", root.SHA)
	mustErr(t, err, ErrExists)
	_, err = r.CreateRef("refs/heads/bad..name", root.SHA)
	mustErr(t, err, ErrInvalid)
	_, err = r.CreateRef("refs/heads/x", "3333333333333333333333333333333333333333")
	mustErr(t, err, ErrNotFound)

	if have := must[Ref](t)(r.UpdateRef("heads/feature", c1.SHA, false)); have.SHA != c1.SHA || have.Type != "commit" {
		t.Fatalf("fast-forward: want %s, have %+v", c1.SHA, have)
	}
	_, err = r.UpdateRef("heads/feature", side.SHA, false)
	mustErr(t, err, ErrNotFastForward)
	if have := must[Ref](t)(r.Ref("heads/feature")); have.SHA != c1.SHA {
		t.Fatalf("after a refused update: want %s, have %s", c1.SHA, have.SHA)
	}
	if have := must[Ref](t)(r.UpdateRef("heads/feature", side.SHA, true)); have.SHA != side.SHA {
		t.Fatalf("forced: want %s, have %s", side.SHA, have.SHA)
	}

	tag := must[Tag](t)(r.WriteTag(NewTag{Name: "v1.0.0", Message: "first", Object: c1.SHA, Tagger: sig(3)}))
	must[Ref](t)(r.CreateRef("refs/tags/v1.0.0", tag.SHA))
	if back := must[Tag](t)(r.Tag(tag.SHA)); back.Object != c1.SHA || back.Type != "commit" || back.Message != "first\n" {
		t.Fatalf("tag: want one of commit %s, have %+v", c1.SHA, back)
	}
	if have := must[Content](t)(r.Content("v1.0.0", "README.md")); string(have.Data) != "# demo" {
		t.Fatalf("README at the tag: have %q", have.Data)
	}

	var names []string
	for _, ref := range must[[]Ref](t)(r.Refs("heads/")) {
		names = append(names, ref.Name)
	}
	if want := []string{"refs/heads/feature", "refs/heads/main"}; !slices.Equal(names, want) {
		t.Fatalf("refs under heads/: want %q, have %q", want, names)
	}
	if tags := must[[]Ref](t)(r.Refs("tags")); len(tags) != 1 || tags[0].Type != "tag" {
		t.Fatalf("refs under tags: want the annotated tag, have %+v", tags)
	}
	if err := r.DeleteRef("heads/feature"); err != nil {
		t.Fatal(err)
	}
	mustErr(t, r.DeleteRef("heads/feature"), ErrNotFound)
}

// TestContents: read a file and a directory, create (201), update with
// the sha (200), a missing sha, a stale sha, delete.
func TestContents(t *testing.T) {
	w := New(Limits{})
	r := must[*Repo](t)(w.CreateRepo("octo/empty", RepoOptions{}))
	_, err := r.Content("", "")
	mustErr(t, err, ErrEmpty)

	// The first file of an empty repository makes its first commit.
	first := must[FileResult](t)(r.PutFile(FileChange{Path: "docs/hello.txt", Content: []byte("hello\n"), Message: "my commit message", Author: sig(1)}))
	if !first.Created || len(first.Commit.Parents) != 0 || first.Commit.Message != "my commit message" {
		t.Fatalf("create in an empty repository: have %+v", first)
	}
	file := must[Content](t)(r.Content("main", "docs/hello.txt"))
	if file.Type != "file" || string(file.Data) != "hello\n" || file.SHA != first.SHA || file.Size != 6 || file.Name != "hello.txt" {
		t.Fatalf("read back: want the file with sha %s, have %+v", first.SHA, file)
	}
	dir := must[Content](t)(r.Content("", "docs"))
	if dir.Type != "dir" || len(dir.Entries) != 1 || dir.Entries[0].Path != "docs/hello.txt" || dir.Entries[0].Data != nil {
		t.Fatalf("directory: have %+v", dir)
	}

	_, err = r.PutFile(FileChange{Path: "docs/hello.txt", Content: []byte("again\n"), Message: "m", Author: sig(2)})
	mustErr(t, err, ErrSHARequired)
	_, err = r.PutFile(FileChange{Path: "docs/hello.txt", Content: []byte("again\n"), SHA: "4444444444444444444444444444444444444444", Message: "m", Author: sig(2)})
	mustErr(t, err, ErrStaleSHA)
	_, err = r.PutFile(FileChange{Path: "docs", Content: []byte("x"), SHA: dir.SHA, Message: "m", Author: sig(2)})
	mustErr(t, err, ErrInvalid)
	_, err = r.PutFile(FileChange{Branch: "nope", Path: "a", Content: []byte("x"), Message: "m", Author: sig(2)})
	mustErr(t, err, ErrNotFound)

	upd := must[FileResult](t)(r.PutFile(FileChange{Path: "docs/hello.txt", Content: []byte("again\n"), SHA: file.SHA, Message: "update", Author: sig(2)}))
	if upd.Created || len(upd.Commit.Parents) != 1 || upd.Commit.Parents[0] != first.Commit.SHA {
		t.Fatalf("update: want a child of %s, have %+v", first.Commit.SHA, upd)
	}
	// The old sha is stale now.
	_, err = r.PutFile(FileChange{Path: "docs/hello.txt", Content: []byte("x"), SHA: file.SHA, Message: "m", Author: sig(3)})
	mustErr(t, err, ErrStaleSHA)
	_, err = r.DeleteFile(FileChange{Path: "docs/hello.txt", Message: "rm", Author: sig(3)})
	mustErr(t, err, ErrSHARequired)
	del := must[FileResult](t)(r.DeleteFile(FileChange{Path: "docs/hello.txt", SHA: upd.SHA, Message: "rm", Author: sig(3)}))
	if del.SHA != "" {
		t.Fatalf("delete: want no blob, have %s", del.SHA)
	}
	_, err = r.Content("", "docs/hello.txt")
	mustErr(t, err, ErrNotFound)

	// An update keeps the file's mode.
	tip := must[Ref](t)(r.Ref("heads/main"))
	tree := must[string](t)(r.WriteTree(must[Commit](t)(r.Commit(tip.SHA)).Tree, []TreeChange{{Path: "run.sh", Mode: "100755", Content: []byte("#!/bin/sh\n")}}))
	c := must[Commit](t)(r.WriteCommit(NewCommit{Tree: tree, Parents: []string{tip.SHA}, Message: "run.sh", Author: sig(4)}))
	must[Ref](t)(r.UpdateRef("heads/main", c.SHA, false))
	run := must[Content](t)(r.Content("", "run.sh"))
	must[FileResult](t)(r.PutFile(FileChange{Path: "run.sh", SHA: run.SHA, Content: []byte("#!/bin/sh\necho\n"), Message: "echo", Author: sig(5)}))
	_, entries, _, err := r.Tree("main", false)
	if err != nil || len(entries) != 1 || entries[0].Mode != "100755" {
		t.Fatalf("run.sh after an update: want mode 100755, have %+v (%v)", entries, err)
	}
	_, err = r.DeleteFile(FileChange{Path: "docs/hello.txt", SHA: upd.SHA, Message: "rm", Author: sig(4)})
	mustErr(t, err, ErrNotFound)
}

// TestLog: newest first, a path filter, since/until and paging.
func TestLog(t *testing.T) {
	_, r := newRepo(t, Limits{})
	put := func(p, content, sha string, minute int) FileResult {
		t.Helper()
		return must[FileResult](t)(r.PutFile(FileChange{Path: p, Content: []byte(content), SHA: sha, Message: p + " " + content, Author: sig(minute)}))
	}
	a := put("a.txt", "1", "", 10)
	put("b.txt", "1", "", 20)
	put("a.txt", "2", a.SHA, 30)
	messages := func(cs []Commit) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Message)
		}
		return out
	}
	tests := []struct {
		name string
		q    LogQuery
		want []string
		more bool
	}{
		{"all", LogQuery{}, []string{"a.txt 2", "b.txt 1", "a.txt 1", "Initial commit"}, false},
		{"path", LogQuery{Path: "a.txt"}, []string{"a.txt 2", "a.txt 1"}, false},
		{"since", LogQuery{Since: clock.Add(20 * 60e9)}, []string{"a.txt 2", "b.txt 1"}, false},
		{"until", LogQuery{Until: clock.Add(15 * 60e9)}, []string{"a.txt 1", "Initial commit"}, false},
		{"page 1", LogQuery{Limit: 2}, []string{"a.txt 2", "b.txt 1"}, true},
		{"page 2", LogQuery{Limit: 2, Skip: 2}, []string{"a.txt 1", "Initial commit"}, false},
		{"from a sha", LogQuery{Rev: a.Commit.SHA}, []string{"a.txt 1", "Initial commit"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, more, err := r.Log(tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if have := messages(cs); !slices.Equal(have, tt.want) || more != tt.more {
				t.Fatalf("want %q (more %v), have %q (more %v)", tt.want, tt.more, have, more)
			}
		})
	}
}
