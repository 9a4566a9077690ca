package github

import (
	"errors"
	"hash/fnv"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/gitworld"
)

// Releases and tags are the repository's git: a release names a real tag
// (made at target_commitish when the repository lacks it), and the tags
// list is the repository's refs/tags. Releases are kept by the session's
// git world (gitworld.Release), so they fork, snapshot and digest with it.

// releaseID is a release's id: its repository's name hashed above its
// number, so that ids differ between repositories, as GitHub's do, and a
// release's id is the same in every session that made it.
func releaseID(full string, n int) int64 {
	h := fnv.New32a()
	h.Write([]byte(strings.ToLower(full)))
	return int64(h.Sum32())<<20 | int64(n&(1<<20-1))
}

// releaseNumber is the number of the release id names in the repository,
// 0 for an id of no release of it.
func releaseNumber(full, id string) int {
	v, err := strconv.ParseInt(id, 10, 64)
	if err != nil || v <= 0 {
		return 0
	}
	n := int(v & (1<<20 - 1))
	if releaseID(full, n) != v {
		return 0
	}
	return n
}

func (g *gitCall) releaseJSON(r gitworld.Release) map[string]any {
	id := releaseID(g.full, r.Number)
	self := g.api("/releases/" + strconv.FormatInt(id, 10))
	created := time.Unix(r.Created, 0).UTC().Format(time.RFC3339)
	var published any = created
	if r.Draft {
		published = nil
	}
	var name, body any = r.Name, r.Body
	if r.Name == "" {
		name = nil
	}
	if r.Body == "" {
		body = nil
	}
	htmlTag := g.html("/releases/tag/" + url.PathEscape(r.Tag))
	return map[string]any{
		"url": self, "html_url": htmlTag, "assets_url": self + "/assets",
		"upload_url":  g.base + "/repos/" + g.full + "/releases/" + strconv.FormatInt(id, 10) + "/assets{?name,label}",
		"tarball_url": g.api("/tarball/" + url.PathEscape(r.Tag)), "zipball_url": g.api("/zipball/" + url.PathEscape(r.Tag)),
		"id": id, "node_id": "RE_kwDO" + strconv.FormatInt(id, 10),
		"tag_name": r.Tag, "target_commitish": r.Target, "name": name, "body": body,
		"draft": r.Draft, "prerelease": r.Prerelease, "immutable": false,
		"created_at": created, "published_at": published, "updated_at": created,
		"author": User(g.base, orLogin(r.Author)), "assets": []any{},
	}
}

func orLogin(login string) string {
	if login == "" {
		return Login
	}
	return login
}

func createRelease(g *gitCall) dialect.Answer {
	tag := g.str("tag_name")
	if tag == "" {
		return validationFailedOf("Release", "tag_name", "missing_field")
	}
	draft, _ := g.Params["draft"].(bool)
	pre, _ := g.Params["prerelease"].(bool)
	rel, err := g.repo.CreateRelease(gitworld.Release{
		Tag: tag, Target: g.str("target_commitish"), Name: g.str("name"), Body: g.str("body"),
		Draft: draft, Prerelease: pre, Author: Login, Created: g.Now,
	})
	switch {
	case errors.Is(err, gitworld.ErrExists):
		return validationFailedOf("Release", "tag_name", "already_exists")
	case errors.Is(err, gitworld.ErrInvalid):
		if strings.Contains(err.Error(), "target_commitish") {
			return validationFailedOf("Release", "target_commitish", "invalid")
		}
		return validationFailedOf("Release", "tag_name", "invalid")
	case err != nil:
		return gitError(err)
	}
	return answer(http.StatusCreated, g.releaseJSON(rel))
}

func listReleases(g *gitCall) dialect.Answer {
	all, err := g.repo.Releases()
	if err != nil {
		return gitError(err)
	}
	start, end, link := g.span(len(all))
	out := make([]map[string]any, 0, end-start)
	for _, r := range all[start:end] {
		out = append(out, g.releaseJSON(r))
	}
	a := answer(http.StatusOK, out)
	a.Link = link
	return a
}

// releaseAnswer is r, or for a release the repository lacks the
// engine's own not-found (a zero Answer declines).
func releaseAnswer(g *gitCall, r gitworld.Release, err error) dialect.Answer {
	if errors.Is(err, gitworld.ErrNotFound) {
		return dialect.Answer{}
	}
	if err != nil {
		return gitError(err)
	}
	return answer(http.StatusOK, g.releaseJSON(r))
}

func getRelease(g *gitCall) dialect.Answer {
	n := releaseNumber(g.full, g.Path("release_id"))
	if n == 0 {
		return dialect.Answer{}
	}
	r, err := g.repo.Release(n)
	return releaseAnswer(g, r, err)
}

func getReleaseByTag(g *gitCall) dialect.Answer {
	r, err := g.repo.ReleaseByTag(g.Path("tag"))
	return releaseAnswer(g, r, err)
}

func latestRelease(g *gitCall) dialect.Answer {
	r, err := g.repo.LatestRelease()
	return releaseAnswer(g, r, err)
}

func deleteRelease(g *gitCall) dialect.Answer {
	n := releaseNumber(g.full, g.Path("release_id"))
	if n == 0 {
		return dialect.Answer{}
	}
	if err := g.repo.DeleteRelease(n); errors.Is(err, gitworld.ErrNotFound) {
		return dialect.Answer{}
	} else if err != nil {
		return gitError(err)
	}
	return dialect.Answer{Status: http.StatusNoContent}
}

// listTags is GET /repos/{o}/{r}/tags: refs/tags, each peeled to its
// commit, in name order as git lists them.
func listTags(g *gitCall) dialect.Answer {
	refs, err := g.repo.Refs("refs/tags/")
	if err != nil {
		return gitError(err)
	}
	start, end, link := g.span(len(refs))
	out := make([]map[string]any, 0, end-start)
	for _, r := range refs[start:end] {
		name := strings.TrimPrefix(r.Name, "refs/tags/")
		sha := r.SHA
		if cs, _, err := g.repo.Log(gitworld.LogQuery{Rev: r.Name, Limit: 1}); err == nil && len(cs) == 1 {
			sha = cs[0].SHA // an annotated tag's commit, as GitHub lists it
		}
		out = append(out, map[string]any{
			"name": name, "node_id": "REF_" + r.Name,
			"commit":      map[string]any{"sha": sha, "url": g.api("/commits/" + sha)},
			"zipball_url": g.api("/zipball/refs/tags/" + url.PathEscape(name)), "tarball_url": g.api("/tarball/refs/tags/" + url.PathEscape(name)),
		})
	}
	a := answer(http.StatusOK, out)
	a.Link = link
	return a
}

// validationFailedOf is GitHub's 422 for one field of resource.
func validationFailedOf(resource, field, code string) dialect.Answer {
	return answer(http.StatusUnprocessableEntity, map[string]any{
		"message": "Validation Failed", "documentation_url": "https://docs.github.com/rest",
		"errors": []map[string]string{{"resource": resource, "field": field, "code": code}},
	})
}
