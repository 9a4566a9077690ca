//go:build unix

package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/format/pktline"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/storage/memory"
)

// BenchmarkServedGitPush is one git push per op to the github twin over
// smart HTTP, in process: the receive-pack advertisement read (git's GET
// of info/refs), then one new commit (a changed file, its tree and the
// commit, a pack of three objects) pushed onto a branch, every message
// and the pack encoded by go-git and sent with net/http (go-git's own
// HTTP transport needs a module go.mod does not hold). Each of the 16
// pushers per core has its own branch in one of 64 sessions, each
// holding an auto_init repository whose main the pusher fetches before
// the clock starts. A push fails the benchmark unless the twin reports
// it ok and the next advertisement shows the branch at the pushed
// commit; at the end the REST API must see every branch at its last push.
func BenchmarkServedGitPush(b *testing.B) {
	srv := startServer(b, "github", "--port", "0", "--seed", "42", "--clock", "deterministic")
	base := srv.URL()
	for s := range pushSessions {
		resp, body := do(b, base, call{method: "POST", path: "/user/repos", json: `{"name":"demo","auto_init":true}`, session: pushSession(s)})
		if resp.StatusCode != http.StatusCreated {
			b.Fatalf("create the repository of %s: want 201, have %d %s", pushSession(s), resp.StatusCode, body)
		}
	}
	owner := repoOwner(b, base)
	pushers := make([]*pusher, runtime.GOMAXPROCS(0)*16)
	for w := range pushers {
		pushers[w] = newPusher(b, base, owner, w)
	}
	var next atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		p := pushers[next.Add(1)-1]
		for i := 0; pb.Next(); i++ {
			if err := p.push(i); err != nil {
				b.Errorf("push %d to %s in %s: %v", i, p.branch, p.session, err)
				return
			}
		}
	})
	b.StopTimer()
	for _, p := range pushers {
		if p.head == p.main {
			continue // a pusher RunParallel gave nothing to do
		}
		var branch struct {
			Commit struct {
				SHA string `json:"sha"`
			} `json:"commit"`
		}
		resp, body := do(b, base, call{path: "/repos/" + owner + "/demo/branches/" + p.branch.Short(), session: p.session})
		if err := json.Unmarshal(body, &branch); resp.StatusCode != http.StatusOK || err != nil || branch.Commit.SHA != p.head.String() {
			b.Fatalf("%s through the REST API: want %s, have %d %.300s (%v)", p.branch, p.head, resp.StatusCode, body, err)
		}
	}
}

func pushSession(s int) string { return fmt.Sprintf("g-%d", s) }

// repoOwner is the login the twin's sessions create repositories under.
func repoOwner(tb testing.TB, base string) string {
	tb.Helper()
	var user struct {
		Login string `json:"login"`
	}
	resp, body := do(tb, base, call{path: "/user", session: pushSession(0)})
	if err := json.Unmarshal(body, &user); resp.StatusCode != http.StatusOK || err != nil || user.Login == "" {
		tb.Fatalf("GET /user: want a login, have %d %s (%v)", resp.StatusCode, body, err)
	}
	return user.Login
}

// pusher is one connection's pushes: its branch, its objects and the
// commit the branch is at. It speaks git's smart HTTP as git does, with
// go-git's encodings of its messages and pack over net/http.
type pusher struct {
	w       int
	branch  plumbing.ReferenceName
	url     string // the repository's, OWNER/REPO.git
	session string // in the credential's .wraith. suffix, as git sends it
	client  *http.Client
	store   *memory.Storage
	tree    []object.TreeEntry // main's, to which each commit adds bench.txt
	main    plumbing.Hash      // main's commit, the branch's first parent
	head    plumbing.Hash      // the branch's commit; main until the first push
}

// newPusher fetches main of the repository of pusher w's session and
// keeps main's tree.
func newPusher(tb testing.TB, base, owner string, w int) *pusher {
	tb.Helper()
	p := &pusher{
		w: w, branch: plumbing.ReferenceName(fmt.Sprintf("refs/heads/bench-%d", w)),
		url: base + "/" + owner + "/demo.git", session: pushSession(w % pushSessions),
		// One keep-alive connection per pusher, as the served benchmarks keep.
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, IdleConnTimeout: time.Minute}},
		store:  memory.NewStorage(),
	}
	tb.Cleanup(p.client.CloseIdleConnections)
	if err := p.fetchMain(); err != nil {
		tb.Fatalf("fetch main of %s in %s: %v", p.url, p.session, err)
	}
	return p
}

// do sends one request of the protocol with the pusher's credential and
// returns the answer's body, which must be 200.
func (p *pusher) do(method, path, contentType string, body io.Reader) (io.ReadCloser, error) {
	req, err := http.NewRequest(method, p.url+path, body)
	if err != nil {
		return nil, err
	}
	req.SetBasicAuth("x", "ghp_token.wraith."+p.session)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		resp.Body.Close()
		return nil, fmt.Errorf("%s %s: want 200, have %d %s", method, path, resp.StatusCode, msg)
	}
	return resp.Body, nil
}

// advertisement reads the references service advertises.
func (p *pusher) advertisement(service string) (*packp.AdvRefs, error) {
	body, err := p.do(http.MethodGet, "/info/refs?service="+service, "", nil)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	adv := packp.NewAdvRefs()
	if err := adv.Decode(body); err != nil {
		return nil, fmt.Errorf("%s advertisement: %w", service, err)
	}
	io.Copy(io.Discard, body) // so that the connection is kept
	return adv, nil
}

// fetchMain fetches main's commit and objects, as a clone does.
func (p *pusher) fetchMain() error {
	adv, err := p.advertisement("git-upload-pack")
	if err != nil {
		return err
	}
	main, ok := adv.References["refs/heads/main"]
	if !ok {
		return fmt.Errorf("no main among %v", adv.References)
	}
	req := packp.NewUploadPackRequest()
	req.Wants = []plumbing.Hash{main}
	var msg bytes.Buffer
	if err := req.UploadRequest.Encode(&msg); err != nil {
		return err
	}
	if err := req.UploadHaves.Encode(&msg, false); err != nil {
		return err
	}
	if err := pktline.NewEncoder(&msg).EncodeString("done\n"); err != nil {
		return err
	}
	body, err := p.do(http.MethodPost, "/git-upload-pack", "application/x-git-upload-pack-request", &msg)
	if err != nil {
		return err
	}
	defer body.Close()
	resp := packp.NewUploadPackResponse(req)
	if err := resp.Decode(body); err != nil {
		return fmt.Errorf("upload-pack: %w", err)
	}
	if err := packfile.UpdateObjectStorage(p.store, resp); err != nil {
		return fmt.Errorf("upload-pack's pack: %w", err)
	}
	commit, err := object.GetCommit(p.store, main)
	if err != nil {
		return err
	}
	tree, err := commit.Tree()
	if err != nil {
		return err
	}
	p.tree, p.main, p.head = tree.Entries, main, main
	return nil
}

// push makes the i-th commit on the branch and pushes it, as git push
// does: the advertisement, then the command and the pack.
func (p *pusher) push(i int) error {
	adv, err := p.advertisement("git-receive-pack")
	if err != nil {
		return err
	}
	old := plumbing.ZeroHash
	if p.head != p.main {
		old = p.head
	}
	if have := adv.References[p.branch.String()]; have != old {
		return fmt.Errorf("advertised at %s, want the last push's %s", have, old)
	}
	hashes, commit, err := p.commit(i)
	if err != nil {
		return err
	}
	var pack bytes.Buffer
	if _, err := packfile.NewEncoder(&pack, p.store, false).Encode(hashes, 0); err != nil {
		return fmt.Errorf("pack: %w", err)
	}
	req := packp.NewReferenceUpdateRequestFromCapabilities(adv.Capabilities)
	req.Commands = []*packp.Command{{Name: p.branch, Old: old, New: commit}}
	req.Packfile = io.NopCloser(&pack)
	var msg bytes.Buffer
	if err := req.Encode(&msg); err != nil {
		return err
	}
	body, err := p.do(http.MethodPost, "/git-receive-pack", "application/x-git-receive-pack-request", &msg)
	if err != nil {
		return err
	}
	defer body.Close()
	report := packp.NewReportStatus()
	if err := report.Decode(body); err != nil {
		return fmt.Errorf("report-status: %w", err)
	}
	io.Copy(io.Discard, body)
	if err := report.Error(); err != nil || len(report.CommandStatuses) != 1 {
		return fmt.Errorf("receive-pack: want one command ok, have %+v (%v)", report, err)
	}
	p.head = commit
	return nil
}

// commit stores a blob, main's tree with bench.txt set to it, and a
// commit of that tree on the branch's head, and returns their hashes.
func (p *pusher) commit(i int) ([]plumbing.Hash, plumbing.Hash, error) {
	blob := p.store.NewEncodedObject()
	blob.SetType(plumbing.BlobObject)
	wr, err := blob.Writer()
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	fmt.Fprintf(wr, "push %d of pusher %d\n", i, p.w)
	wr.Close()
	blobHash, err := p.store.SetEncodedObject(blob)
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	entries := make([]object.TreeEntry, 0, len(p.tree)+1)
	for _, e := range p.tree {
		if e.Name != "bench.txt" {
			entries = append(entries, e)
		}
	}
	entries = append(entries, object.TreeEntry{Name: "bench.txt", Mode: filemode.Regular, Hash: blobHash})
	sortTree(entries)
	treeHash, err := p.encode(&object.Tree{Entries: entries})
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	when := time.Date(2026, 3, 4, 6, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)
	sig := object.Signature{Name: "Agent", Email: "agent@example.com", When: when}
	commitHash, err := p.encode(&object.Commit{
		Author: sig, Committer: sig, Message: fmt.Sprintf("push %d\n", i),
		TreeHash: treeHash, ParentHashes: []plumbing.Hash{p.head},
	})
	if err != nil {
		return nil, plumbing.ZeroHash, err
	}
	return []plumbing.Hash{blobHash, treeHash, commitHash}, commitHash, nil
}

// encode stores a tree or commit in the pusher's objects.
func (p *pusher) encode(o interface {
	Encode(plumbing.EncodedObject) error
}) (plumbing.Hash, error) {
	obj := p.store.NewEncodedObject()
	if err := o.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return p.store.SetEncodedObject(obj)
}

// sortTree puts entries in git's tree order, which compares names with a
// directory's taken as ending in "/".
func sortTree(entries []object.TreeEntry) {
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	slices.SortFunc(entries, func(a, b object.TreeEntry) int { return strings.Compare(key(a), key(b)) })
}
