package gitworld

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func lines(n int, change map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if s, ok := change[i]; ok {
			b.WriteString(s + "\n")
			continue
		}
		b.WriteString("line " + string(rune('0'+i/10)) + string(rune('0'+i%10)) + "\n")
	}
	return b.String()
}

// history is main with a feature branch off it, and main moved on since.
type history struct {
	r              *Repo
	base, feature  map[string]string // the files at the merge base and at feature's tip
	main           map[string]string // the files at main's tip
	featureCommits int
}

func newHistory(tb testing.TB) history {
	tb.Helper()
	_, r := newRepo(tb, Limits{})
	h := history{r: r}
	h.base = map[string]string{
		"README.md":   "# demo",
		"a.txt":       lines(20, nil),
		"b.txt":       "to be removed\n",
		"old/name.go": lines(12, map[int]string{1: "package name"}),
		"mode.sh":     "#!/bin/sh\n",
	}
	commitFiles := func(branch string, files map[string]string, msg string, minute int) {
		tb.Helper()
		var changes []TreeChange
		tip := must[Ref](tb)(r.Ref("heads/" + branch))
		_, cur, _, err := r.Tree(tip.SHA, true)
		if err != nil {
			tb.Fatal(err)
		}
		for _, e := range cur {
			if _, ok := files[e.Path]; !ok && e.Type == "blob" {
				changes = append(changes, TreeChange{Path: e.Path, Delete: true})
			}
		}
		for _, p := range slices.Sorted(func(yield func(string) bool) {
			for p := range files {
				if !yield(p) {
					return
				}
			}
		}) {
			mode := ""
			if p == "mode.sh" && branch == "feature" && minute > 10 {
				mode = "100755"
			}
			changes = append(changes, TreeChange{Path: p, Mode: mode, Content: []byte(files[p])})
		}
		tree := must[string](tb)(r.WriteTree("", changes))
		c := must[Commit](tb)(r.WriteCommit(NewCommit{Tree: tree, Parents: []string{tip.SHA}, Message: msg, Author: sig(minute)}))
		must[Ref](tb)(r.UpdateRef("heads/"+branch, c.SHA, false))
	}
	commitFiles("main", h.base, "base", 1)
	must[Ref](tb)(r.CreateRef("heads/feature", must[Ref](tb)(r.Ref("heads/main")).SHA))

	step1 := clone(h.base)
	step1["a.txt"] = lines(20, map[int]string{2: "feature two"})
	step1["c.txt"] = "new file\nwith two lines"
	commitFiles("feature", step1, "feature one", 11)
	h.feature = clone(step1)
	h.feature["a.txt"] = lines(21, map[int]string{2: "feature two", 18: "feature eighteen"})
	delete(h.feature, "b.txt")
	delete(h.feature, "old/name.go")
	h.feature["new/name.go"] = lines(12, map[int]string{1: "package name", 12: "// renamed"})
	commitFiles("feature", h.feature, "feature two", 12)
	h.featureCommits = 2

	h.main = clone(h.base)
	h.main["a.txt"] = lines(20, map[int]string{10: "main ten"})
	commitFiles("main", h.main, "main moves", 13)
	return h
}

func clone(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// gitDiff is the patch git itself gives from a to b (nil is no file), cut
// to its hunks as GitHub's patch field is.
func gitDiff(tb testing.TB, g *gitCLI, a, b *string) string {
	tb.Helper()
	dir := tb.TempDir()
	path := func(name string, s *string) string {
		if s == nil {
			return "/dev/null"
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(*s), 0o644); err != nil {
			tb.Fatal(err)
		}
		return p
	}
	out, err := g.try(dir, "diff", "--no-index", "--no-color", "--unified=3", path("a", a), path("b", b))
	if err == nil {
		return "" // no difference
	}
	i := strings.Index(out, "\n@@ ")
	if i < 0 {
		tb.Fatalf("git diff: no hunk in %q (%v)", out, err)
	}
	return strings.TrimSuffix(out[i+1:], "\n")
}

// TestCompare checks compare's counts, commits and files, each patch
// against git diff's of the same change.
func TestCompare(t *testing.T) {
	g := newGit(t)
	h := newHistory(t)
	cmp, err := h.r.Compare(context.Background(), "main", "feature")
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Status != "diverged" || cmp.AheadBy != 2 || cmp.BehindBy != 1 {
		t.Fatalf("status: want diverged, ahead 2, behind 1, have %s, %d, %d", cmp.Status, cmp.AheadBy, cmp.BehindBy)
	}
	if len(cmp.Commits) != 2 || cmp.Commits[0].Message != "feature one" || cmp.Commits[1].Message != "feature two" {
		t.Fatalf("commits: want feature one, feature two, have %+v", cmp.Commits)
	}
	if cmp.MergeBase.Message != "base" {
		t.Fatalf("merge base: want the commit %q, have %q", "base", cmp.MergeBase.Message)
	}
	type want struct{ status, prev string }
	wantFiles := map[string]want{
		"a.txt": {"modified", ""}, "b.txt": {"removed", ""}, "c.txt": {"added", ""},
		"new/name.go": {"renamed", "old/name.go"}, "mode.sh": {"changed", ""},
	}
	var names []string
	for _, f := range cmp.Files {
		names = append(names, f.Filename)
		w, ok := wantFiles[f.Filename]
		if !ok || f.Status != w.status || f.PreviousFilename != w.prev {
			t.Errorf("%s: want %+v, have status %q previous %q", f.Filename, w, f.Status, f.PreviousFilename)
			continue
		}
		var a, b *string
		if s, ok := h.base[f.Filename]; ok {
			a = &s
		}
		if w.prev != "" {
			s := h.base[w.prev]
			a = &s
		}
		if s, ok := h.feature[f.Filename]; ok {
			b = &s
		}
		if wantPatch := gitDiff(t, g, a, b); f.Patch != wantPatch {
			t.Errorf("%s patch:\nwant %q\nhave %q", f.Filename, wantPatch, f.Patch)
		}
		adds, dels := 0, 0
		for _, l := range strings.Split(f.Patch, "\n") {
			switch {
			case strings.HasPrefix(l, "+"):
				adds++
			case strings.HasPrefix(l, "-"):
				dels++
			}
		}
		if f.Additions != adds || f.Deletions != dels || f.Changes != adds+dels {
			t.Errorf("%s: want +%d -%d, have +%d -%d (changes %d)", f.Filename, adds, dels, f.Additions, f.Deletions, f.Changes)
		}
	}
	if !slices.IsSorted(names) || len(names) != len(wantFiles) {
		t.Errorf("files: want %d in path order, have %q", len(wantFiles), names)
	}

	same, err := h.r.Compare(context.Background(), "feature", "feature")
	if err != nil || same.Status != "identical" || len(same.Files) != 0 {
		t.Fatalf("feature...feature: want identical, have %+v (%v)", same, err)
	}
}

// gitMergeFile is git's own three-way merge of one file.
func gitMergeFile(tb testing.TB, g *gitCLI, base, ours, theirs string) string {
	tb.Helper()
	dir := tb.TempDir()
	for name, s := range map[string]string{"base": base, "ours": ours, "theirs": theirs} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return g.run(dir, "merge-file", "-p", "ours", "base", "theirs")
}

// TestMergeMethods merges feature into main each way GitHub does and
// checks the commits made and the merged content against git merge-file.
func TestMergeMethods(t *testing.T) {
	g := newGit(t)
	tests := []struct {
		method  MergeMethod
		parents int
	}{{MergeCommit, 2}, {Squash, 1}, {Rebase, 1}}
	for _, tt := range tests {
		t.Run(string(tt.method), func(t *testing.T) {
			h := newHistory(t)
			before := must[Ref](t)(h.r.Ref("heads/main"))
			check := must[MergeCheck](t)(h.r.Mergeable("main", "feature"))
			if !check.Clean || check.UpToDate {
				t.Fatalf("mergeable: want clean, have %+v", check)
			}
			c := must[Commit](t)(h.r.Merge(MergeRequest{Base: "main", Head: "feature", Method: tt.method, Message: "Merge pull request #1", Author: sig(20)}))
			if len(c.Parents) != tt.parents {
				t.Fatalf("parents: want %d, have %d", tt.parents, len(c.Parents))
			}
			if have := must[Ref](t)(h.r.Ref("heads/main")); have.SHA != c.SHA {
				t.Fatalf("main: want the new commit %s, have %s", c.SHA, have.SHA)
			}
			log := must[[]Commit](t)(func() ([]Commit, error) {
				cs, _, err := h.r.Log(LogQuery{Rev: "main", Limit: 10})
				return cs, err
			}())
			switch tt.method {
			case MergeCommit:
				feature := must[Ref](t)(h.r.Ref("heads/feature"))
				if c.Parents[0] != before.SHA || c.Parents[1] != feature.SHA {
					t.Fatalf("merge parents: want %s and %s, have %q", before.SHA, feature.SHA, c.Parents)
				}
			case Squash:
				if c.Parents[0] != before.SHA || c.Message != "Merge pull request #1" {
					t.Fatalf("squash: want one commit on %s, have %+v", before.SHA, c)
				}
			case Rebase:
				// Each of feature's commits replayed, in order, on main.
				if log[0].Message != "feature two" || log[1].Message != "feature one" || log[2].SHA != before.SHA {
					t.Fatalf("rebase: want feature two, feature one on %s, have %q %q %s", before.SHA, log[0].Message, log[1].Message, log[2].SHA)
				}
				if !log[0].Committer.When.Equal(sig(20).When) || !log[0].Author.When.Equal(sig(12).When) {
					t.Fatalf("rebase: want the commits' authors kept and the committer given, have %+v", log[0])
				}
			}
			wantA := gitMergeFile(t, g, h.base["a.txt"], h.main["a.txt"], h.feature["a.txt"])
			if have := must[Content](t)(h.r.Content("main", "a.txt")); string(have.Data) != wantA {
				t.Fatalf("merged a.txt:\nwant %q\nhave %q", wantA, have.Data)
			}
			for p, want := range h.feature {
				if p == "a.txt" {
					continue
				}
				if have := must[Content](t)(h.r.Content("main", p)); string(have.Data) != want {
					t.Errorf("%s after the merge: want %q, have %q", p, want, have.Data)
				}
			}
			if _, err := h.r.Content("main", "b.txt"); err == nil {
				t.Error("b.txt after the merge: want it removed")
			}
			_, err := h.r.Merge(MergeRequest{Base: "main", Head: "feature", Method: MergeCommit, Author: sig(21)})
			if tt.method == MergeCommit {
				mustErr(t, err, ErrNothingToMerge)
			}
		})
	}
}

// TestMergeConflict: overlapping changes are named, and a merge of them
// changes nothing.
func TestMergeConflict(t *testing.T) {
	h := newHistory(t)
	a := must[Content](t)(h.r.Content("feature", "a.txt"))
	clash := lines(21, map[int]string{2: "feature two", 10: "clash ten", 18: "feature eighteen"})
	must[FileResult](t)(h.r.PutFile(FileChange{Branch: "feature", Path: "a.txt", SHA: a.SHA, Content: []byte(clash), Message: "clash", Author: sig(14)}))
	check := must[MergeCheck](t)(h.r.Mergeable("main", "feature"))
	if check.Clean || !slices.Equal(check.Conflicts, []string{"a.txt"}) {
		t.Fatalf("mergeable: want a conflict in a.txt, have %+v", check)
	}
	before := must[Ref](t)(h.r.Ref("heads/main"))
	for _, m := range []MergeMethod{MergeCommit, Squash, Rebase} {
		_, err := h.r.Merge(MergeRequest{Base: "main", Head: "feature", Method: m, Author: sig(20)})
		mustErr(t, err, ErrConflict)
	}
	if have := must[Ref](t)(h.r.Ref("heads/main")); have.SHA != before.SHA {
		t.Fatalf("main after refused merges: want %s, have %s", before.SHA, have.SHA)
	}
}

const merge3Base = "a\nb\nc\nd\ne\n"

var merge3Cases = []struct {
	name         string
	ours, theirs string
	want         string
	ok           bool
}{
	{"apart", "A\nb\nc\nd\ne\n", "a\nb\nc\nd\nE\n", "A\nb\nc\nd\nE\n", true},
	{"same change", "a\nB\nc\nd\ne\n", "a\nB\nc\nd\ne\n", "a\nB\nc\nd\ne\n", true},
	{"overlap", "a\nB\nc\nd\ne\n", "a\nX\nc\nd\ne\n", "", false},
	{"adjacent", "a\nB\nc\nd\ne\n", "a\nb\nC\nd\ne\n", "", false},
	{"one line apart", "a\nB\nc\nd\ne\n", "a\nb\nc\nD\ne\n", "a\nB\nc\nD\ne\n", true},
	{"insert both ends", "0\na\nb\nc\nd\ne\n", "a\nb\nc\nd\ne\nf\n", "0\na\nb\nc\nd\ne\nf\n", true},
	{"delete and change apart", "b\nc\nd\ne\n", "a\nb\nc\nd\nE\n", "b\nc\nd\nE\n", true},
	{"both insert at one place", "a\nb\nX\nc\nd\ne\n", "a\nb\nY\nc\nd\ne\n", "", false},
	{"no newline at the end", "a\nb\nc\nd\ne", "A\nb\nc\nd\ne\n", "A\nb\nc\nd\ne", true},
}

func TestMerge3(t *testing.T) {
	for _, tt := range merge3Cases {
		t.Run(tt.name, func(t *testing.T) {
			have, ok := merge3([]byte(merge3Base), []byte(tt.ours), []byte(tt.theirs))
			if ok != tt.ok || (ok && string(have) != tt.want) {
				t.Fatalf("want %q (%v), have %q (%v)", tt.want, tt.ok, have, ok)
			}
		})
	}
	if _, ok := merge3([]byte("a\x00"), []byte("b\x00"), []byte("c")); ok {
		t.Fatal("binary content changed on both sides: want a conflict")
	}
}

// TestMerge3AgainstGit: git merge-file agrees with every case of
// TestMerge3, clean or conflicting, and on the merged content.
func TestMerge3AgainstGit(t *testing.T) {
	g := newGit(t)
	for _, tt := range merge3Cases {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, s := range map[string]string{"base": merge3Base, "ours": tt.ours, "theirs": tt.theirs} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out, err := g.try(dir, "merge-file", "-p", "ours", "base", "theirs")
			if clean := err == nil; clean != tt.ok || (clean && out != tt.want) {
				t.Fatalf("git merge-file: want %q (clean %v), have %q (%v)", tt.want, tt.ok, out, err)
			}
		})
	}
}
