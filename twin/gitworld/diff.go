package gitworld

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	fdiff "github.com/go-git/go-git/v5/plumbing/format/diff"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/utils/diff"
	"github.com/go-git/go-git/v5/utils/merkletrie"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// FileDiff is one file of a comparison, as GitHub's "files" give it.
type FileDiff struct {
	Filename         string
	PreviousFilename string // for "renamed"
	Status           string // "added", "removed", "modified", "renamed" or "changed" (mode only)
	SHA              string // the blob's sha: the new one, or the old one for "removed"
	Additions        int
	Deletions        int
	Changes          int
	// Patch is the unified diff of the file's lines with three lines of
	// context, from its first "@@" on, as GitHub gives it; empty for
	// binary files, files past maxPatchBytes and changes of no lines.
	Patch  string
	Binary bool
}

// maxPatchBytes is the largest side of a file diffed line by line; GitHub
// too leaves the patch of a large file out.
const maxPatchBytes = 1 << 20

// maxDiffFiles bounds the files of one comparison, as GitHub lists 300.
const maxDiffFiles = 3000

// diffTrees compares two trees (a zero hash is the empty tree), with
// renames detected as git detects them by default.
func (r *Repo) diffTrees(ctx context.Context, a, b plumbing.Hash) ([]FileDiff, error) {
	ta, err := r.treeOrEmpty(a)
	if err != nil {
		return nil, err
	}
	tb, err := r.treeOrEmpty(b)
	if err != nil {
		return nil, err
	}
	changes, err := object.DiffTreeWithOptions(ctx, ta, tb, object.DefaultDiffTreeOptions)
	if err != nil {
		return nil, fmt.Errorf("gitworld: comparing trees %s and %s: %w", a, b, err)
	}
	out := make([]FileDiff, 0, min(len(changes), maxDiffFiles))
	for _, c := range changes {
		if len(out) == maxDiffFiles {
			break
		}
		fd, err := r.fileDiff(c)
		if err != nil {
			return nil, err
		}
		out = append(out, fd)
	}
	return out, nil
}

func (r *Repo) treeOrEmpty(h plumbing.Hash) (*object.Tree, error) {
	if h.IsZero() {
		return &object.Tree{}, nil
	}
	t, err := object.GetTree(r.st, h)
	if err != nil {
		return nil, fmt.Errorf("gitworld: tree %s in %s: %w", h, r.name, ErrNotFound)
	}
	return t, nil
}

func (r *Repo) fileDiff(c *object.Change) (FileDiff, error) {
	action, err := c.Action()
	if err != nil {
		return FileDiff{}, err
	}
	from, to := sideOf(c.From), sideOf(c.To)
	fd := FileDiff{Filename: c.To.Name, SHA: c.To.TreeEntry.Hash.String()}
	switch {
	case action == merkletrie.Insert:
		fd.Status = "added"
	case action == merkletrie.Delete:
		fd.Status, fd.Filename, fd.SHA = "removed", c.From.Name, c.From.TreeEntry.Hash.String()
	case c.From.Name != c.To.Name:
		fd.Status, fd.PreviousFilename = "renamed", c.From.Name
	case c.From.TreeEntry.Hash == c.To.TreeEntry.Hash:
		fd.Status = "changed"
	default:
		fd.Status = "modified"
	}
	var a, b []byte
	if from != nil {
		a = r.blobData(from.hash)
	}
	if to != nil {
		b = r.blobData(to.hash)
	}
	if isBinary(a) || isBinary(b) {
		fd.Binary = true
		return fd, nil
	}
	if len(a) > maxPatchBytes || len(b) > maxPatchBytes {
		return fd, nil
	}
	fd.Patch, fd.Additions, fd.Deletions = unifiedPatch(from, to, string(a), string(b))
	fd.Changes = fd.Additions + fd.Deletions
	return fd, nil
}

func (r *Repo) blobData(h plumbing.Hash) []byte {
	o, ok := r.st.get(h)
	if !ok || o.typ != plumbing.BlobObject {
		return nil // a submodule's commit: no lines
	}
	return o.data
}

// isBinary is git's test: a NUL in the first 8000 bytes.
func isBinary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0
}

// unifiedPatch renders the line diff of a and b through go-git's unified
// encoder, cut to its hunks.
func unifiedPatch(from, to *side, a, b string) (patch string, adds, dels int) {
	var chunks []fdiff.Chunk
	for _, d := range diff.Do(a, b) {
		var op fdiff.Operation
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			op = fdiff.Equal
		case diffmatchpatch.DiffInsert:
			op = fdiff.Add
			adds += countLines(d.Text)
		case diffmatchpatch.DiffDelete:
			op = fdiff.Delete
			dels += countLines(d.Text)
		}
		chunks = append(chunks, chunk{d.Text, op})
	}
	var buf strings.Builder
	fp := &filePatch{chunks: chunks}
	if from != nil {
		fp.from = from
	}
	if to != nil {
		fp.to = to
	}
	if err := fdiff.NewUnifiedEncoder(&buf, fdiff.DefaultContextLines).Encode(onePatch{fp}); err != nil {
		return "", adds, dels
	}
	s := buf.String()
	if i := strings.Index(s, "\n@@ "); i >= 0 {
		s = s[i+1:]
	} else {
		s = ""
	}
	return strings.TrimSuffix(s, "\n"), adds, dels
}

func countLines(s string) int {
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") && s != "" {
		n++
	}
	return n
}

// side is one side of a file patch, as go-git's fdiff.File.
type side struct {
	hash plumbing.Hash
	mode filemode.FileMode
	path string
}

func sideOf(e object.ChangeEntry) *side {
	if e.Name == "" {
		return nil
	}
	return &side{hash: e.TreeEntry.Hash, mode: e.TreeEntry.Mode, path: e.Name}
}

func (s *side) Hash() plumbing.Hash     { return s.hash }
func (s *side) Mode() filemode.FileMode { return s.mode }
func (s *side) Path() string            { return s.path }

type chunk struct {
	content string
	op      fdiff.Operation
}

func (c chunk) Content() string       { return c.content }
func (c chunk) Type() fdiff.Operation { return c.op }

type filePatch struct {
	from, to fdiff.File // nil interfaces for a missing side
	chunks   []fdiff.Chunk
}

func (p *filePatch) IsBinary() bool               { return false }
func (p *filePatch) Files() (from, to fdiff.File) { return p.from, p.to }
func (p *filePatch) Chunks() []fdiff.Chunk        { return p.chunks }

type onePatch struct{ fp fdiff.FilePatch }

func (p onePatch) FilePatches() []fdiff.FilePatch { return []fdiff.FilePatch{p.fp} }
func (p onePatch) Message() string                { return "" }
