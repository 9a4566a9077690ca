package github

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/wraithdev/wraith/twin/dialect"
)

// Some reads span the session's entities as GitHub's do: a repository
// counts its open issues and pull requests, an issue its comments, the
// issue list holds pull requests too (they share numbers), search finds
// any of them, and GET /user is the one user who owns what the session
// made. The engine keeps each entity; these reads compute from them
// (Call.Each) what the engine's own answer would leave at the skeleton's
// zero. A twin without these resources gets the engine's answers.

// entityHandler answers a read from the session's entities, or declines.
type entityHandler func(c *dialect.Call) (dialect.Answer, bool)

func entityRoute(route string) entityHandler {
	const r = "/repos/{owner}/{repo}"
	switch route {
	case "GET /user":
		return getUser
	case "GET /search/issues":
		return searchIssues
	case "GET /search/repositories":
		return searchRepos
	case "GET " + r:
		return getRepo
	case "GET " + r + "/issues":
		return listIssues
	case "GET " + r + "/issues/{issue_number}":
		return getIssue
	}
	return nil
}

// listCall is a gitCall for a read that needs no repository's git: its
// paging and Link header.
func listCall(c *dialect.Call) *gitCall { return &gitCall{Call: c, base: c.Here.Origin()} }

// sessionUser is Login as a simple-user, for an entity whose user the
// engine left null: the session's one user made it.
func sessionUser(base string) map[string]any {
	var u map[string]any
	_ = json.Unmarshal(User(base, Login).AppendJSON(nil), &u)
	return u
}

// getUser is the session's one user, Login, as GitHub's private-user.
func getUser(c *dialect.Call) (dialect.Answer, bool) {
	base := c.Here.Origin()
	u := User(base, Login)
	u.Set("user_view_type", "private")
	repos := 0
	c.Each("repository", func(body []byte) bool {
		var r struct{ Owner struct{ Login string } }
		if json.Unmarshal(body, &r) == nil && strings.EqualFold(r.Owner.Login, Login) {
			repos++
		}
		return true
	})
	for _, kv := range [...]struct {
		k string
		v any
	}{
		{"name", Login}, {"company", nil}, {"blog", ""}, {"location", nil},
		{"email", Login + "@users.noreply.github.com"}, {"notification_email", nil}, {"hireable", nil}, {"bio", nil}, {"twitter_username", nil},
		{"public_repos", repos}, {"public_gists", 0}, {"followers", 0}, {"following", 0},
		// The user is older than any session: a fixed date keeps the
		// answer the same in every session and run.
		{"created_at", "2008-01-14T04:33:35Z"}, {"updated_at", "2008-01-14T04:33:35Z"},
		{"private_gists", 0}, {"total_private_repos", 0}, {"owned_private_repos", 0},
		{"disk_usage", 0}, {"collaborators", 0}, {"two_factor_authentication", false},
	} {
		u.Set(kv.k, kv.v)
	}
	return dialect.Answer{Status: http.StatusOK, Body: u.AppendJSON(nil)}, true
}

// getRepo is the engine's repository with what it cannot compute: the
// URLs GitHub's answer carries, the owner as a user, and the open issues
// and pull requests counted.
func getRepo(c *dialect.Call) (dialect.Answer, bool) {
	body := c.Entity("repository")
	if body == nil {
		return dialect.Answer{}, false
	}
	m, err := decodeJSON(body)
	if err != nil || m == nil {
		return dialect.Answer{}, false
	}
	full, _ := m["full_name"].(string)
	open := 0
	eachItem(c, inRepo(full), func(it *item) bool {
		if strings.EqualFold(it.repo, full) && it.State == "open" {
			open++
		}
		return true
	})
	completeRepo(m, c.Here.Origin(), open)
	return answer(http.StatusOK, m), true
}

// completeRepo fills a repository's URL fields under base as GitHub's
// are under https://api.github.com, its owner and its counts.
func completeRepo(m map[string]any, base string, open int) {
	full, _ := m["full_name"].(string)
	owner, _, _ := strings.Cut(full, "/")
	api := base + "/repos/" + full
	host := strings.TrimPrefix(strings.TrimPrefix(base, "https://"), "http://")
	for k, v := range map[string]string{
		"archive_url": api + "/{archive_format}{/ref}", "assignees_url": api + "/assignees{/user}",
		"blobs_url": api + "/git/blobs{/sha}", "branches_url": api + "/branches{/branch}",
		"collaborators_url": api + "/collaborators{/collaborator}", "comments_url": api + "/comments{/number}",
		"commits_url": api + "/commits{/sha}", "compare_url": api + "/compare/{base}...{head}",
		"contents_url": api + "/contents/{+path}", "contributors_url": api + "/contributors",
		"deployments_url": api + "/deployments", "downloads_url": api + "/downloads", "events_url": api + "/events",
		"forks_url": api + "/forks", "git_commits_url": api + "/git/commits{/sha}", "git_refs_url": api + "/git/refs{/sha}",
		"git_tags_url": api + "/git/tags{/sha}", "hooks_url": api + "/hooks",
		"issue_comment_url": api + "/issues/comments{/number}", "issue_events_url": api + "/issues/events{/number}",
		"issues_url": api + "/issues{/number}", "keys_url": api + "/keys{/key_id}", "labels_url": api + "/labels{/name}",
		"languages_url": api + "/languages", "merges_url": api + "/merges", "milestones_url": api + "/milestones{/number}",
		"notifications_url": api + "/notifications{?since,all,participating}", "pulls_url": api + "/pulls{/number}",
		"releases_url": api + "/releases{/id}", "stargazers_url": api + "/stargazers", "statuses_url": api + "/statuses/{sha}",
		"subscribers_url": api + "/subscribers", "subscription_url": api + "/subscription", "tags_url": api + "/tags",
		"teams_url": api + "/teams", "trees_url": api + "/git/trees{/sha}",
		"clone_url": base + "/" + full + ".git", "svn_url": base + "/" + full,
		"git_url": "git://" + host + "/" + full + ".git", "ssh_url": "git@" + host + ":" + full + ".git",
	} {
		if s, _ := m[k].(string); s == "" {
			m[k] = v
		}
	}
	if s, _ := m["visibility"].(string); s == "" {
		m["visibility"] = "public"
		if p, _ := m["private"].(bool); p {
			m["visibility"] = "private"
		}
	}
	if s, _ := m["master_branch"].(string); s == "" {
		delete(m, "master_branch") // GitHub's answer has none; the skeleton's "" says nothing
	}
	if s, _ := m["temp_clone_token"].(string); s == "" {
		delete(m, "temp_clone_token")
	}
	if o, _ := m["owner"].(map[string]any); o != nil && owner != "" {
		var u map[string]any
		_ = json.Unmarshal(User(base, owner).AppendJSON(nil), &u)
		delete(u, "user_view_type")
		m["owner"] = u
	}
	m["open_issues_count"], m["open_issues"] = open, open
}

// span is the page of a list of n the request asks for, as start and end
// indexes, with GitHub's Link header to the next, last, previous and
// first pages.
func (g *gitCall) span(n int) (start, end int, link string) {
	perPage, page := g.page()
	start = min((page-1)*perPage, n)
	end = min(start+perPage, n)
	last := (n + perPage - 1) / perPage
	if last <= 1 && page <= 1 {
		return start, end, ""
	}
	q, _ := url.ParseQuery(g.Here.Query)
	at := func(rel string, p int) string {
		q.Set("page", strconv.Itoa(p))
		return "<" + g.Here.Origin() + g.Here.Path + "?" + q.Encode() + `>; rel="` + rel + `"`
	}
	var rels []string
	if page < last {
		rels = append(rels, at("next", page+1), at("last", last))
	}
	if page > 1 {
		rels = append(rels, at("prev", min(page-1, max(last, 1))), at("first", 1))
	}
	return start, end, strings.Join(rels, ", ")
}
