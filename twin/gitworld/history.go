package gitworld

import (
	"container/heap"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// History: the commits of a revision, and comparisons of two.

// LogQuery selects commits, as GitHub's list-commits parameters do.
type LogQuery struct {
	Rev   string // where to start: a sha, branch or tag; the default branch when empty
	Path  string // only commits that change this file or directory
	Since time.Time
	Until time.Time // Since and Until bound the committer date; zero is unbounded
	Skip  int       // commits passed over, for paging
	Limit int       // the most returned; 0 is 30, GitHub's page
}

// maxWalk bounds the commits one history walk visits.
const maxWalk = 100_000

// Log lists commits newest first, as git log orders them (by committer
// date, parents after children), and says whether more follow the page.
func (r *Repo) Log(q LogQuery) (commits []Commit, more bool, err error) {
	unlock, err := r.rlock()
	if err != nil {
		return nil, false, err
	}
	defer unlock()
	start, err := r.resolveCommit(q.Rev)
	if err != nil {
		return nil, false, err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 30
	}
	skip := q.Skip
	err = r.walk([]*object.Commit{start}, nil, func(c *object.Commit) (bool, error) {
		if !q.Since.IsZero() && c.Committer.When.Before(q.Since) {
			return true, nil
		}
		if !q.Until.IsZero() && c.Committer.When.After(q.Until) {
			return true, nil
		}
		if q.Path != "" {
			touches, err := r.touches(c, q.Path)
			if err != nil || !touches {
				return true, err
			}
		}
		if skip > 0 {
			skip--
			return true, nil
		}
		if len(commits) == limit {
			more = true
			return false, nil
		}
		commits = append(commits, toCommit(c))
		return true, nil
	})
	return commits, more, err
}

// touches says whether c changes path: its entry there differs from every
// parent's (git log's default simplification, without rewriting parents).
func (r *Repo) touches(c *object.Commit, path string) (bool, error) {
	mine, _, err := r.lookup(c.TreeHash, path)
	if err != nil {
		return false, err
	}
	if len(c.ParentHashes) == 0 {
		return !mine.Hash.IsZero(), nil
	}
	for _, p := range c.ParentHashes {
		pc, err := r.gitCommit(p)
		if err != nil {
			return false, err
		}
		theirs, _, err := r.lookup(pc.TreeHash, path)
		if err != nil {
			return false, err
		}
		if theirs.Hash == mine.Hash && theirs.Mode == mine.Mode {
			return false, nil
		}
	}
	return true, nil
}

// walk visits the commits reachable from starts and not from hidden,
// newest committer date first (ties in the order they were reached), until
// visit says stop.
func (r *Repo) walk(starts []*object.Commit, hidden map[plumbing.Hash]bool, visit func(*object.Commit) (bool, error)) error {
	q := &commitQueue{}
	seen := map[plumbing.Hash]bool{}
	for _, c := range starts {
		if !seen[c.Hash] && !hidden[c.Hash] {
			seen[c.Hash] = true
			q.add(c)
		}
	}
	for n := 0; q.Len() > 0; n++ {
		if n == maxWalk {
			return fmt.Errorf("gitworld: history of %s is longer than %d commits: %w", r.name, maxWalk, ErrInvalid)
		}
		c := heap.Pop(q).(queued).c
		more, err := visit(c)
		if err != nil || !more {
			return err
		}
		for _, p := range c.ParentHashes {
			if seen[p] || hidden[p] {
				continue
			}
			seen[p] = true
			pc, err := r.gitCommit(p)
			if err != nil {
				return err
			}
			q.add(pc)
		}
	}
	return nil
}

type queued struct {
	c   *object.Commit
	seq int
}

type commitQueue struct {
	items []queued
	seq   int
}

func (q *commitQueue) add(c *object.Commit) {
	q.seq++
	heap.Push(q, queued{c, q.seq})
}

func (q *commitQueue) Len() int { return len(q.items) }
func (q *commitQueue) Less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	if !a.c.Committer.When.Equal(b.c.Committer.When) {
		return a.c.Committer.When.After(b.c.Committer.When)
	}
	return a.seq < b.seq
}
func (q *commitQueue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *commitQueue) Push(x any)    { q.items = append(q.items, x.(queued)) }
func (q *commitQueue) Pop() any {
	x := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return x
}

// ancestors is every commit reachable from h, h included.
func (r *Repo) ancestors(h plumbing.Hash) (map[plumbing.Hash]bool, error) {
	seen := map[plumbing.Hash]bool{h: true}
	stack := []plumbing.Hash{h}
	for len(stack) > 0 {
		if len(seen) > maxWalk {
			return nil, fmt.Errorf("gitworld: history of %s is longer than %d commits: %w", r.name, maxWalk, ErrInvalid)
		}
		c, err := r.gitCommit(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
		if err != nil {
			return nil, err
		}
		for _, p := range c.ParentHashes {
			if !seen[p] {
				seen[p] = true
				stack = append(stack, p)
			}
		}
	}
	return seen, nil
}

// Comparison is base...head, as GitHub's compare gives it: head's changes
// since the merge base.
type Comparison struct {
	Status    string // "identical", "ahead", "behind" or "diverged"
	AheadBy   int    // commits in head and not in base
	BehindBy  int    // commits in base and not in head
	Base      Commit
	Head      Commit
	MergeBase Commit
	Commits   []Commit   // head's commits not in base, oldest first (at most maxCompareCommits)
	Files     []FileDiff // the merge base's tree against head's, by path
}

// maxCompareCommits is how many commits a comparison lists, as GitHub's 250.
const maxCompareCommits = 250

// Compare compares base...head (each a sha, branch or tag).
func (r *Repo) Compare(ctx context.Context, base, head string) (Comparison, error) {
	unlock, err := r.rlock()
	if err != nil {
		return Comparison{}, err
	}
	defer unlock()
	bc, err := r.resolveCommit(base)
	if err != nil {
		return Comparison{}, err
	}
	hc, err := r.resolveCommit(head)
	if err != nil {
		return Comparison{}, err
	}
	mb, err := r.mergeBase(bc, hc)
	if err != nil {
		return Comparison{}, err
	}
	cmp := Comparison{Base: toCommit(bc), Head: toCommit(hc), MergeBase: toCommit(mb)}
	inBase, err := r.ancestors(bc.Hash)
	if err != nil {
		return Comparison{}, err
	}
	inHead, err := r.ancestors(hc.Hash)
	if err != nil {
		return Comparison{}, err
	}
	for h := range inHead {
		if !inBase[h] {
			cmp.AheadBy++
		}
	}
	for h := range inBase {
		if !inHead[h] {
			cmp.BehindBy++
		}
	}
	switch {
	case cmp.AheadBy == 0 && cmp.BehindBy == 0:
		cmp.Status = "identical"
	case cmp.BehindBy == 0:
		cmp.Status = "ahead"
	case cmp.AheadBy == 0:
		cmp.Status = "behind"
	default:
		cmp.Status = "diverged"
	}
	err = r.walk([]*object.Commit{hc}, inBase, func(c *object.Commit) (bool, error) {
		cmp.Commits = append(cmp.Commits, toCommit(c))
		return len(cmp.Commits) < maxCompareCommits, nil
	})
	if err != nil {
		return Comparison{}, err
	}
	slices.Reverse(cmp.Commits)
	if cmp.Files, err = r.diffTrees(ctx, mb.TreeHash, hc.TreeHash); err != nil {
		return Comparison{}, err
	}
	return cmp, nil
}

// mergeBase is the best common ancestor of a and b; of several equally
// good ones, the first in go-git's order (newest committer date).
func (r *Repo) mergeBase(a, b *object.Commit) (*object.Commit, error) {
	bases, err := a.MergeBase(b)
	if err != nil {
		return nil, fmt.Errorf("gitworld: merge base of %s and %s: %w", a.Hash, b.Hash, err)
	}
	if len(bases) == 0 {
		return nil, fmt.Errorf("gitworld: %s and %s have no common ancestor: %w", a.Hash, b.Hash, ErrNotFound)
	}
	return bases[0], nil
}
