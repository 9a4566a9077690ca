package gitworld

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/format/pktline"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/revlist"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/server"
)

// Git's smart HTTP protocol (protocol v0/v1, stateless RPC), as git's
// http-backend serves it:
//
//	GET  /OWNER/REPO.git/info/refs?service=git-upload-pack|git-receive-pack
//	POST /OWNER/REPO.git/git-upload-pack
//	POST /OWNER/REPO.git/git-receive-pack
//
// The ".git" is optional, as on GitHub. A client asking for protocol v2
// (Git-Protocol: version=2) gets v0, which every git since 1.6.6 reads.
// Shallow clones are refused: go-git's upload-pack does not serve them.

// Git services.
const (
	uploadPack  = "git-upload-pack"
	receivePack = "git-receive-pack"
)

// ParsePath splits a smart HTTP path ("/OWNER/REPO.git/info/refs") into
// the repository ("OWNER/REPO") and what is asked ("info/refs",
// "git-upload-pack" or "git-receive-pack"). ok is false for a path that is
// not git's, so that a caller serving the REST API on the same paths can
// tell the two apart.
func ParsePath(p string) (repo, op string, ok bool) {
	for _, op := range []string{"/info/refs", "/" + uploadPack, "/" + receivePack} {
		rest, found := strings.CutSuffix(p, op)
		if !found {
			continue
		}
		rest = strings.TrimSuffix(strings.TrimPrefix(rest, "/"), ".git")
		if _, _, err := splitName(rest); err != nil {
			return "", "", false
		}
		return rest, op[1:], true
	}
	return "", "", false
}

// Handler returns an http.Handler serving git's smart HTTP protocol for
// w's repositories at the request's URL path (see ParsePath). The caller
// resolves the session and strips any prefix before it: the handler knows
// one World.
func (w *World) Handler() http.Handler { return gitHandler{w} }

type gitHandler struct{ w *World }

func (h gitHandler) ServeHTTP(rw http.ResponseWriter, req *http.Request) {
	name, op, ok := ParsePath(req.URL.Path)
	if !ok {
		gitError(rw, http.StatusNotFound, "not a git path: want /OWNER/REPO.git/info/refs, /git-upload-pack or /git-receive-pack")
		return
	}
	repo, err := h.w.Repo(name)
	if err != nil {
		gitError(rw, http.StatusNotFound, fmt.Sprintf("repository %s not found in this session", name))
		return
	}
	switch {
	case op == "info/refs" && req.Method == http.MethodGet:
		service := req.URL.Query().Get("service")
		if service != uploadPack && service != receivePack {
			// Without a service a client falls back to the dumb protocol,
			// which serves files of a repository folder there is none of.
			gitError(rw, http.StatusForbidden, "only the smart protocol is served: use git 1.6.6 or later")
			return
		}
		h.advertise(rw, req, repo, service)
	case op == uploadPack && req.Method == http.MethodPost:
		h.uploadPack(rw, req, repo)
	case op == receivePack && req.Method == http.MethodPost:
		h.receivePack(rw, req, repo)
	default:
		rw.Header().Set("Allow", map[bool]string{true: "GET", false: "POST"}[op == "info/refs"])
		gitError(rw, http.StatusMethodNotAllowed, fmt.Sprintf("%s %s is not part of git's smart HTTP protocol", req.Method, op))
	}
}

// gitError answers in plain text: git prints an HTTP error's body to the
// user.
func gitError(rw http.ResponseWriter, status int, msg string) {
	rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
	rw.WriteHeader(status)
	io.WriteString(rw, msg+"\n")
}

// loader hands go-git's server the one store a request is about.
type loader struct{ st *store }

func (l loader) Load(*transport.Endpoint) (storer.Storer, error) { return l.st, nil }

func (h gitHandler) session(repo *Repo, service string) (transport.Session, error) {
	srv := server.NewServer(loader{repo.st})
	ep, err := transport.NewEndpoint("/" + repo.name)
	if err != nil {
		return nil, err
	}
	if service == uploadPack {
		return srv.NewUploadPackSession(ep, nil)
	}
	return srv.NewReceivePackSession(ep, nil)
}

func (h gitHandler) advertise(rw http.ResponseWriter, req *http.Request, repo *Repo, service string) {
	sess, err := h.session(repo, service)
	if err != nil {
		gitError(rw, http.StatusInternalServerError, err.Error())
		return
	}
	ar, err := sess.AdvertisedReferencesContext(req.Context())
	if err != nil {
		gitError(rw, http.StatusInternalServerError, err.Error())
		return
	}
	ar.Prefix = [][]byte{[]byte("# service=" + service), pktline.Flush}
	var buf bytes.Buffer
	if err := ar.Encode(&buf); err != nil {
		gitError(rw, http.StatusInternalServerError, err.Error())
		return
	}
	rw.Header().Set("Content-Type", "application/x-"+service+"-advertisement")
	rw.Header().Set("Cache-Control", "no-cache")
	rw.Write(buf.Bytes())
}

// body is the request body, bounded and gunzipped (git compresses the
// upload-pack requests of large negotiations).
func (h gitHandler) body(rw http.ResponseWriter, req *http.Request) (io.Reader, error) {
	r := http.MaxBytesReader(rw, req.Body, h.w.limits.MaxPushBytes)
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("a gzip body that does not decompress: %w", err)
		}
		return io.LimitReader(zr, h.w.limits.MaxPushBytes), nil
	}
	return r, nil
}

func (h gitHandler) uploadPack(rw http.ResponseWriter, req *http.Request, repo *Repo) {
	body, err := h.body(rw, req)
	if err != nil {
		gitError(rw, http.StatusBadRequest, err.Error())
		return
	}
	upr, done, err := readUploadRequest(bufio.NewReader(body), repo.st)
	if err != nil {
		gitError(rw, http.StatusBadRequest, "reading the upload-pack request: "+err.Error())
		return
	}
	rw.Header().Set("Content-Type", "application/x-git-upload-pack-result")
	rw.Header().Set("Cache-Control", "no-cache")
	if !done {
		// A negotiation round: say whether any have is known. Without
		// multi_ack (not advertised) one ACK ends the round and the
		// client sends "done" with its wants and the acknowledged haves.
		e := pktline.NewEncoder(rw)
		if len(upr.Haves) > 0 {
			e.Encodef("ACK %s\n", upr.Haves[0])
		} else {
			e.Encodef("NAK\n")
		}
		return
	}
	if len(upr.Wants) == 0 {
		gitError(rw, http.StatusBadRequest, "upload-pack: the request wants nothing")
		return
	}
	objs, err := objectsToSend(repo.st, upr.Wants, upr.Haves)
	if err != nil {
		gitError(rw, http.StatusBadRequest, "upload-pack: "+err.Error())
		return
	}
	// The answer to "done": NAK (no multi_ack), then the pack. go-git's
	// own upload-pack searches for deltas in a window of 10, which costs
	// more time than the bytes it saves on a loopback; the pack here is
	// written whole (window 0), as git's --window=0 would.
	pktline.NewEncoder(rw).Encodef("NAK\n")
	if _, err := packfile.NewEncoder(ctxWriter{req.Context(), rw}, repo.st, false).Encode(objs, 0); err != nil {
		return // the client sees the pack cut short
	}
}

// objectsToSend is what a fetch needs: the objects reachable from wants
// and not from haves.
func objectsToSend(st *store, wants, haves []plumbing.Hash) ([]plumbing.Hash, error) {
	for _, h := range wants {
		if st.HasEncodedObject(h) != nil {
			return nil, fmt.Errorf("not our ref %s", h)
		}
	}
	seen, err := revlist.Objects(st, haves, nil)
	if err != nil {
		return nil, err
	}
	return revlist.Objects(st, wants, seen)
}

type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// readUploadRequest reads wants, then haves until "done". Haves the store
// does not hold are dropped: they are the client's own commits.
func readUploadRequest(r *bufio.Reader, st *store) (*packp.UploadPackRequest, bool, error) {
	upr := packp.NewUploadPackRequest()
	if err := upr.UploadRequest.Decode(r); err != nil {
		return nil, false, err
	}
	s := pktline.NewScanner(r)
	for s.Scan() {
		line := bytes.TrimSuffix(s.Bytes(), []byte("\n"))
		switch {
		case len(line) == 0: // a flush: the end of one round of haves
		case bytes.Equal(line, []byte("done")):
			return upr, true, nil
		case bytes.HasPrefix(line, []byte("have ")):
			h := plumbing.NewHash(string(line[5:]))
			if len(upr.Haves) < 100_000 && st.HasEncodedObject(h) == nil {
				upr.Haves = append(upr.Haves, h)
			}
		default:
			return nil, false, fmt.Errorf("unexpected line %q", line)
		}
	}
	return upr, false, s.Err()
}

func (h gitHandler) receivePack(rw http.ResponseWriter, req *http.Request, repo *Repo) {
	body, err := h.body(rw, req)
	if err != nil {
		gitError(rw, http.StatusBadRequest, err.Error())
		return
	}
	upd := packp.NewReferenceUpdateRequest()
	if err := upd.Decode(body); err != nil {
		gitError(rw, http.StatusBadRequest, "reading the receive-pack request: "+err.Error())
		return
	}
	rs := repo.receive(req.Context(), upd)
	rw.Header().Set("Content-Type", "application/x-git-receive-pack-result")
	rw.Header().Set("Cache-Control", "no-cache")
	if upd.Capabilities.Supports("report-status") {
		rs.Encode(rw)
	}
}

// receive applies a push: the pack is read into a stage first, so that a
// refused push leaves no object behind; then, under the World's lock, each
// command is checked against the reference as it is now (its old value
// must match: a push from a stale view is refused) and applied. Force
// pushes are accepted, as GitHub accepts them on an unprotected branch;
// git itself refuses a non-fast-forward push unless told to force it.
func (r *Repo) receive(ctx context.Context, upd *packp.ReferenceUpdateRequest) *packp.ReportStatus {
	rs := packp.NewReportStatus()
	rs.UnpackStatus = "ok"
	st := newStage(r)
	if err := st.read(ctx, upd.Packfile); err != nil {
		rs.UnpackStatus = err.Error()
		for _, c := range upd.Commands {
			rs.CommandStatuses = append(rs.CommandStatuses, &packp.CommandStatus{ReferenceName: c.Name, Status: "unpacker error"})
		}
		return rs
	}
	unlock, err := r.lock()
	if err != nil {
		rs.UnpackStatus = err.Error()
		return rs
	}
	defer unlock()
	if err := st.commit(); err != nil {
		rs.UnpackStatus = err.Error()
		for _, c := range upd.Commands {
			rs.CommandStatuses = append(rs.CommandStatuses, &packp.CommandStatus{ReferenceName: c.Name, Status: "unpacker error"})
		}
		return rs
	}
	for _, c := range upd.Commands {
		status := "ok"
		if err := r.apply(c); err != nil {
			status = err.Error()
		}
		rs.CommandStatuses = append(rs.CommandStatuses, &packp.CommandStatus{ReferenceName: c.Name, Status: status})
	}
	return rs
}

// apply is one push command, checked as git's receive-pack checks it.
func (r *Repo) apply(c *packp.Command) error {
	if !validRefName(c.Name.String()) {
		return errors.New("funny refname")
	}
	cur, err := r.st.Reference(c.Name)
	have := plumbing.ZeroHash
	if err == nil {
		have = cur.Hash()
	}
	if have != c.Old {
		return errors.New("stale info") // the client's view of the ref is out of date
	}
	if c.New.IsZero() {
		if c.Name == plumbing.NewBranchReferenceName(r.defaultBranch) {
			return errors.New("refusing to delete the current branch")
		}
		return r.st.RemoveReference(c.Name)
	}
	if r.st.HasEncodedObject(c.New) != nil {
		return errors.New("missing necessary objects")
	}
	if c.Old.IsZero() {
		if n, _ := r.st.CountLooseRefs(); n >= maxRefs {
			return errors.New("too many references")
		}
	}
	return r.st.SetReference(plumbing.NewHashReference(c.Name, c.New))
}
