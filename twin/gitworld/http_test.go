package gitworld

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestCloneCommitPush clones an auto_init repository with the real git,
// commits and pushes a branch, and sees the branch and its file through
// the package's API; with each protocol version git can ask for.
func TestCloneCommitPush(t *testing.T) {
	for _, v := range []string{"0", "1", "2"} {
		t.Run("protocol.version="+v, func(t *testing.T) {
			g := newGit(t)
			g.protocol = v
			cloneCommitPush(t, g)
		})
	}
}

func cloneCommitPush(t *testing.T, g *gitCLI) {
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

// TestPushToEmptyRepository clones a repository with no commits, pushes
// its first branch, then deletes another branch by push.
func TestPushToEmptyRepository(t *testing.T) {
	g := newGit(t)
	w := New(Limits{})
	r := must[*Repo](t)(w.CreateRepo("octo/empty", RepoOptions{}))
	url := serve(t, w)
	dir := filepath.Join(t.TempDir(), "empty")
	g.run("", "clone", url+"/octo/empty", dir) // without .git, as GitHub allows
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	g.run(dir, "add", ".")
	g.run(dir, "commit", "-m", "first")
	g.run(dir, "push", "origin", "main", "main:refs/heads/doomed")
	if have := must[Content](t)(r.Content("", "a.txt")); string(have.Data) != "a\n" {
		t.Fatalf("a.txt after the first push: have %q", have.Data)
	}
	g.run(dir, "push", "origin", ":doomed")
	if _, err := r.Ref("heads/doomed"); err == nil {
		t.Fatal("heads/doomed after a delete push: want it gone")
	}
	out, err := g.try(dir, "push", "origin", ":main")
	if err == nil {
		t.Fatalf("deleting the default branch by push: want it refused, have\n%s", out)
	}
	must[Ref](t)(r.Ref("heads/main"))
}

// TestPushOverLimitRefused: a pushed blob over the World's limit is
// refused, and no object or branch of the push is kept.
func TestPushOverLimitRefused(t *testing.T) {
	g := newGit(t)
	w, r := newRepo(t, Limits{MaxBlobBytes: 4096})
	url := serve(t, w)
	dir := filepath.Join(t.TempDir(), "demo")
	g.run("", "clone", url+"/octo/demo.git", dir)
	big := make([]byte, 8192)
	for i := range big {
		big[i] = byte('a' + i%26)
	}
	os.WriteFile(filepath.Join(dir, "big.txt"), big, 0o644)
	g.run(dir, "switch", "-c", "big")
	g.run(dir, "add", ".")
	g.run(dir, "commit", "-m", "big")
	before := w.Size()
	out, err := g.try(dir, "push", "origin", "big")
	if err == nil || !strings.Contains(out, "over the limit") {
		t.Fatalf("push of a blob over the limit: want it refused naming the limit, have err %v:\n%s", err, out)
	}
	if _, err := r.Ref("heads/big"); err == nil {
		t.Fatal("heads/big after a refused push: want none")
	}
	if have := w.Size(); have != before {
		t.Fatalf("Size after a refused push: want %d, have %d", before, have)
	}
}

// TestSmartHTTPAnswers checks the protocol's edges without a client:
// unknown repositories, the dumb protocol, methods, the advertisement.
func TestSmartHTTPAnswers(t *testing.T) {
	w, _ := newRepo(t, Limits{})
	url := serve(t, w)
	tests := []struct {
		method, path string
		status       int
		ctype, body  string // a prefix of each
	}{
		{"GET", "/octo/demo.git/info/refs?service=git-upload-pack", 200, "application/x-git-upload-pack-advertisement", "001e# service=git-upload-pack\n0000"},
		{"GET", "/octo/demo/info/refs?service=git-receive-pack", 200, "application/x-git-receive-pack-advertisement", "001f# service=git-receive-pack\n0000"},
		{"GET", "/OCTO/Demo.git/info/refs?service=git-upload-pack", 200, "application/x-git-upload-pack-advertisement", "001e#"},
		{"GET", "/octo/nope.git/info/refs?service=git-upload-pack", 404, "text/plain", "repository octo/nope not found"},
		{"GET", "/octo/demo.git/info/refs", 403, "text/plain", "only the smart protocol"},
		{"POST", "/octo/demo.git/info/refs", 405, "text/plain", ""},
		{"GET", "/octo/demo.git/git-upload-pack", 405, "text/plain", ""},
		{"GET", "/octo/demo.git/HEAD", 404, "text/plain", "not a git path"},
		{"POST", "/octo/demo.git/git-upload-pack", 400, "text/plain", "reading the upload-pack request"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, url+tt.path, strings.NewReader(""))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), tt.ctype) || !strings.HasPrefix(string(body), tt.body) {
				t.Fatalf("want %d %s %q..., have %d %s %q", tt.status, tt.ctype, tt.body, resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
		})
	}
}

// TestReceivePackStaleOld: a push command whose old value is not the
// branch's current one (the client's view is stale) is refused by the
// server, whatever the client checked.
func TestReceivePackStaleOld(t *testing.T) {
	w, r := newRepo(t, Limits{})
	url := serve(t, w)
	main := must[Ref](t)(r.Ref("heads/main"))
	root := must[Commit](t)(r.Commit(main.SHA))
	next := must[Commit](t)(r.WriteCommit(NewCommit{Tree: root.Tree, Parents: []string{root.SHA}, Message: "next", Author: sig(1)}))
	stale := strings.Repeat("1", 40)
	for _, tc := range []struct {
		old, want string
	}{
		{stale, "ng refs/heads/main stale info"},
		{main.SHA, "ok refs/heads/main"},
	} {
		cmd := tc.old + " " + next.SHA + " refs/heads/main\x00report-status\n"
		body := fmt.Sprintf("%04x%s0000", len(cmd)+4, cmd)
		resp, err := http.Post(url+"/octo/demo.git/git-receive-pack", "application/x-git-receive-pack-request", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(out), "unpack ok") || !strings.Contains(string(out), tc.want) {
			t.Fatalf("old %s: want %q, have %q", tc.old, tc.want, out)
		}
	}
	if have := must[Ref](t)(r.Ref("heads/main")); have.SHA != next.SHA {
		t.Fatalf("main: want %s, have %s", next.SHA, have.SHA)
	}
}

func TestParsePath(t *testing.T) {
	tests := []struct {
		path, repo, op string
		ok             bool
	}{
		{"/octo/demo.git/info/refs", "octo/demo", "info/refs", true},
		{"/octo/demo/git-upload-pack", "octo/demo", "git-upload-pack", true},
		{"/octo/my.repo.git/git-receive-pack", "octo/my.repo", "git-receive-pack", true},
		{"/../demo.git/info/refs", "", "", false},
		{"/octo/...git/info/refs", "", "", false},
		{"/repos/octo/demo/info/refs", "", "", false},
		{"/octo/demo.git/HEAD", "", "", false},
		{"/octo/demo.git/objects/info/packs", "", "", false},
		{"/demo.git/info/refs", "", "", false},
	}
	for _, tt := range tests {
		repo, op, ok := ParsePath(tt.path)
		if repo != tt.repo || op != tt.op || ok != tt.ok {
			t.Errorf("ParsePath(%q): want %q %q %v, have %q %q %v", tt.path, tt.repo, tt.op, tt.ok, repo, op, ok)
		}
	}
}

// pack builds a pack file of raw entries (type, declared size, content
// to deflate, and for a ref delta its base).
type packEntry struct {
	typ  byte // 3 blob, 7 ref delta
	size uint64
	base plumbing.Hash
	data []byte
}

func buildPack(tb testing.TB, count uint32, entries ...packEntry) []byte {
	tb.Helper()
	var b bytes.Buffer
	b.WriteString("PACK")
	binary.Write(&b, binary.BigEndian, uint32(2))
	binary.Write(&b, binary.BigEndian, count)
	for _, e := range entries {
		size := e.size
		c := e.typ<<4 | byte(size&0x0f)
		size >>= 4
		for size > 0 {
			b.WriteByte(c | 0x80)
			c = byte(size & 0x7f)
			size >>= 7
		}
		b.WriteByte(c)
		if e.typ == 7 {
			b.Write(e.base[:])
		}
		zw := zlib.NewWriter(&b)
		zw.Write(e.data)
		zw.Close()
	}
	sum := sha1.Sum(b.Bytes())
	b.Write(sum[:])
	return b.Bytes()
}

// TestReceivePackRefusals: packs past the limits are refused before they
// are inflated (a delta declaring a terabyte result, a pack declaring more
// objects than the session may hold, a blob over the size limit), and a
// reference name git would refuse is refused; nothing of them is kept.
func TestReceivePackRefusals(t *testing.T) {
	w, r := newRepo(t, Limits{MaxBlobBytes: 1 << 20, MaxObjects: 1000})
	url := serve(t, w)
	main := must[Ref](t)(r.Ref("heads/main"))
	readme := must[Content](t)(r.Content("", "README.md"))
	zero := strings.Repeat("0", 40)
	some := strings.Repeat("2", 40)
	huge := append(binary.AppendUvarint(binary.AppendUvarint(nil, 6), 1<<40), 0x90, 0x06) // copy 6 bytes, over and over
	tests := []struct {
		name, cmd string
		pack      []byte
		want      string
	}{
		{"delta bomb", zero + " " + some + " refs/heads/bomb", buildPack(t, 1, packEntry{typ: 7, size: uint64(len(huge)), base: plumbing.NewHash(readme.SHA), data: huge}), "over the limit"},
		{"count", zero + " " + some + " refs/heads/many", buildPack(t, 5000), "more than the session's limit"},
		{"large blob", zero + " " + some + " refs/heads/large", buildPack(t, 1, packEntry{typ: 3, size: 2 << 20, data: make([]byte, 2<<20)}), "over the limit"},
		{"funny refname", zero + " " + main.SHA + " refs/heads/a..b", nil, "ng refs/heads/a..b funny refname"},
		{"missing object", zero + " " + some + " refs/heads/missing", nil, "ng refs/heads/missing missing necessary objects"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := w.Size()
			line := tt.cmd + "\x00report-status\n"
			body := fmt.Sprintf("%04x%s0000", len(line)+4, line) + string(tt.pack)
			resp, err := http.Post(url+"/octo/demo.git/git-receive-pack", "application/x-git-receive-pack-request", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			out, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(out), tt.want) {
				t.Fatalf("want %q in the report, have %q", tt.want, out)
			}
			if refs := must[[]Ref](t)(r.Refs("heads/")); len(refs) != 1 {
				t.Fatalf("branches after a refused push: want main only, have %+v", refs)
			}
			if have := w.Size(); have != before {
				t.Fatalf("Size after a refused push: want %d, have %d", before, have)
			}
		})
	}
}
