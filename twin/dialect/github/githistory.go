package github

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/gitworld"
)

// History: /commits, /commits/{ref}, /compare/{base}...{head} and
// /branches.

// commitJSON is a commit as the commits API gives it. author and
// committer, GitHub's accounts, are null: the twin links no commit to
// an account.
func (g *gitCall) commitJSON(c gitworld.Commit) map[string]any {
	parents := make([]map[string]any, len(c.Parents))
	for i, p := range c.Parents {
		parents[i] = map[string]any{"sha": p, "url": g.api("/commits/" + p), "html_url": g.html("/commit/" + p)}
	}
	return map[string]any{
		"sha": c.SHA, "node_id": "C_" + c.SHA, "url": g.api("/commits/" + c.SHA), "html_url": g.html("/commit/" + c.SHA),
		"comments_url": g.api("/commits/" + c.SHA + "/comments"),
		"commit": map[string]any{
			"url": g.api("/git/commits/" + c.SHA), "author": sigJSON(c.Author), "committer": sigJSON(c.Committer),
			"message": strings.TrimSuffix(c.Message, "\n"), "tree": map[string]any{"sha": c.Tree, "url": g.api("/git/trees/" + c.Tree)},
			"comment_count": 0, "verification": unsigned(),
		},
		"author": nil, "committer": nil, "parents": parents,
	}
}

// maxPage is the highest page a list reads, as dialect.LinkPages caps it.
const maxPage = 1 << 20

// page reads per_page (at most 100, 30 by default) and page (from 1).
func (g *gitCall) page() (perPage, page int) {
	perPage, page = 30, 1
	if n, err := strconv.Atoi(g.str("per_page")); err == nil && n > 0 {
		perPage = min(n, 100)
	}
	if n, err := strconv.Atoi(g.str("page")); err == nil && n > 0 {
		page = min(n, maxPage) // (page-1)*perPage must not overflow
	}
	return perPage, page
}

// link is GitHub's Link header for page of a list with more after it.
func (g *gitCall) link(page int, more bool) string {
	q, _ := url.ParseQuery(g.Here.Query)
	at := func(n int) string {
		q.Set("page", strconv.Itoa(n))
		return g.Here.Origin() + g.Here.Path + "?" + q.Encode()
	}
	var rels []string
	if page > 1 {
		rels = append(rels, "<"+at(page-1)+`>; rel="prev"`, "<"+at(1)+`>; rel="first"`)
	}
	if more {
		rels = append(rels, "<"+at(page+1)+`>; rel="next"`)
	}
	return strings.Join(rels, ", ")
}

func listCommits(g *gitCall) dialect.Answer {
	perPage, page := g.page()
	q := gitworld.LogQuery{Rev: g.str("sha"), Path: g.str("path"), Skip: (page - 1) * perPage, Limit: perPage}
	for name, dst := range map[string]*time.Time{"since": &q.Since, "until": &q.Until} {
		if s := g.str(name); s != "" {
			t, err := parseTime(s)
			if err != nil {
				return message(http.StatusUnprocessableEntity, name+" "+strconv.Quote(s)+" is not an ISO 8601 timestamp: YYYY-MM-DDTHH:MM:SSZ")
			}
			*dst = t
		}
	}
	commits, more, err := g.repo.Log(q)
	if err != nil {
		return gitError(err)
	}
	out := make([]map[string]any, len(commits))
	for i, c := range commits {
		out[i] = g.commitJSON(c)
	}
	a := answer(http.StatusOK, out)
	a.Link = g.link(page, more)
	return a
}

func getCommit(g *gitCall) dialect.Answer {
	c, err := g.repo.Commit(g.Path("ref"))
	if err != nil {
		// A branch or tag names it, not a sha.
		cs, _, lerr := g.repo.Log(gitworld.LogQuery{Rev: g.Path("ref"), Limit: 1})
		if lerr != nil || len(cs) == 0 {
			return gitError(err)
		}
		c = cs[0]
	}
	out := g.commitJSON(c)
	files := []map[string]any{}
	adds, dels := 0, 0
	if len(c.Parents) > 0 {
		cmp, err := g.repo.Compare(g.Ctx, c.Parents[0], c.SHA)
		if err != nil {
			return gitError(err)
		}
		for _, f := range cmp.Files {
			files = append(files, g.fileJSON(f, c.SHA))
			adds, dels = adds+f.Additions, dels+f.Deletions
		}
	}
	out["files"] = files
	out["stats"] = map[string]any{"additions": adds, "deletions": dels, "total": adds + dels}
	return answer(http.StatusOK, out)
}

func (g *gitCall) fileJSON(f gitworld.FileDiff, at string) map[string]any {
	m := map[string]any{
		"sha": f.SHA, "filename": f.Filename, "status": f.Status, "additions": f.Additions, "deletions": f.Deletions,
		"changes": f.Changes, "blob_url": g.html("/blob/" + at + "/" + escapePath(f.Filename)),
		"raw_url": g.html("/raw/" + at + "/" + escapePath(f.Filename)), "contents_url": g.api("/contents/" + escapePath(f.Filename) + "?ref=" + at),
	}
	if f.Patch != "" {
		m["patch"] = f.Patch
	}
	if f.PreviousFilename != "" {
		m["previous_filename"] = f.PreviousFilename
	}
	return m
}

func compare(g *gitCall) dialect.Answer {
	basehead := g.Path("basehead")
	if basehead == "" { // the importer's one-segment route
		basehead = g.Path("base_head")
	}
	base, head, ok := strings.Cut(basehead, "...")
	if !ok || base == "" || head == "" {
		return message(http.StatusNotFound, "Not Found")
	}
	cmp, err := g.repo.Compare(g.Ctx, base, head)
	if err != nil {
		return gitError(err)
	}
	commits := make([]map[string]any, len(cmp.Commits))
	for i, c := range cmp.Commits {
		commits[i] = g.commitJSON(c)
	}
	files := make([]map[string]any, len(cmp.Files))
	for i, f := range cmp.Files {
		files[i] = g.fileJSON(f, cmp.Head.SHA)
	}
	return answer(http.StatusOK, map[string]any{
		"url": g.api("/compare/" + basehead), "html_url": g.html("/compare/" + basehead),
		"permalink_url": g.html("/compare/" + cmp.Base.SHA + "..." + cmp.Head.SHA),
		"diff_url":      g.html("/compare/" + basehead + ".diff"), "patch_url": g.html("/compare/" + basehead + ".patch"),
		"base_commit": g.commitJSON(cmp.Base), "merge_base_commit": g.commitJSON(cmp.MergeBase),
		"status": cmp.Status, "ahead_by": cmp.AheadBy, "behind_by": cmp.BehindBy, "total_commits": cmp.AheadBy,
		"commits": commits, "files": files,
	})
}

func listBranches(g *gitCall) dialect.Answer {
	refs, err := g.repo.Refs("refs/heads/")
	if err != nil {
		return gitError(err)
	}
	perPage, page := g.page()
	start := min((page-1)*perPage, len(refs))
	end := min(start+perPage, len(refs))
	out := make([]map[string]any, 0, end-start)
	for _, r := range refs[start:end] {
		name := strings.TrimPrefix(r.Name, "refs/heads/")
		out = append(out, map[string]any{
			"name": name, "commit": map[string]any{"sha": r.SHA, "url": g.api("/commits/" + r.SHA)},
			"protected": false, "protection_url": g.api("/branches/" + name + "/protection"),
		})
	}
	a := answer(http.StatusOK, out)
	a.Link = g.link(page, end < len(refs))
	return a
}

func getBranch(g *gitCall) dialect.Answer {
	name := g.Path("branch")
	r, err := g.repo.Ref("refs/heads/" + name)
	if err != nil {
		return message(http.StatusNotFound, "Branch not found")
	}
	c, err := g.repo.Commit(r.SHA)
	if err != nil {
		return gitError(err)
	}
	return answer(http.StatusOK, map[string]any{
		"name": name, "commit": g.commitJSON(c), "protected": false,
		"_links":         map[string]any{"self": g.api("/branches/" + name), "html": g.html("/tree/" + name)},
		"protection":     map[string]any{"enabled": false, "required_status_checks": map[string]any{"enforcement_level": "off", "contexts": []string{}, "checks": []string{}}},
		"protection_url": g.api("/branches/" + name + "/protection"),
	})
}
