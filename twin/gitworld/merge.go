package gitworld

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/utils/diff"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// Merging head into base, as a pull request merges: a merge commit, a
// squash or a rebase, each creating its commits on the base branch.

// MergeMethod is how Merge brings head into base: GitHub's merge_method.
type MergeMethod string

// Merge methods.
const (
	MergeCommit MergeMethod = "merge"  // a merge commit with base and head as parents
	Squash      MergeMethod = "squash" // one commit of head's changes, with base as parent
	Rebase      MergeMethod = "rebase" // head's commits replayed on base, one by one
)

// MergeRequest is what Merge merges.
type MergeRequest struct {
	Base   string // the branch that receives the commits
	Head   string // a sha, branch or tag
	Method MergeMethod
	// Message is the merge or squash commit's message; a rebase keeps
	// each commit's own.
	Message string
	// Author of the merge or squash commit; a rebase keeps each commit's
	// own. Committer of every commit made; defaults to Author.
	Author, Committer Signature
}

// MergeCheck is whether head merges into base without conflicts.
type MergeCheck struct {
	Clean     bool
	Conflicts []string // the paths both sides changed in ways that overlap
	UpToDate  bool     // head is already in base: nothing to merge
}

// Mergeable says whether head merges cleanly into base. It stores nothing.
func (r *Repo) Mergeable(base, head string) (MergeCheck, error) {
	unlock, err := r.rlock()
	if err != nil {
		return MergeCheck{}, err
	}
	defer unlock()
	bc, hc, mb, err := r.mergeSides(base, head)
	if err != nil {
		return MergeCheck{}, err
	}
	if r.isAncestor(hc.Hash, bc.Hash) {
		return MergeCheck{Clean: true, UpToDate: true}, nil
	}
	var m merger
	m.r = r
	m.tree(mb.TreeHash, bc.TreeHash, hc.TreeHash, "")
	return MergeCheck{Clean: len(m.conflicts) == 0, Conflicts: m.conflicts}, nil
}

func (r *Repo) mergeSides(base, head string) (bc, hc, mb *object.Commit, err error) {
	if bc, err = r.resolveCommit(base); err != nil {
		return nil, nil, nil, err
	}
	if hc, err = r.resolveCommit(head); err != nil {
		return nil, nil, nil, err
	}
	if mb, err = r.mergeBase(bc, hc); err != nil {
		return nil, nil, nil, err
	}
	return bc, hc, mb, nil
}

// Merge merges head into the branch base by m.Method and returns the
// commit base then points at. Head already in base is ErrNothingToMerge;
// overlapping changes are ErrConflict, and nothing is changed.
func (r *Repo) Merge(m MergeRequest) (Commit, error) {
	unlock, err := r.lock()
	if err != nil {
		return Commit{}, err
	}
	defer unlock()
	refName := plumbing.NewBranchReferenceName(m.Base)
	if _, err := r.st.Reference(refName); err != nil {
		return Commit{}, fmt.Errorf("gitworld: base branch %s in %s: %w", m.Base, r.name, ErrNotFound)
	}
	bc, hc, mb, err := r.mergeSides(m.Base, m.Head)
	if err != nil {
		return Commit{}, err
	}
	if r.isAncestor(hc.Hash, bc.Hash) {
		return Commit{}, fmt.Errorf("gitworld: %s is already in %s: %w", m.Head, m.Base, ErrNothingToMerge)
	}
	committer := m.Committer
	if committer == (Signature{}) {
		committer = m.Author
	}
	var tip plumbing.Hash
	switch m.Method {
	case MergeCommit, Squash, "":
		tree, err := r.mergeTrees(mb.TreeHash, bc.TreeHash, hc.TreeHash)
		if err != nil {
			return Commit{}, err
		}
		parents := []plumbing.Hash{bc.Hash, hc.Hash}
		if m.Method == Squash {
			parents = parents[:1]
		}
		if tip, err = r.writeCommit(tree, parents, m.Message, m.Author, committer); err != nil {
			return Commit{}, err
		}
	case Rebase:
		if tip, err = r.rebase(bc, hc, committer); err != nil {
			return Commit{}, err
		}
	default:
		return Commit{}, fmt.Errorf("gitworld: merge method %q is not merge, squash or rebase: %w", m.Method, ErrInvalid)
	}
	if err := r.st.SetReference(plumbing.NewHashReference(refName, tip)); err != nil {
		return Commit{}, err
	}
	return r.commit(tip)
}

// rebase replays head's commits that base lacks, parents first, on base.
func (r *Repo) rebase(bc, hc *object.Commit, committer Signature) (plumbing.Hash, error) {
	inBase, err := r.ancestors(bc.Hash)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	var order []*object.Commit
	seen := map[plumbing.Hash]bool{}
	var visit func(c *object.Commit) error
	visit = func(c *object.Commit) error { // post-order: parents before children
		if seen[c.Hash] || inBase[c.Hash] {
			return nil
		}
		seen[c.Hash] = true
		for _, p := range c.ParentHashes {
			pc, err := r.gitCommit(p)
			if err != nil {
				return err
			}
			if err := visit(pc); err != nil {
				return err
			}
		}
		order = append(order, c)
		return nil
	}
	if err := visit(hc); err != nil {
		return plumbing.ZeroHash, err
	}
	tip, tipTree := bc.Hash, bc.TreeHash
	for _, c := range order {
		if len(c.ParentHashes) > 1 {
			continue // a merge inside head: its changes come with the commits it merged
		}
		var parentTree plumbing.Hash
		if len(c.ParentHashes) == 1 {
			pc, err := r.gitCommit(c.ParentHashes[0])
			if err != nil {
				return plumbing.ZeroHash, err
			}
			parentTree = pc.TreeHash
		}
		tree, err := r.mergeTrees(parentTree, tipTree, c.TreeHash)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("gitworld: replaying %s: %w", c.Hash, err)
		}
		if tip, err = r.writeCommit(tree, []plumbing.Hash{tip}, c.Message, fromGitSig(c.Author), committer); err != nil {
			return plumbing.ZeroHash, err
		}
		tipTree = tree
	}
	return tip, nil
}

// mergeTrees merges ours and theirs, both descended from base, and stores
// the result.
func (r *Repo) mergeTrees(base, ours, theirs plumbing.Hash) (plumbing.Hash, error) {
	m := merger{r: r}
	t := m.tree(base, ours, theirs, "")
	if len(m.conflicts) > 0 {
		return plumbing.ZeroHash, fmt.Errorf("gitworld: %s: %w", strings.Join(m.conflicts, ", "), ErrConflict)
	}
	if m.err != nil {
		return plumbing.ZeroHash, m.err
	}
	if t == nil {
		return r.encodeTree(nil)
	}
	return r.writeEditTree(t)
}

// merger is one three-way merge, collecting conflicts rather than stopping
// at the first, so that Mergeable can name them all.
type merger struct {
	r         *Repo
	conflicts []string
	err       error
}

// tree merges three trees (a zero hash is an absent one). The result is
// an editTree whose unchanged entries are kept by hash, so that writing it
// stores only what the merge made.
func (m *merger) tree(base, ours, theirs plumbing.Hash, prefix string) *editTree {
	b, o, t := m.entries(base), m.entries(ours), m.entries(theirs)
	out := &editTree{entries: map[string]*editEntry{}}
	names := map[string]bool{}
	for _, set := range []map[string]object.TreeEntry{b, o, t} {
		for n := range set {
			names[n] = true
		}
	}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		be, bok := b[name]
		oe, ook := o[name]
		te, tok := t[name]
		same := func(x object.TreeEntry, xok bool, y object.TreeEntry, yok bool) bool {
			return xok == yok && (!xok || (x.Hash == y.Hash && x.Mode == y.Mode))
		}
		var pick object.TreeEntry
		var keep bool
		switch {
		case same(oe, ook, te, tok):
			pick, keep = oe, ook
		case same(be, bok, oe, ook):
			pick, keep = te, tok
		case same(be, bok, te, tok):
			pick, keep = oe, ook
		case ook && tok && oe.Mode == filemode.Dir && te.Mode == filemode.Dir && (!bok || be.Mode == filemode.Dir):
			var bh plumbing.Hash
			if bok {
				bh = be.Hash
			}
			if sub := m.tree(bh, oe.Hash, te.Hash, prefix+name+"/"); sub != nil {
				out.entries[name] = &editEntry{mode: filemode.Dir, sub: sub}
			}
			continue
		case ook && tok && isFile(oe.Mode) && isFile(te.Mode) && oe.Mode == te.Mode && (!bok || isFile(be.Mode)):
			var bd []byte
			if bok {
				bd = m.r.blobData(be.Hash)
			}
			merged, ok := merge3(bd, m.r.blobData(oe.Hash), m.r.blobData(te.Hash))
			if !ok {
				m.conflicts = append(m.conflicts, prefix+name)
				continue
			}
			if merged == nil {
				merged = []byte{} // an empty file is still a file
			}
			out.entries[name] = &editEntry{mode: oe.Mode, blob: merged}
			continue
		default:
			m.conflicts = append(m.conflicts, prefix+name) // modify/delete, file/directory, mode
			continue
		}
		if keep {
			out.entries[name] = &editEntry{mode: pick.Mode, hash: pick.Hash}
		}
	}
	if len(out.entries) == 0 {
		return nil
	}
	return out
}

func isFile(m filemode.FileMode) bool {
	return m == filemode.Regular || m == filemode.Executable || m == filemode.Deprecated
}

func (m *merger) entries(h plumbing.Hash) map[string]object.TreeEntry {
	out := map[string]object.TreeEntry{}
	if h.IsZero() {
		return out
	}
	t, err := object.GetTree(m.r.st, h)
	if err != nil {
		m.err = fmt.Errorf("gitworld: tree %s: %w", h, ErrNotFound)
		return out
	}
	for _, e := range t.Entries {
		out[e.Name] = e
	}
	return out
}

// hunk is one change of a file against the merge base: base lines
// [start, end) replaced by lines.
type hunk struct {
	start, end int
	lines      []string
}

// merge3 merges two changes of base line by line. Changes that overlap or
// touch conflict, as git's do, unless they are the same change. Binary
// content merges only when one side left it alone.
func merge3(base, ours, theirs []byte) ([]byte, bool) {
	if isBinary(base) || isBinary(ours) || isBinary(theirs) {
		return nil, false
	}
	a, b := hunks(string(base), string(ours)), hunks(string(base), string(theirs))
	lines := splitLines(string(base))
	var out strings.Builder
	pos, i, j := 0, 0, 0
	for i < len(a) || j < len(b) {
		var h hunk
		switch {
		case j == len(b) || (i < len(a) && a[i].end < b[j].start):
			h, i = a[i], i+1
		case i == len(a) || b[j].end < a[i].start:
			h, j = b[j], j+1
		case a[i].start == b[j].start && a[i].end == b[j].end && slices.Equal(a[i].lines, b[j].lines):
			h, i, j = a[i], i+1, j+1
		default:
			return nil, false
		}
		for ; pos < h.start; pos++ {
			out.WriteString(lines[pos])
		}
		for _, l := range h.lines {
			out.WriteString(l)
		}
		pos = h.end
	}
	for ; pos < len(lines); pos++ {
		out.WriteString(lines[pos])
	}
	return []byte(out.String()), true
}

// hunks is the line diff of a to b as changes of a's lines.
func hunks(a, b string) []hunk {
	var out []hunk
	pos := 0
	open := false
	for _, d := range diff.Do(a, b) {
		ls := splitLines(d.Text)
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			pos += len(ls)
			open = false
			continue
		}
		if !open {
			out = append(out, hunk{start: pos, end: pos})
			open = true
		}
		h := &out[len(out)-1]
		if d.Type == diffmatchpatch.DiffDelete {
			pos += len(ls)
			h.end = pos
		} else {
			h.lines = append(h.lines, ls...)
		}
	}
	return out
}

// splitLines splits s after each newline; the last line may lack one.
func splitLines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}
