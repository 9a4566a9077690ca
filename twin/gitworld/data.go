package gitworld

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// The git data API: blobs, trees, commits and annotated tags, read and
// written by sha, as GitHub's /git/* endpoints are.

// Commit is a commit object.
type Commit struct {
	SHA       string
	Tree      string
	Parents   []string
	Message   string
	Author    Signature
	Committer Signature
}

// NewCommit is what WriteCommit makes a commit of.
type NewCommit struct {
	Tree      string
	Parents   []string
	Message   string
	Author    Signature
	Committer Signature // defaults to Author
}

// Tag is an annotated tag object.
type Tag struct {
	SHA     string
	Name    string
	Message string
	Object  string // the tagged object's sha
	Type    string // the tagged object's type: "commit", "tree", "blob" or "tag"
	Tagger  Signature
}

// NewTag is what WriteTag makes a tag of.
type NewTag struct {
	Name    string
	Message string
	Object  string
	Tagger  Signature
}

// parseSHA reads a full 40-digit sha.
func parseSHA(s, what string) (plumbing.Hash, error) {
	if len(s) != 40 {
		return plumbing.ZeroHash, fmt.Errorf("gitworld: %s %q is not a sha: want 40 hexadecimal digits: %w", what, s, ErrInvalid)
	}
	var h plumbing.Hash
	if _, err := hex.Decode(h[:], []byte(strings.ToLower(s))); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("gitworld: %s %q is not a sha: want 40 hexadecimal digits: %w", what, s, ErrInvalid)
	}
	return h, nil
}

// WriteBlob stores data as a blob and returns its sha.
func (r *Repo) WriteBlob(data []byte) (string, error) {
	unlock, err := r.lock()
	if err != nil {
		return "", err
	}
	defer unlock()
	h, err := r.st.put(obj{typ: plumbing.BlobObject, data: data})
	return h.String(), err
}

// Blob returns the content of the blob sha. The bytes are shared: do not
// change them.
func (r *Repo) Blob(sha string) ([]byte, error) {
	h, err := parseSHA(sha, "blob")
	if err != nil {
		return nil, err
	}
	unlock, err := r.rlock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	o, ok := r.st.get(h)
	if !ok || o.typ != plumbing.BlobObject {
		return nil, fmt.Errorf("gitworld: blob %s in %s: %w", sha, r.name, ErrNotFound)
	}
	return o.data, nil
}

// WriteCommit stores a commit of an existing tree and existing parents.
func (r *Repo) WriteCommit(c NewCommit) (Commit, error) {
	unlock, err := r.lock()
	if err != nil {
		return Commit{}, err
	}
	defer unlock()
	tree, err := parseSHA(c.Tree, "tree")
	if err != nil {
		return Commit{}, err
	}
	if o, ok := r.st.get(tree); !ok || o.typ != plumbing.TreeObject {
		return Commit{}, fmt.Errorf("gitworld: tree %s in %s: %w", c.Tree, r.name, ErrNotFound)
	}
	parents := make([]plumbing.Hash, len(c.Parents))
	for i, p := range c.Parents {
		if parents[i], err = parseSHA(p, "parent"); err != nil {
			return Commit{}, err
		}
		if o, ok := r.st.get(parents[i]); !ok || o.typ != plumbing.CommitObject {
			return Commit{}, fmt.Errorf("gitworld: parent commit %s in %s: %w", p, r.name, ErrNotFound)
		}
	}
	committer := c.Committer
	if committer == (Signature{}) {
		committer = c.Author
	}
	h, err := r.writeCommit(tree, parents, c.Message, c.Author, committer)
	if err != nil {
		return Commit{}, err
	}
	return r.commit(h)
}

func (r *Repo) writeCommit(tree plumbing.Hash, parents []plumbing.Hash, msg string, author, committer Signature) (plumbing.Hash, error) {
	c := &object.Commit{
		Author:       gitSig(author),
		Committer:    gitSig(committer),
		Message:      msg,
		TreeHash:     tree,
		ParentHashes: parents,
	}
	o := &plumbing.MemoryObject{}
	if err := c.Encode(o); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("gitworld: encoding a commit: %w", err)
	}
	return r.st.SetEncodedObject(o)
}

func gitSig(s Signature) object.Signature {
	return object.Signature{Name: s.Name, Email: s.Email, When: s.When.Truncate(0)}
}

func fromGitSig(s object.Signature) Signature {
	return Signature{Name: s.Name, Email: s.Email, When: s.When}
}

// Commit returns the commit sha.
func (r *Repo) Commit(sha string) (Commit, error) {
	h, err := parseSHA(sha, "commit")
	if err != nil {
		return Commit{}, err
	}
	unlock, err := r.rlock()
	if err != nil {
		return Commit{}, err
	}
	defer unlock()
	return r.commit(h)
}

func (r *Repo) commit(h plumbing.Hash) (Commit, error) {
	c, err := r.gitCommit(h)
	if err != nil {
		return Commit{}, err
	}
	return toCommit(c), nil
}

func (r *Repo) gitCommit(h plumbing.Hash) (*object.Commit, error) {
	c, err := object.GetCommit(r.st, h)
	if err != nil {
		return nil, fmt.Errorf("gitworld: commit %s in %s: %w", h, r.name, ErrNotFound)
	}
	return c, nil
}

func toCommit(c *object.Commit) Commit {
	out := Commit{
		SHA:       c.Hash.String(),
		Tree:      c.TreeHash.String(),
		Message:   c.Message,
		Author:    fromGitSig(c.Author),
		Committer: fromGitSig(c.Committer),
		Parents:   make([]string, len(c.ParentHashes)),
	}
	for i, p := range c.ParentHashes {
		out.Parents[i] = p.String()
	}
	return out
}

// WriteTag stores an annotated tag of an existing object. It makes no
// reference: create refs/tags/NAME with CreateRef, as GitHub's API asks.
func (r *Repo) WriteTag(t NewTag) (Tag, error) {
	unlock, err := r.lock()
	if err != nil {
		return Tag{}, err
	}
	defer unlock()
	target, err := parseSHA(t.Object, "object")
	if err != nil {
		return Tag{}, err
	}
	o, ok := r.st.get(target)
	if !ok {
		return Tag{}, fmt.Errorf("gitworld: object %s in %s: %w", t.Object, r.name, ErrNotFound)
	}
	if t.Name == "" || !validRefName("refs/tags/"+t.Name) {
		return Tag{}, fmt.Errorf("gitworld: %q is not a tag name: %w", t.Name, ErrInvalid)
	}
	msg := t.Message
	if !strings.HasSuffix(msg, "\n") {
		msg += "\n" // git's own tags end their message with a newline
	}
	tag := &object.Tag{Name: t.Name, Tagger: gitSig(t.Tagger), Message: msg, TargetType: o.typ, Target: target}
	mo := &plumbing.MemoryObject{}
	if err := tag.Encode(mo); err != nil {
		return Tag{}, fmt.Errorf("gitworld: encoding a tag: %w", err)
	}
	h, err := r.st.SetEncodedObject(mo)
	if err != nil {
		return Tag{}, err
	}
	return r.tag(h)
}

// Tag returns the annotated tag sha.
func (r *Repo) Tag(sha string) (Tag, error) {
	h, err := parseSHA(sha, "tag")
	if err != nil {
		return Tag{}, err
	}
	unlock, err := r.rlock()
	if err != nil {
		return Tag{}, err
	}
	defer unlock()
	return r.tag(h)
}

func (r *Repo) tag(h plumbing.Hash) (Tag, error) {
	t, err := object.GetTag(r.st, h)
	if err != nil {
		return Tag{}, fmt.Errorf("gitworld: tag %s in %s: %w", h, r.name, ErrNotFound)
	}
	return Tag{SHA: h.String(), Name: t.Name, Message: t.Message, Object: t.Target.String(), Type: t.TargetType.String(), Tagger: fromGitSig(t.Tagger)}, nil
}

// resolve turns a revision into an object: a full sha, a full reference
// name, or a branch or tag name (branches first, as git does).
func (r *Repo) resolve(rev string) (plumbing.Hash, error) {
	if h, err := parseSHA(rev, "revision"); err == nil {
		if _, ok := r.st.get(h); ok {
			return h, nil
		}
	}
	for _, n := range []string{rev, "refs/heads/" + rev, "refs/tags/" + rev} {
		if ref, err := r.st.Reference(plumbing.ReferenceName(n)); err == nil {
			if ref.Type() == plumbing.SymbolicReference {
				if ref, err = r.st.Reference(ref.Target()); err != nil {
					continue
				}
			}
			return ref.Hash(), nil
		}
	}
	if !r.hasBranches() {
		return plumbing.ZeroHash, fmt.Errorf("gitworld: %s: %w", r.name, ErrEmpty)
	}
	return plumbing.ZeroHash, fmt.Errorf("gitworld: no commit, branch or tag %q in %s: %w", rev, r.name, ErrNotFound)
}

// resolveCommit resolves rev and peels annotated tags to their commit.
func (r *Repo) resolveCommit(rev string) (*object.Commit, error) {
	if rev == "" {
		rev = r.defaultBranch
	}
	h, err := r.resolve(rev)
	if err != nil {
		return nil, err
	}
	for range 16 { // tags of tags, bounded
		o, _ := r.st.get(h)
		switch o.typ {
		case plumbing.CommitObject:
			return r.gitCommit(h)
		case plumbing.TagObject:
			t, err := object.GetTag(r.st, h)
			if err != nil {
				return nil, fmt.Errorf("gitworld: tag %s: %w", h, ErrNotFound)
			}
			h = t.Target
		default:
			return nil, fmt.Errorf("gitworld: %q in %s names a %s, not a commit: %w", rev, r.name, o.typ, ErrInvalid)
		}
	}
	return nil, fmt.Errorf("gitworld: %q in %s: tags nested too deep: %w", rev, r.name, ErrInvalid)
}

// autoInit makes GitHub's initial commit: README.md holding "# name".
func (r *Repo) autoInit(name string, author, committer Signature) error {
	blob, err := r.st.put(obj{typ: plumbing.BlobObject, data: []byte("# " + name)})
	if err != nil {
		return err
	}
	tree, err := r.encodeTree([]object.TreeEntry{{Name: "README.md", Mode: 0o100644, Hash: blob}})
	if err != nil {
		return err
	}
	c, err := r.writeCommit(tree, nil, "Initial commit", author, committer)
	if err != nil {
		return err
	}
	return r.st.SetReference(plumbing.NewHashReference(plumbing.NewBranchReferenceName(r.defaultBranch), c))
}
