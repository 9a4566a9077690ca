package gitworld

import (
	"errors"
	"fmt"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
)

// A release is GitHub's, not git's: a tag's name with a title and notes.
// It is kept with its repository, so that it forks, snapshots and is
// deleted with the tag it names, and its tag is a real one: creating a
// release of a tag the repository lacks makes the tag at the release's
// target, as GitHub does.

// Release is one release of a repository.
type Release struct {
	// Number is the release's place in its repository, from 1: the REST
	// layer derives the release's id from it.
	Number int
	// Tag is the tag's name, "v1.0.0"; Target the branch or sha the tag
	// was made at when the release made it, as sent (target_commitish).
	Tag, Target string
	Name, Body  string
	Draft       bool
	Prerelease  bool
	// Author is the login that made the release; Created its time, in
	// unix seconds, from the session's clock.
	Author  string
	Created int64
}

// maxReleases bounds the releases of one repository.
const maxReleases = 1_000

// CreateRelease keeps rel as the repository's newest release, numbering
// it. The tag rel names is made at rel.Target (the default branch when
// empty) unless the repository has it; a tag that names no commit, or a
// target that is none, is ErrInvalid; a second release of one tag is
// ErrExists.
func (r *Repo) CreateRelease(rel Release) (Release, error) {
	if rel.Tag == "" || !validRefName("refs/tags/"+rel.Tag) {
		return Release{}, fmt.Errorf("gitworld: %q is not a tag name: %w", rel.Tag, ErrInvalid)
	}
	unlock, err := r.lock()
	if err != nil {
		return Release{}, err
	}
	defer unlock()
	if len(r.releases) >= maxReleases {
		return Release{}, fmt.Errorf("gitworld: %s has %d releases, the most one may hold: delete some: %w", r.name, len(r.releases), ErrTooManyObjects)
	}
	for _, have := range r.releases {
		if have.Tag == rel.Tag {
			return Release{}, fmt.Errorf("gitworld: %s has a release of tag %s: %w", r.name, rel.Tag, ErrExists)
		}
	}
	name := plumbing.NewTagReferenceName(rel.Tag)
	if _, err := r.st.Reference(name); err != nil {
		target := rel.Target
		if target == "" {
			target = r.defaultBranch
		}
		c, err := r.resolveCommit(target)
		if err != nil {
			return Release{}, fmt.Errorf("gitworld: the release's target_commitish %q: %w", target, errorKind(err))
		}
		if err := r.st.SetReference(plumbing.NewHashReference(name, c.Hash)); err != nil {
			return Release{}, err
		}
	}
	if rel.Target == "" {
		rel.Target = r.defaultBranch
	}
	rel.Number = len(r.releases) + 1
	if n := len(r.releases); n > 0 {
		rel.Number = r.releases[n-1].Number + 1
	}
	r.releases = append(r.releases, rel)
	return rel, nil
}

// errorKind keeps a lookup's emptiness and turns its not-found into
// ErrInvalid: a release's target that names nothing is the request's
// fault, not a missing resource.
func errorKind(err error) error {
	if errors.Is(err, ErrEmpty) {
		return ErrEmpty
	}
	return ErrInvalid
}

// Releases lists the repository's releases, newest first.
func (r *Repo) Releases() ([]Release, error) {
	unlock, err := r.rlock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	out := slices.Clone(r.releases)
	slices.Reverse(out)
	return out, nil
}

// Release returns the release numbered n.
func (r *Repo) Release(n int) (Release, error) {
	unlock, err := r.rlock()
	if err != nil {
		return Release{}, err
	}
	defer unlock()
	for _, rel := range r.releases {
		if rel.Number == n {
			return rel, nil
		}
	}
	return Release{}, fmt.Errorf("gitworld: release %d of %s: %w", n, r.name, ErrNotFound)
}

// ReleaseByTag returns the release of tag.
func (r *Repo) ReleaseByTag(tag string) (Release, error) {
	unlock, err := r.rlock()
	if err != nil {
		return Release{}, err
	}
	defer unlock()
	for _, rel := range r.releases {
		if rel.Tag == tag {
			return rel, nil
		}
	}
	return Release{}, fmt.Errorf("gitworld: release of tag %s in %s: %w", tag, r.name, ErrNotFound)
}

// LatestRelease is GitHub's latest release: the newest that is neither a
// draft nor a prerelease.
func (r *Repo) LatestRelease() (Release, error) {
	unlock, err := r.rlock()
	if err != nil {
		return Release{}, err
	}
	defer unlock()
	for i := len(r.releases) - 1; i >= 0; i-- {
		if rel := r.releases[i]; !rel.Draft && !rel.Prerelease {
			return rel, nil
		}
	}
	return Release{}, fmt.Errorf("gitworld: %s has no published release: %w", r.name, ErrNotFound)
}

// DeleteRelease removes the release numbered n; its tag stays, as on
// GitHub.
func (r *Repo) DeleteRelease(n int) error {
	unlock, err := r.lock()
	if err != nil {
		return err
	}
	defer unlock()
	i := slices.IndexFunc(r.releases, func(rel Release) bool { return rel.Number == n })
	if i < 0 {
		return fmt.Errorf("gitworld: release %d of %s: %w", n, r.name, ErrNotFound)
	}
	r.releases = slices.Delete(slices.Clone(r.releases), i, i+1)
	return nil
}
