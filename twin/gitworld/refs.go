package gitworld

import (
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// Ref is a reference: refs/heads/NAME, refs/tags/NAME and the like.
type Ref struct {
	Name string // the full name, "refs/heads/main"
	SHA  string
	Type string // the named object's type: "commit", or "tag" for an annotated tag
}

// maxRefs bounds the references of one repository.
const maxRefs = 10_000

// fullRefName accepts "refs/heads/x" or GitHub's "heads/x".
func fullRefName(name string) (plumbing.ReferenceName, error) {
	if !strings.HasPrefix(name, "refs/") {
		name = "refs/" + name
	}
	if !validRefName(name) {
		return "", fmt.Errorf("gitworld: %q is not a valid reference name: want refs/heads/NAME or refs/tags/NAME, without '..', spaces, '~^:?*[\\' or a trailing '.lock': %w", name, ErrInvalid)
	}
	return plumbing.ReferenceName(name), nil
}

// validRefName is git's check-ref-format for a full name under refs/.
func validRefName(name string) bool {
	if !strings.HasPrefix(name, "refs/") || strings.Count(name, "/") < 2 || len(name) > 1024 {
		return false
	}
	if strings.Contains(name, "..") || strings.Contains(name, "@{") || strings.Contains(name, "//") || strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".") {
		return false
	}
	for _, part := range strings.Split(name, "/") {
		if strings.HasPrefix(part, ".") || strings.HasSuffix(part, ".lock") || part == "@" {
			return false
		}
	}
	for _, c := range name {
		if c < 0x20 || c == 0x7f || strings.ContainsRune(" ~^:?*[\\", c) {
			return false
		}
	}
	return true
}

func (r *Repo) toRef(ref *plumbing.Reference) Ref {
	o, _ := r.st.get(ref.Hash())
	return Ref{Name: ref.Name().String(), SHA: ref.Hash().String(), Type: o.typ.String()}
}

// Ref returns the reference name ("refs/heads/main" or "heads/main").
func (r *Repo) Ref(name string) (Ref, error) {
	n, err := fullRefName(name)
	if err != nil {
		return Ref{}, err
	}
	unlock, err := r.rlock()
	if err != nil {
		return Ref{}, err
	}
	defer unlock()
	ref, err := r.st.Reference(n)
	if err != nil {
		return Ref{}, fmt.Errorf("gitworld: reference %s in %s: %w", n, r.name, ErrNotFound)
	}
	return r.toRef(ref), nil
}

// Refs lists the references whose full names start with prefix ("" for
// all, "refs/heads/", or GitHub's "heads/" and "tags/v1"), in name order.
func (r *Repo) Refs(prefix string) ([]Ref, error) {
	if prefix != "" && !strings.HasPrefix(prefix, "refs/") {
		prefix = "refs/" + prefix
	}
	unlock, err := r.rlock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	var out []Ref
	for _, ref := range r.st.sortedRefs() {
		if ref.Type() == plumbing.HashReference && strings.HasPrefix(ref.Name().String(), prefix) {
			out = append(out, r.toRef(ref))
		}
	}
	return out, nil
}

// CreateRef makes the reference name point at sha, an existing object.
func (r *Repo) CreateRef(name, sha string) (Ref, error) {
	n, err := fullRefName(name)
	if err != nil {
		return Ref{}, err
	}
	h, err := parseSHA(sha, "sha")
	if err != nil {
		return Ref{}, err
	}
	unlock, err := r.lock()
	if err != nil {
		return Ref{}, err
	}
	defer unlock()
	if _, err := r.st.Reference(n); err == nil {
		return Ref{}, fmt.Errorf("gitworld: reference %s in %s: %w", n, r.name, ErrExists)
	}
	if _, ok := r.st.get(h); !ok {
		return Ref{}, fmt.Errorf("gitworld: object %s in %s: %w", sha, r.name, ErrNotFound)
	}
	if n, _ := r.st.CountLooseRefs(); n >= maxRefs {
		return Ref{}, fmt.Errorf("gitworld: %s has %d references, the most one may hold: delete some: %w", r.name, n, ErrTooManyObjects)
	}
	ref := plumbing.NewHashReference(n, h)
	if err := r.st.SetReference(ref); err != nil {
		return Ref{}, err
	}
	return r.toRef(ref), nil
}

// UpdateRef points the existing reference name at sha. Unless force is
// set, the new commit must descend from the old one (ErrNotFastForward).
func (r *Repo) UpdateRef(name, sha string, force bool) (Ref, error) {
	n, err := fullRefName(name)
	if err != nil {
		return Ref{}, err
	}
	h, err := parseSHA(sha, "sha")
	if err != nil {
		return Ref{}, err
	}
	unlock, err := r.lock()
	if err != nil {
		return Ref{}, err
	}
	defer unlock()
	return r.updateRef(n, h, force)
}

func (r *Repo) updateRef(n plumbing.ReferenceName, h plumbing.Hash, force bool) (Ref, error) {
	old, err := r.st.Reference(n)
	if err != nil {
		return Ref{}, fmt.Errorf("gitworld: reference %s in %s: %w", n, r.name, ErrNotFound)
	}
	if _, ok := r.st.get(h); !ok {
		return Ref{}, fmt.Errorf("gitworld: object %s in %s: %w", h, r.name, ErrNotFound)
	}
	if !force && old.Hash() != h && !r.isAncestor(old.Hash(), h) {
		return Ref{}, fmt.Errorf("gitworld: %s from %s to %s: %w", n, old.Hash(), h, ErrNotFastForward)
	}
	ref := plumbing.NewHashReference(n, h)
	if err := r.st.SetReference(ref); err != nil {
		return Ref{}, err
	}
	return r.toRef(ref), nil
}

// DeleteRef removes the reference name.
func (r *Repo) DeleteRef(name string) error {
	n, err := fullRefName(name)
	if err != nil {
		return err
	}
	unlock, err := r.lock()
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := r.st.Reference(n); err != nil {
		return fmt.Errorf("gitworld: reference %s in %s: %w", n, r.name, ErrNotFound)
	}
	return r.st.RemoveReference(n)
}

// isAncestor says whether commit a is reachable from commit b (a == b
// included). A non-commit is nobody's ancestor.
func (r *Repo) isAncestor(a, b plumbing.Hash) bool {
	seen := map[plumbing.Hash]bool{}
	queue := []plumbing.Hash{b}
	for len(queue) > 0 {
		h := queue[0]
		queue = queue[1:]
		if h == a {
			return true
		}
		if seen[h] {
			continue
		}
		seen[h] = true
		c, err := r.gitCommit(h)
		if err != nil {
			continue
		}
		queue = append(queue, c.ParentHashes...)
	}
	return false
}
