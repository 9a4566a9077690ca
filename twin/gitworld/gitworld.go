// Package gitworld is one session's git repositories: real git objects
// (blobs, trees, commits, annotated tags) and references, held in memory,
// behind the operations GitHub's REST API offers on them (git data,
// contents, commits, compare, merge) and behind git's smart HTTP protocol
// (clone, fetch, push), so that an agent's REST calls and its git see one
// world.
//
// Everything is deterministic: a commit's author and committer, their
// times included, come from the caller (the session's identity and clock),
// never from the machine, so two sessions doing the same steps make the
// same shas, and Snapshot writes the same bytes.
//
// A World is used by one session, but a session's requests may run at
// once: every method is safe for concurrent use. Reads share the World's
// lock and writes hold it alone; a fetch's pack is written while holding
// nothing but each store's own leaf lock, so a slow client does not stall
// the session.
//
// Fork makes an independent World that shares the objects held so far:
// objects are immutable and named by their content, so sharing them is
// safe; references are copied. Size counts only the objects a World holds
// on its own, which is what a fork costs.
package gitworld

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// Errors. Each error a method returns wraps one of these (test with
// errors.Is) and says in its message what was wrong; the REST layer maps
// them to the provider's statuses, as noted.
var (
	// ErrNotFound: no such repository, object, reference or path (404).
	ErrNotFound = errors.New("not found")
	// ErrExists: a repository or reference of that name exists (422).
	ErrExists = errors.New("already exists")
	// ErrInvalid: an argument is malformed: a sha, a path, a mode (422).
	ErrInvalid = errors.New("invalid")
	// ErrEmpty: the repository has no commits yet (409 "Git Repository is empty.").
	ErrEmpty = errors.New("git repository is empty")
	// ErrNotFastForward: a reference update without force whose new commit
	// does not descend from the old one (422 "Update is not a fast forward").
	ErrNotFastForward = errors.New("update is not a fast forward")
	// ErrStaleSHA: a contents update or delete named a blob sha that is not
	// the file's current one (409 "... does not match ...").
	ErrStaleSHA = errors.New("sha does not match")
	// ErrSHARequired: a contents write to a path that exists without the
	// file's current sha (422 "\"sha\" wasn't supplied.").
	ErrSHARequired = errors.New(`"sha" wasn't supplied`)
	// ErrConflict: a merge whose changes overlap (409 "Merge conflict").
	ErrConflict = errors.New("merge conflict")
	// ErrNothingToMerge: head is already contained in base (204 for the
	// merges API; the pull request layer decides its own answer).
	ErrNothingToMerge = errors.New("nothing to merge")
	// ErrBlobTooLarge: an object larger than Limits.MaxBlobBytes (422 or 413).
	ErrBlobTooLarge = errors.New("object too large")
	// ErrTooManyObjects: the World holds Limits.MaxObjects objects (507-like;
	// the server answers it as its session limit).
	ErrTooManyObjects = errors.New("too many objects")
)

// Limits bound what a World holds. Zero fields take DefaultLimits' value.
type Limits struct {
	// MaxBlobBytes is the largest object, in bytes (GitHub refuses files
	// over 100 MB).
	MaxBlobBytes int64
	// MaxObjects is the most objects a World may hold across its
	// repositories, shared ones included.
	MaxObjects int
	// MaxPushBytes is the largest request body a push or fetch may send.
	MaxPushBytes int64
}

// DefaultLimits are the limits of a World made with zero Limits.
func DefaultLimits() Limits {
	return Limits{MaxBlobBytes: 10 << 20, MaxObjects: 100_000, MaxPushBytes: 64 << 20}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxBlobBytes <= 0 {
		l.MaxBlobBytes = d.MaxBlobBytes
	}
	if l.MaxObjects <= 0 {
		l.MaxObjects = d.MaxObjects
	}
	if l.MaxPushBytes <= 0 {
		l.MaxPushBytes = d.MaxPushBytes
	}
	return l
}

// Signature is who made a commit or tag, and when: the session's identity
// and clock. Times are kept to the second, in When's zone, as git does.
type Signature struct {
	Name  string
	Email string
	When  time.Time
}

// World is one session's repositories. The zero value is not usable; make
// one with New, Fork or Restore.
type World struct {
	mu     sync.RWMutex
	limits Limits
	repos  map[string]*Repo // by lower-case "owner/name": GitHub's names ignore case
	// objects counts the objects of every repository, shared ones
	// included: what MaxObjects bounds. Every store is written under the
	// write lock, so the count is too.
	objects int
}

// New returns an empty World with the given limits.
func New(l Limits) *World {
	return &World{limits: l.withDefaults(), repos: map[string]*Repo{}}
}

// Limits returns the World's limits.
func (w *World) Limits() Limits { return w.limits }

// admit is the World's budget, asked before any new object is stored,
// which it counts. It runs under the World's write lock.
func (w *World) admit(o obj) error {
	if int64(len(o.data)) > w.limits.MaxBlobBytes {
		return fmt.Errorf("gitworld: a %s of %d bytes is over the limit of %d bytes: %w", o.typ, len(o.data), w.limits.MaxBlobBytes, ErrBlobTooLarge)
	}
	if w.objects >= w.limits.MaxObjects {
		return fmt.Errorf("gitworld: the session holds %d git objects, its limit: delete a repository or reset the session: %w", w.objects, ErrTooManyObjects)
	}
	w.objects++
	return nil
}

// Size is the bytes held by the World's own objects, those it does not
// share with a World it was forked from or forked into.
func (w *World) Size() int64 {
	w.mu.RLock()
	defer w.mu.RUnlock()
	var n int64
	for _, r := range w.repos {
		r.st.mu.RLock()
		n += r.st.bytes
		r.st.mu.RUnlock()
	}
	return n
}

// Fork returns an independent World holding the same repositories. The
// two share the objects held so far and nothing else: a write on either
// side is invisible to the other.
func (w *World) Fork() *World {
	w.mu.Lock()
	defer w.mu.Unlock()
	f := &World{limits: w.limits, repos: make(map[string]*Repo, len(w.repos)), objects: w.objects}
	for k, r := range w.repos {
		f.repos[k] = &Repo{w: f, name: r.name, defaultBranch: r.defaultBranch, releases: slices.Clone(r.releases), st: r.st.fork(f.admit)}
	}
	return f
}

// RepoOptions say how CreateRepo makes a repository.
type RepoOptions struct {
	// DefaultBranch is the branch HEAD names; "main" when empty.
	DefaultBranch string
	// AutoInit makes an initial commit on the default branch holding a
	// README.md of "# name", as GitHub's auto_init does.
	AutoInit bool
	// Author and Committer of the initial commit; Committer defaults to
	// Author.
	Author, Committer Signature
}

// repoName is what GitHub allows in an owner or repository name.
var repoName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)

func splitName(full string) (owner, name string, err error) {
	owner, name, ok := strings.Cut(full, "/")
	if !ok || !repoName.MatchString(owner) || !repoName.MatchString(name) || dots(owner) || dots(name) || strings.HasSuffix(name, ".git") {
		return "", "", fmt.Errorf("gitworld: %q is not a repository name: want OWNER/NAME of letters, digits, '.', '-' and '_', without .git: %w", full, ErrInvalid)
	}
	return owner, name, nil
}

func dots(s string) bool { return s == "." || s == ".." }

// CreateRepo makes the repository full ("owner/name").
func (w *World) CreateRepo(full string, opt RepoOptions) (*Repo, error) {
	_, name, err := splitName(full)
	if err != nil {
		return nil, err
	}
	branch := opt.DefaultBranch
	if branch == "" {
		branch = "main"
	}
	if !plumbing.NewBranchReferenceName(branch).IsBranch() || !validRefName("refs/heads/"+branch) {
		return nil, fmt.Errorf("gitworld: %q is not a branch name: %w", branch, ErrInvalid)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	key := lowerName(full)
	if _, ok := w.repos[key]; ok {
		return nil, fmt.Errorf("gitworld: repository %s: %w", full, ErrExists)
	}
	r := &Repo{w: w, name: full, defaultBranch: branch, st: newStore(w.admit)}
	r.st.refs[plumbing.HEAD] = plumbing.NewSymbolicReference(plumbing.HEAD, plumbing.NewBranchReferenceName(branch))
	if opt.AutoInit {
		committer := opt.Committer
		if committer == (Signature{}) {
			committer = opt.Author
		}
		if err := r.autoInit(name, opt.Author, committer); err != nil {
			w.objects -= r.st.count() // the repository is not made: nor are its objects
			return nil, err
		}
	}
	w.repos[key] = r
	return r, nil
}

// Repo returns the repository full, ignoring case as GitHub does.
func (w *World) Repo(full string) (*Repo, error) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	r, ok := w.repos[lowerName(full)]
	if !ok {
		return nil, fmt.Errorf("gitworld: repository %s: %w", full, ErrNotFound)
	}
	return r, nil
}

// DeleteRepo removes the repository full and frees its own objects.
func (w *World) DeleteRepo(full string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	key := lowerName(full)
	r, ok := w.repos[key]
	if !ok {
		return fmt.Errorf("gitworld: repository %s: %w", full, ErrNotFound)
	}
	w.objects -= r.st.count()
	delete(w.repos, key)
	return nil
}

// Repos lists the repositories' names, in order.
func (w *World) Repos() []string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	out := make([]string, 0, len(w.repos))
	for _, k := range slices.Sorted(maps.Keys(w.repos)) {
		out = append(out, w.repos[k].name)
	}
	return out
}

// Repo is one repository of a World. Its methods lock the World; a Repo
// whose repository was deleted answers ErrNotFound.
type Repo struct {
	w             *World
	name          string
	defaultBranch string    // guarded by w.mu
	releases      []Release // guarded by w.mu; oldest first
	st            *store
}

// Name is the repository's "owner/name" as created.
func (r *Repo) Name() string { return r.name }

// DefaultBranch is the branch HEAD names.
func (r *Repo) DefaultBranch() string {
	r.w.mu.RLock()
	defer r.w.mu.RUnlock()
	return r.defaultBranch
}

// SetDefaultBranch points HEAD at branch, which must exist unless the
// repository is empty.
func (r *Repo) SetDefaultBranch(branch string) error {
	unlock, err := r.lock()
	if err != nil {
		return err
	}
	defer unlock()
	name := plumbing.NewBranchReferenceName(branch)
	if !validRefName(name.String()) {
		return fmt.Errorf("gitworld: %q is not a branch name: %w", branch, ErrInvalid)
	}
	if _, err := r.st.Reference(name); err != nil && r.hasBranches() {
		return fmt.Errorf("gitworld: branch %s: %w", branch, ErrNotFound)
	}
	r.defaultBranch = branch
	return r.st.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, name))
}

// lock takes the World's write lock, checking r still belongs to it.
func (r *Repo) lock() (func(), error) {
	r.w.mu.Lock()
	if r.w.repos[lowerName(r.name)] != r {
		r.w.mu.Unlock()
		return nil, fmt.Errorf("gitworld: repository %s: %w", r.name, ErrNotFound)
	}
	return r.w.mu.Unlock, nil
}

// rlock takes the World's read lock, checking r still belongs to it.
func (r *Repo) rlock() (func(), error) {
	r.w.mu.RLock()
	if r.w.repos[lowerName(r.name)] != r {
		r.w.mu.RUnlock()
		return nil, fmt.Errorf("gitworld: repository %s: %w", r.name, ErrNotFound)
	}
	return r.w.mu.RUnlock, nil
}

// lowerName is a repository's key: GitHub's owner and repository names
// ignore case.
func lowerName(full string) string { return strings.ToLower(full) }
