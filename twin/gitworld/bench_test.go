package gitworld

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkPutFile is the contents API's commit: one file updated on a
// branch of a 100-file repository, as one commit. A commit adds a blob,
// two trees and itself to the session, so the repository starts afresh,
// off the clock, before the session's object limit.
func BenchmarkPutFile(b *testing.B) {
	const perRepo = 10000 // commits: 40,000 objects, well under the limit
	var r *Repo
	var sha string
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if i%perRepo == 0 {
			b.StopTimer()
			_, r = repo100(b)
			sha = must[Content](b)(r.Content("", "dir2/file42.txt")).SHA
			b.StartTimer()
		}
		res, err := r.PutFile(FileChange{Path: "dir2/file42.txt", SHA: sha, Content: []byte(fmt.Sprintf("version %d\n", i)), Message: "update", Author: sig(i)})
		if err != nil {
			b.Fatal(err)
		}
		sha = res.SHA
	}
}

// BenchmarkUploadPack100Files is the server's side of a clone of a
// 100-file repository: one upload-pack request wanting main, its pack
// read to the end.
func BenchmarkUploadPack100Files(b *testing.B) {
	w, r := repo100(b)
	url := serve(b, w)
	main := must[Ref](b)(r.Ref("heads/main"))
	want := "want " + main.SHA + " ofs-delta\n"
	body := fmt.Sprintf("%04x%s0000%04xdone\n", len(want)+4, want, len("done\n")+4)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		resp, err := http.Post(url+"/octo/demo.git/git-upload-pack", "application/x-git-upload-pack-request", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || n < 1000 {
			b.Fatalf("upload-pack: %d, %d bytes", resp.StatusCode, n)
		}
	}
}

// BenchmarkClone100Files is a whole clone of a 100-file repository by the
// real git: its processes and the server's work together.
func BenchmarkClone100Files(b *testing.B) {
	g := newGit(b)
	w, _ := repo100(b)
	url := serve(b, w)
	base := b.TempDir()
	b.ResetTimer()
	for i := range b.N {
		g.run("", "clone", "-q", url+"/octo/demo.git", filepath.Join(base, fmt.Sprint(i)))
	}
}

// repo100 is an auto_init repository with 100 files of about 1 KiB in 10
// directories, in one commit.
func repo100(tb testing.TB) (*World, *Repo) {
	tb.Helper()
	w, r := newRepo(tb, Limits{})
	main := must[Ref](tb)(r.Ref("heads/main"))
	var changes []TreeChange
	for i := range 100 {
		changes = append(changes, TreeChange{
			Path:    fmt.Sprintf("dir%d/file%d.txt", i%10, i),
			Content: []byte(strings.Repeat(fmt.Sprintf("file %d line\n", i), 80)),
		})
	}
	tree := must[string](tb)(r.WriteTree(must[Commit](tb)(r.Commit(main.SHA)).Tree, changes))
	c := must[Commit](tb)(r.WriteCommit(NewCommit{Tree: tree, Parents: []string{main.SHA}, Message: "100 files", Author: sig(1)}))
	must[Ref](tb)(r.UpdateRef("heads/main", c.SHA, false))
	return w, r
}
