package gitworld

import (
	"fmt"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TreeEntry is one entry of a tree listing.
type TreeEntry struct {
	Path string // from the listed tree's root, "/"-separated
	Mode string // "100644", "100755", "040000", "120000" or "160000", as GitHub writes them
	Type string // "blob", "tree" or "commit" (a submodule)
	SHA  string
	Size int64 // a blob's size; 0 for others
}

// TreeChange is one entry of WriteTree's input, GitHub's create-a-tree
// entry: it sets Path (creating the trees on the way) to SHA, or to a
// new blob of Content, or removes it when Delete is set (GitHub's
// "sha": null).
type TreeChange struct {
	Path    string
	Mode    string // "100644" when empty
	SHA     string
	Content []byte // used when SHA is empty and Delete is not set
	Delete  bool
}

// maxTreeChanges bounds one WriteTree call, as GitHub bounds its body.
const maxTreeChanges = 10_000

// WriteTree makes a tree: base's entries (none when base is empty) with
// changes applied in order, and returns its sha.
func (r *Repo) WriteTree(base string, changes []TreeChange) (string, error) {
	if len(changes) > maxTreeChanges {
		return "", fmt.Errorf("gitworld: %d tree entries are more than the %d one tree may change: %w", len(changes), maxTreeChanges, ErrInvalid)
	}
	unlock, err := r.lock()
	if err != nil {
		return "", err
	}
	defer unlock()
	root := &editTree{}
	if base != "" {
		h, err := parseSHA(base, "base_tree")
		if err != nil {
			return "", err
		}
		if root, err = r.loadEditTree(h); err != nil {
			return "", err
		}
	}
	for _, c := range changes {
		if err := r.applyChange(root, c); err != nil {
			return "", err
		}
	}
	h, err := r.writeEditTree(root)
	return h.String(), err
}

// editTree is a tree being changed: its entries by name, each either kept
// as stored or, where a change passes through it, opened as a subtree.
type editTree struct {
	entries map[string]*editEntry
}

type editEntry struct {
	mode filemode.FileMode
	hash plumbing.Hash
	sub  *editTree // non-nil once opened
	blob []byte    // content to store as the entry's blob, when non-nil (a merge's result)
}

func (r *Repo) loadEditTree(h plumbing.Hash) (*editTree, error) {
	t, err := object.GetTree(r.st, h)
	if err != nil {
		return nil, fmt.Errorf("gitworld: tree %s in %s: %w", h, r.name, ErrNotFound)
	}
	et := &editTree{entries: make(map[string]*editEntry, len(t.Entries))}
	for _, e := range t.Entries {
		et.entries[e.Name] = &editEntry{mode: e.Mode, hash: e.Hash}
	}
	return et, nil
}

func splitPath(p string) ([]string, error) {
	parts := strings.Split(p, "/")
	for _, s := range parts {
		if s == "" || s == "." || s == ".." || s == ".git" || strings.ContainsRune(s, 0) {
			return nil, fmt.Errorf("gitworld: %q is not a path: want names separated by '/', none empty, '.', '..' or '.git': %w", p, ErrInvalid)
		}
	}
	return parts, nil
}

func parseMode(m string) (filemode.FileMode, error) {
	switch m {
	case "", "100644":
		return filemode.Regular, nil
	case "100755":
		return filemode.Executable, nil
	case "040000":
		return filemode.Dir, nil
	case "120000":
		return filemode.Symlink, nil
	case "160000":
		return filemode.Submodule, nil
	}
	return 0, fmt.Errorf("gitworld: mode %q is not one of 100644, 100755, 040000, 160000, 120000: %w", m, ErrInvalid)
}

func (r *Repo) applyChange(root *editTree, c TreeChange) error {
	parts, err := splitPath(c.Path)
	if err != nil {
		return err
	}
	mode, err := parseMode(c.Mode)
	if err != nil {
		return err
	}
	var h plumbing.Hash
	switch {
	case c.Delete:
	case c.SHA != "":
		if h, err = parseSHA(c.SHA, "tree.sha"); err != nil {
			return err
		}
		o, ok := r.st.get(h)
		want := objectTypeOf(mode)
		if mode != filemode.Submodule && (!ok || o.typ != want) {
			return fmt.Errorf("gitworld: tree.sha %s of %s is not a %s in %s: %w", c.SHA, c.Path, want, r.name, ErrInvalid)
		}
	default:
		if mode == filemode.Dir || mode == filemode.Submodule {
			return fmt.Errorf("gitworld: %s: content makes a blob, not a mode %s entry: %w", c.Path, c.Mode, ErrInvalid)
		}
		if h, err = r.st.put(obj{typ: plumbing.BlobObject, data: c.Content}); err != nil {
			return err
		}
	}
	t := root
	for _, name := range parts[:len(parts)-1] {
		e := t.entries[name]
		if e == nil || e.mode != filemode.Dir {
			if c.Delete {
				return nil // nothing there to delete
			}
			e = &editEntry{mode: filemode.Dir, sub: &editTree{entries: map[string]*editEntry{}}}
			if t.entries == nil {
				t.entries = map[string]*editEntry{}
			}
			t.entries[name] = e
		}
		if e.sub == nil {
			if e.sub, err = r.loadEditTree(e.hash); err != nil {
				return err
			}
		}
		t = e.sub
	}
	leaf := parts[len(parts)-1]
	if c.Delete {
		delete(t.entries, leaf)
		return nil
	}
	if t.entries == nil {
		t.entries = map[string]*editEntry{}
	}
	t.entries[leaf] = &editEntry{mode: mode, hash: h}
	return nil
}

func objectTypeOf(m filemode.FileMode) plumbing.ObjectType {
	switch m {
	case filemode.Dir:
		return plumbing.TreeObject
	case filemode.Submodule:
		return plumbing.CommitObject
	}
	return plumbing.BlobObject
}

// writeEditTree stores the opened subtrees bottom-up and then t; a subtree
// left empty is dropped, as git has no empty directories.
func (r *Repo) writeEditTree(t *editTree) (plumbing.Hash, error) {
	entries := make([]object.TreeEntry, 0, len(t.entries))
	for name, e := range t.entries {
		if e.blob != nil {
			h, err := r.st.put(obj{typ: plumbing.BlobObject, data: e.blob})
			if err != nil {
				return plumbing.ZeroHash, err
			}
			e.hash, e.blob = h, nil
		}
		if e.sub != nil {
			if len(e.sub.entries) == 0 {
				continue
			}
			h, err := r.writeEditTree(e.sub)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			e.hash = h
		}
		entries = append(entries, object.TreeEntry{Name: name, Mode: e.mode, Hash: e.hash})
	}
	return r.encodeTree(entries)
}

// encodeTree stores a tree of entries in git's order: by name, a tree's
// name compared as if it ended in "/".
func (r *Repo) encodeTree(entries []object.TreeEntry) (plumbing.Hash, error) {
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	slices.SortFunc(entries, func(a, b object.TreeEntry) int { return strings.Compare(key(a), key(b)) })
	t := &object.Tree{Entries: entries}
	o := &plumbing.MemoryObject{}
	if err := t.Encode(o); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("gitworld: encoding a tree: %w", err)
	}
	return r.st.SetEncodedObject(o)
}

// maxListed bounds a recursive listing, as GitHub truncates one (its
// "truncated": true).
const maxListed = 100_000

// Tree lists a tree: rev is a tree's sha, or a commit, branch or tag whose
// tree is listed. Recursive lists subtrees' entries too, each tree before
// what it holds. Truncated says the listing stopped at its bound.
func (r *Repo) Tree(rev string, recursive bool) (sha string, entries []TreeEntry, truncated bool, err error) {
	unlock, err := r.rlock()
	if err != nil {
		return "", nil, false, err
	}
	defer unlock()
	h, err := r.treeOf(rev)
	if err != nil {
		return "", nil, false, err
	}
	truncated, err = r.listTree(h, "", recursive, &entries)
	return h.String(), entries, truncated, err
}

// treeOf resolves rev to a tree.
func (r *Repo) treeOf(rev string) (plumbing.Hash, error) {
	if h, err := parseSHA(rev, "tree"); err == nil {
		if o, ok := r.st.get(h); ok && o.typ == plumbing.TreeObject {
			return h, nil
		}
	}
	c, err := r.resolveCommit(rev)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return c.TreeHash, nil
}

func (r *Repo) listTree(h plumbing.Hash, prefix string, recursive bool, out *[]TreeEntry) (bool, error) {
	t, err := object.GetTree(r.st, h)
	if err != nil {
		return false, fmt.Errorf("gitworld: tree %s in %s: %w", h, r.name, ErrNotFound)
	}
	for _, e := range t.Entries {
		if len(*out) >= maxListed {
			return true, nil
		}
		te := r.entry(prefix+e.Name, e)
		*out = append(*out, te)
		if recursive && e.Mode == filemode.Dir {
			if trunc, err := r.listTree(e.Hash, te.Path+"/", true, out); trunc || err != nil {
				return trunc, err
			}
		}
	}
	return false, nil
}

func (r *Repo) entry(path string, e object.TreeEntry) TreeEntry {
	te := TreeEntry{Path: path, Mode: fmt.Sprintf("%06o", uint32(e.Mode)), Type: objectTypeOf(e.Mode).String(), SHA: e.Hash.String()}
	if te.Type == "blob" {
		te.Size, _ = r.st.EncodedObjectSize(e.Hash)
	}
	return te
}
