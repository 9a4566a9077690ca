package gitworld

import (
	"fmt"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// The contents API: files and directories at a revision, and a file
// created, updated or deleted on a branch as one commit.

// Content is a file, a symlink, a submodule or a directory at a revision.
type Content struct {
	Type    string // "file", "dir", "symlink" or "submodule"
	Name    string
	Path    string
	SHA     string    // the blob's, the tree's or the submodule's commit
	Size    int64     // a file's or symlink's size in bytes; 0 for others
	Data    []byte    // a file's content or a symlink's target; shared, do not change
	Entries []Content // a directory's entries, without their Data
}

// Content reads path ("" for the root) at rev (the default branch when
// empty).
func (r *Repo) Content(rev, p string) (Content, error) {
	unlock, err := r.rlock()
	if err != nil {
		return Content{}, err
	}
	defer unlock()
	c, err := r.resolveCommit(rev)
	if err != nil {
		return Content{}, err
	}
	p = strings.Trim(p, "/")
	e := object.TreeEntry{Mode: filemode.Dir, Hash: c.TreeHash}
	if p != "" {
		var found bool
		if e, found, err = r.lookup(c.TreeHash, p); err != nil {
			return Content{}, err
		} else if !found {
			return Content{}, fmt.Errorf("gitworld: no %s at %s in %s: %w", p, revOr(rev, r.defaultBranch), r.name, ErrNotFound)
		}
	}
	out := r.content(p, e, true)
	if out.Type == "dir" {
		t, err := object.GetTree(r.st, e.Hash)
		if err != nil {
			return Content{}, fmt.Errorf("gitworld: tree %s: %w", e.Hash, ErrNotFound)
		}
		out.Entries = make([]Content, len(t.Entries))
		for i, te := range t.Entries {
			out.Entries[i] = r.content(path.Join(p, te.Name), te, false)
		}
	}
	return out, nil
}

func revOr(rev, def string) string {
	if rev == "" {
		return def
	}
	return rev
}

func (r *Repo) content(p string, e object.TreeEntry, data bool) Content {
	c := Content{Name: path.Base(p), Path: p, SHA: e.Hash.String()}
	if p == "" {
		c.Name = ""
	}
	switch e.Mode {
	case filemode.Dir:
		c.Type = "dir"
	case filemode.Submodule:
		c.Type = "submodule"
	case filemode.Symlink:
		c.Type = "symlink"
	default:
		c.Type = "file"
	}
	if c.Type == "file" || c.Type == "symlink" {
		if o, ok := r.st.get(e.Hash); ok {
			c.Size = int64(len(o.data))
			if data {
				c.Data = o.data
			}
		}
	}
	return c
}

// lookup finds the entry at p under the tree h.
func (r *Repo) lookup(h plumbing.Hash, p string) (object.TreeEntry, bool, error) {
	parts, err := splitPath(p)
	if err != nil {
		return object.TreeEntry{}, false, err
	}
	var e object.TreeEntry
	for i, name := range parts {
		t, err := object.GetTree(r.st, h)
		if err != nil {
			return object.TreeEntry{}, false, fmt.Errorf("gitworld: tree %s: %w", h, ErrNotFound)
		}
		found := false
		for _, te := range t.Entries {
			if te.Name == name {
				e, found = te, true
				break
			}
		}
		if !found || (i < len(parts)-1 && e.Mode != filemode.Dir) {
			return object.TreeEntry{}, false, nil
		}
		h = e.Hash
	}
	return e, true, nil
}

// FileChange is a contents write: one file on one branch, as one commit.
type FileChange struct {
	Branch  string // the default branch when empty
	Path    string
	Content []byte // PutFile's new content
	// SHA is the file's current blob sha: required to update or delete a
	// file, and checked against it (a stale one is ErrStaleSHA).
	SHA       string
	Message   string
	Author    Signature
	Committer Signature // defaults to Author
}

// FileResult is what a contents write made.
type FileResult struct {
	Commit  Commit
	SHA     string // the new blob's sha; empty after a delete
	Size    int64
	Created bool // the path did not exist before (GitHub answers 201)
}

// PutFile creates or updates a file. In an empty repository it makes the
// first commit of the default branch.
func (r *Repo) PutFile(fc FileChange) (FileResult, error) {
	return r.writeFile(fc, false)
}

// DeleteFile removes a file; fc.SHA must be its current blob sha.
func (r *Repo) DeleteFile(fc FileChange) (FileResult, error) {
	return r.writeFile(fc, true)
}

func (r *Repo) writeFile(fc FileChange, del bool) (FileResult, error) {
	p := strings.Trim(fc.Path, "/")
	if _, err := splitPath(p); err != nil {
		return FileResult{}, err
	}
	unlock, err := r.lock()
	if err != nil {
		return FileResult{}, err
	}
	defer unlock()
	branch := revOr(fc.Branch, r.defaultBranch)
	refName := plumbing.NewBranchReferenceName(branch)
	if !validRefName(refName.String()) {
		return FileResult{}, fmt.Errorf("gitworld: %q is not a branch name: %w", branch, ErrInvalid)
	}
	var parents []plumbing.Hash
	root := &editTree{}
	cur, found := object.TreeEntry{}, false
	if ref, err := r.st.Reference(refName); err == nil {
		c, err := r.gitCommit(ref.Hash())
		if err != nil {
			return FileResult{}, err
		}
		parents = []plumbing.Hash{c.Hash}
		if root, err = r.loadEditTree(c.TreeHash); err != nil {
			return FileResult{}, err
		}
		if cur, found, err = r.lookup(c.TreeHash, p); err != nil {
			return FileResult{}, err
		}
	} else if branch != r.defaultBranch || r.hasBranches() {
		return FileResult{}, fmt.Errorf("gitworld: branch %s in %s: %w", branch, r.name, ErrNotFound)
	}
	switch {
	case found && cur.Mode == filemode.Dir:
		return FileResult{}, fmt.Errorf("gitworld: %s is a directory in %s, not a file: %w", p, branch, ErrInvalid)
	case found && fc.SHA == "" && !del:
		return FileResult{}, fmt.Errorf("gitworld: %s exists on %s: pass its sha %s to update it: %w", p, branch, cur.Hash, ErrSHARequired)
	case del && !found:
		return FileResult{}, fmt.Errorf("gitworld: no %s on %s in %s: %w", p, branch, r.name, ErrNotFound)
	case del && fc.SHA == "":
		return FileResult{}, fmt.Errorf("gitworld: pass the sha of %s to delete it: %w", p, ErrSHARequired)
	case fc.SHA != "" && (!found || cur.Hash.String() != strings.ToLower(fc.SHA)):
		return FileResult{}, fmt.Errorf("gitworld: %s on %s is at %s, not %s: read it again: %w", p, branch, shaOrNone(cur.Hash, found), fc.SHA, ErrStaleSHA)
	}
	change := TreeChange{Path: p, Delete: del, Content: fc.Content}
	if found {
		change.Mode = fmt.Sprintf("%06o", uint32(cur.Mode)) // an update keeps the file's mode (executable, symlink)
	}
	if change.Content == nil {
		change.Content = []byte{}
	}
	if err := r.applyChange(root, change); err != nil {
		return FileResult{}, err
	}
	tree, err := r.writeEditTree(root)
	if err != nil {
		return FileResult{}, err
	}
	committer := fc.Committer
	if committer == (Signature{}) {
		committer = fc.Author
	}
	h, err := r.writeCommit(tree, parents, fc.Message, fc.Author, committer)
	if err != nil {
		return FileResult{}, err
	}
	if err := r.st.SetReference(plumbing.NewHashReference(refName, h)); err != nil {
		return FileResult{}, err
	}
	c, err := r.commit(h)
	if err != nil {
		return FileResult{}, err
	}
	res := FileResult{Commit: c, Created: !found}
	if !del {
		res.SHA = plumbing.ComputeHash(plumbing.BlobObject, change.Content).String()
		res.Size = int64(len(change.Content))
	}
	return res, nil
}

func shaOrNone(h plumbing.Hash, found bool) string {
	if !found {
		return "no file"
	}
	return h.String()
}

// hasBranches says whether any branch exists: a repository without one is
// empty.
func (r *Repo) hasBranches() bool {
	for _, ref := range r.st.sortedRefs() {
		if ref.Name().IsBranch() {
			return true
		}
	}
	return false
}
