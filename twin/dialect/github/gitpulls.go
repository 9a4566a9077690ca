package github

import (
	"cmp"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/gitworld"
)

// Pull requests stay the engine's entities; their git is the session's
// world: a create is refused when a branch it names is not there, files
// and commits are the comparison of base and head, and a merge makes its
// commit on base.

// pullSides reads a pull request's base and head branches from its
// entity, nil when the session holds none.
func (g *gitCall) pullSides() (base, head string, merged, ok bool) {
	body := g.Entity("pull_request")
	if body == nil {
		return "", "", false, false
	}
	var pr struct {
		Merged bool
		Base   struct{ Ref string }
		Head   struct{ Ref string }
	}
	if json.Unmarshal(body, &pr) != nil || pr.Base.Ref == "" || pr.Head.Ref == "" {
		return "", "", false, false
	}
	return pr.Base.Ref, branchOf(pr.Head.Ref), pr.Merged, true
}

// branchOf is a head as GitHub takes it, "branch" or "owner:branch".
func branchOf(head string) string {
	if _, b, ok := strings.Cut(head, ":"); ok {
		return b
	}
	return head
}

// createPull refuses a pull request whose branches the repository does
// not have, as GitHub does; otherwise it declines, and the engine makes
// the pull request.
func createPull(g *gitCall) (dialect.Answer, bool) {
	for _, field := range []string{"base", "head"} {
		name := branchOf(g.str(field))
		if name == "" {
			continue // the request's validation names a missing field
		}
		if _, err := g.repo.Ref("refs/heads/" + name); err != nil {
			return answer(http.StatusUnprocessableEntity, map[string]any{
				"message": "Validation Failed", "documentation_url": "https://docs.github.com/rest/pulls/pulls#create-a-pull-request",
				"errors": []map[string]string{{"resource": "PullRequest", "field": field, "code": "invalid"}},
			}), true
		}
	}
	return dialect.Answer{}, false
}

func pullFiles(g *gitCall) (dialect.Answer, bool) {
	base, head, _, ok := g.pullSides()
	if !ok {
		return dialect.Answer{}, false
	}
	cmp, err := g.repo.Compare(g.Ctx, base, head)
	if err != nil {
		return gitError(err), true
	}
	perPage, page := g.page()
	start := min((page-1)*perPage, len(cmp.Files))
	end := min(start+perPage, len(cmp.Files))
	out := make([]map[string]any, 0, end-start)
	for _, f := range cmp.Files[start:end] {
		out = append(out, g.fileJSON(f, cmp.Head.SHA))
	}
	a := answer(http.StatusOK, out)
	a.Link = g.link(page, end < len(cmp.Files))
	return a, true
}

func pullCommits(g *gitCall) (dialect.Answer, bool) {
	base, head, _, ok := g.pullSides()
	if !ok {
		return dialect.Answer{}, false
	}
	cmp, err := g.repo.Compare(g.Ctx, base, head)
	if err != nil {
		return gitError(err), true
	}
	out := make([]map[string]any, len(cmp.Commits))
	for i, c := range cmp.Commits {
		out[i] = g.commitJSON(c)
	}
	return answer(http.StatusOK, out), true
}

// checkMerge refuses a merge GitHub refuses: of a pull request merged
// already, or whose branches conflict (405); otherwise it declines, the
// engine marks the pull request merged, and mergePull makes the commit.
func checkMerge(g *gitCall) (dialect.Answer, bool) {
	base, head, merged, ok := g.pullSides()
	if !ok {
		return dialect.Answer{}, false
	}
	if merged {
		return message(http.StatusMethodNotAllowed, "Pull Request is not mergeable"), true
	}
	check, err := g.repo.Mergeable(base, head)
	if err != nil {
		return gitError(err), true
	}
	if !check.Clean {
		return message(http.StatusMethodNotAllowed, "Merge conflict"), true
	}
	switch m := g.str("merge_method"); m {
	case "", "merge", "squash", "rebase":
	default:
		return validationFailed("merge_method", "invalid"), true
	}
	return dialect.Answer{}, false
}

// mergePull merges the pull request's head into its base in git, once
// the engine has marked it merged, and puts the commit's sha in the
// answer.
func mergePull(c *dialect.Call, body []byte) []byte {
	w := World(c.Attachment)
	if w == nil {
		return nil
	}
	repo, err := w.Repo(c.Path("owner") + "/" + c.Path("repo"))
	if err != nil {
		return nil
	}
	g := &gitCall{Call: c, repo: repo, base: c.Here.Origin(), full: repo.Name()}
	if p, err := decodeJSON(c.Body); err == nil {
		g.Params = p
	}
	base, head, _, ok := g.pullSides()
	if !ok {
		return nil
	}
	method := gitworld.MergeMethod(g.str("merge_method"))
	if method == "" {
		method = gitworld.MergeCommit
	}
	var pr struct {
		Number int
		Title  string
	}
	_ = json.Unmarshal(body, &pr)
	msg := g.str("commit_title")
	if msg == "" {
		msg = pr.Title
		if method == gitworld.MergeCommit {
			msg = "Merge pull request from " + head
		}
	}
	if m := g.str("commit_message"); m != "" {
		msg += "\n\n" + m
	}
	who := identity(c.Now)
	commit, err := repo.Merge(gitworld.MergeRequest{Base: base, Head: head, Method: method, Message: msg, Author: who, Committer: who})
	if err != nil && !errors.Is(err, gitworld.ErrNothingToMerge) {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(body, &m) != nil {
		return nil
	}
	m["sha"] = commit.SHA
	if _, ok := m["merge_commit_sha"]; ok {
		m["merge_commit_sha"] = commit.SHA
	}
	// The pull request's merge commit, kept where GitHub keeps a pull
	// request's commits, refs/pull/N/...: a later read of the pull
	// request names it, and it forks and snapshots with the world.
	if commit.SHA != "" && pr.Number > 0 {
		_, _ = repo.CreateRef("refs/pull/"+strconv.Itoa(pr.Number)+"/merge", commit.SHA)
	}
	out, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	return out
}

func decodeJSON(b []byte) (map[string]any, error) {
	var m map[string]any
	if len(b) == 0 {
		return nil, nil
	}
	err := json.Unmarshal(b, &m)
	return m, err
}

// getPull is the engine's pull request with what its git says: whether
// it merges (mergeable, mergeable_state clean or dirty; unknown once
// merged, as GitHub answers), its commits, additions, deletions and
// changed files from the comparison of base and head, and once merged
// its merge commit and who merged it.
func getPull(g *gitCall) (dialect.Answer, bool) {
	base, head, merged, ok := g.pullSides()
	if !ok {
		return dialect.Answer{}, false
	}
	m, err := decodeJSON(g.Entity("pull_request"))
	if err != nil || m == nil {
		return dialect.Answer{}, false
	}
	n := g.Path("pull_number")
	g.completePull(m, g.repoJSON())
	if merged {
		m["mergeable"], m["rebaseable"], m["mergeable_state"] = nil, nil, "unknown"
		if ref, err := g.repo.Ref("refs/pull/" + n + "/merge"); err == nil {
			m["merge_commit_sha"] = ref.SHA
		}
		if noUser(m["merged_by"]) {
			m["merged_by"] = sessionUser(g.base)
		}
		return answer(http.StatusOK, m), true
	}
	check, err := g.repo.Mergeable(base, head)
	if err != nil {
		return dialect.Answer{}, false // a branch deleted since: the entity as kept
	}
	m["mergeable"], m["rebaseable"] = check.Clean, check.Clean
	m["mergeable_state"] = "clean"
	if !check.Clean {
		m["mergeable_state"] = "dirty"
	}
	if cmp, err := g.repo.Compare(g.Ctx, base, head); err == nil {
		adds, dels := 0, 0
		for _, f := range cmp.Files {
			adds += f.Additions
			dels += f.Deletions
		}
		m["commits"], m["additions"], m["deletions"], m["changed_files"] = cmp.AheadBy, adds, dels, len(cmp.Files)
	}
	return answer(http.StatusOK, m), true
}

// completePull fills what the engine's pull request cannot know, as
// GitHub's answers carry it: its user (the session's one user where the
// entity names none) and its two sides, each with its label
// ("owner:branch"), the branch's current sha, its user and its
// repository. repo is the repository entity, URLs completed; a side whose
// branch git no longer has keeps the sha it was kept with.
func (g *gitCall) completePull(m map[string]any, repo map[string]any) {
	if noUser(m["user"]) {
		m["user"] = sessionUser(g.base)
	}
	owner, _, _ := strings.Cut(g.full, "/")
	for _, k := range []string{"base", "head"} {
		side, _ := m[k].(map[string]any)
		if side == nil {
			continue
		}
		ref, _ := side["ref"].(string)
		branch := branchOf(ref)
		side["ref"] = branch
		side["label"] = owner + ":" + branch
		if r, err := g.repo.Ref("refs/heads/" + branch); err == nil {
			side["sha"] = r.SHA
		}
		if noUser(side["user"]) {
			side["user"] = sessionUser(g.base)
		}
		if repo != nil {
			side["repo"] = repo
		}
	}
}

// repoJSON is the pull requests' repository as their sides carry it.
func (g *gitCall) repoJSON() map[string]any {
	m, err := decodeJSON(g.Entity("repository"))
	if err != nil || m == nil {
		return nil
	}
	completeRepo(m, g.base, 0)
	return m
}

// listPulls is GitHub's pull request list of a repository: by state
// (open unless asked), head ("owner:branch" or a branch) and base,
// sorted by created (the default), updated or popularity (comments),
// newest first unless direction=asc; each as a read of it, its sides'
// shas their branches' current ones. sort=long-running is said ignored.
func listPulls(g *gitCall) (dialect.Answer, bool) {
	state := cmp.Or(g.str("state"), "open")
	head, base := g.str("head"), g.str("base")
	type pull struct {
		m                map[string]any
		number           int
		created, updated string
	}
	var all []pull
	g.Each("pull_request", func(body []byte) bool {
		var pr struct {
			Number    int    `json:"number"`
			URL       string `json:"url"`
			State     string `json:"state"`
			CreatedAt string `json:"created_at"`
			UpdatedAt string `json:"updated_at"`
			Base      struct{ Ref string }
			Head      struct{ Ref string }
		}
		if json.Unmarshal(body, &pr) != nil || !strings.EqualFold(repoOfURL(pr.URL), g.full) {
			return true
		}
		switch {
		case state != "all" && pr.State != state,
			head != "" && branchOf(head) != branchOf(pr.Head.Ref),
			base != "" && base != pr.Base.Ref:
			return true
		}
		if m, err := decodeJSON(body); err == nil && m != nil {
			all = append(all, pull{m: m, number: pr.Number, created: pr.CreatedAt, updated: pr.UpdatedAt})
		}
		return true
	})
	var ignored []string
	key := func(p pull) string { return p.created }
	switch g.str("sort") {
	case "", "created":
	case "updated":
		key = func(p pull) string { return p.updated }
	case "popularity":
		comments := commentCounts(g.Call)
		key = func(p pull) string {
			return strconv.Itoa(1e9 + comments[strings.ToLower(g.full)+"#"+strconv.Itoa(p.number)])
		}
	default:
		ignored = append(ignored, "sort")
	}
	slices.SortStableFunc(all, func(a, b pull) int {
		return cmp.Or(cmp.Compare(key(a), key(b)), cmp.Compare(a.number, b.number))
	})
	if g.str("direction") != "asc" {
		slices.Reverse(all)
	}
	repo := g.repoJSON()
	start, end, link := g.span(len(all))
	out := make([]map[string]any, 0, end-start)
	for _, p := range all[start:end] {
		g.completePull(p.m, repo)
		out = append(out, p.m)
	}
	a := answer(http.StatusOK, out)
	a.Link, a.Ignored = link, ignored
	return a, true
}
