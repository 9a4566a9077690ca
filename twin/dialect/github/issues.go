package github

import (
	"bytes"
	"cmp"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wraithdev/wraith/twin/dialect"
)

// Issues and pull requests share their repository's numbers (the
// resources' common counter), and GitHub's issue reads treat a pull
// request as an issue with a pull_request member: GET …/issues/{n} of a
// pull request's number answers it, the issue list holds both, and an
// issue's comments are counted from the session's comments.

// item is an issue or a pull request as the issue reads and search see it.
type item struct {
	Number    int    `json:"number"`
	Title     string `json:"title"`
	Body      string `json:"body"`
	State     string `json:"state"`
	URL       string `json:"url"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
	Merged    bool   `json:"merged"`
	User      *struct {
		Login string `json:"login"`
	} `json:"user"`
	Labels []struct {
		Name string `json:"name"`
	} `json:"labels"`
	Assignees []struct {
		Login string `json:"login"`
	} `json:"assignees"`

	pull bool   // a pull request
	repo string // "owner/name", from its url
	body []byte // the entity as the engine keeps it
}

// author is the item's user's login, the session's one user when the
// entity names none (the engine makes them with user null).
func (it *item) author() string {
	if it.User != nil && it.User.Login != "" {
		return it.User.Login
	}
	return Login
}

// repoOfURL is the "owner/name" of an issue's or pull request's API url,
// ".../repos/OWNER/NAME/issues/N": the two segments before the last two.
func repoOfURL(u string) string {
	parts := strings.Split(u, "/")
	if len(parts) < 4 {
		return ""
	}
	return parts[len(parts)-4] + "/" + parts[len(parts)-3]
}

// eachItem calls fn with each of the session's issues and pull requests,
// issues first, until fn returns false. Decoding a body is most of a
// read's cost, so a body for which maybe reports false (it cannot match:
// its bytes lack what the read asks for) is skipped undecoded; nil
// maybe decodes every body.
func eachItem(c *dialect.Call, maybe func(body []byte) bool, fn func(*item) bool) {
	more := true
	for _, res := range []string{"issue", "pull_request"} {
		if !more {
			return
		}
		c.Each(res, func(body []byte) bool {
			if maybe != nil && !maybe(body) {
				return true
			}
			it := &item{pull: res == "pull_request", body: body}
			if json.Unmarshal(body, it) != nil || it.Number == 0 {
				return true
			}
			it.repo = repoOfURL(it.URL)
			more = fn(it)
			return more
		})
	}
}

// commentCounts counts the session's issue comments by "owner/name#N",
// lower-cased.
func commentCounts(c *dialect.Call) map[string]int {
	out := map[string]int{}
	c.Each("issue_comment", func(body []byte) bool {
		if u := issueURL(body); u != "" {
			n := u[strings.LastIndexByte(u, '/')+1:]
			out[strings.ToLower(repoOfURL(u))+"#"+n]++
		}
		return true
	})
	return out
}

// issueURL is a comment's issue_url, read from its bytes without
// decoding the comment: the URL is the engine's computed one, of a host
// and names that JSON writes unescaped.
func issueURL(body []byte) string {
	const key = `"issue_url":"`
	i := bytes.Index(body, []byte(key))
	if i < 0 {
		return ""
	}
	rest := body[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 || bytes.IndexByte(rest[:j], '\\') >= 0 {
		return ""
	}
	return string(rest[:j])
}

// inRepo is eachItem's maybe for the items of the repository full: their
// url names it (names are letters, digits, '.', '-' and '_', which JSON
// writes as they are).
func inRepo(full string) func([]byte) bool {
	needle := []byte("/repos/" + full + "/")
	return func(body []byte) bool { return containsFold(body, needle) }
}

// containsFold reports whether b holds needle, ASCII letters compared
// without case. Each case of needle's first byte is looked for with
// bytes.IndexByte, so a body without it costs one fast scan.
func containsFold(b, needle []byte) bool {
	if len(needle) == 0 {
		return true
	}
	firsts := []byte{needle[0]}
	if c := needle[0] | 0x20; c >= 'a' && c <= 'z' {
		firsts = []byte{c, c &^ 0x20}
	}
	for _, f := range firsts {
		for rest := b; ; {
			i := bytes.IndexByte(rest, f)
			if i < 0 || len(rest)-i < len(needle) {
				break
			}
			if bytes.EqualFold(rest[i:i+len(needle)], needle) {
				return true
			}
			rest = rest[i+1:]
		}
	}
	return false
}

// issueJSON is it as GitHub's issue reads answer it: an issue as kept,
// a pull request as its issue, each with its comments counted and its
// user the session's identity where the entity names none.
func issueJSON(it *item, base string, comments map[string]int) map[string]any {
	m, _ := decodeJSON(it.body)
	if m == nil {
		m = map[string]any{}
	}
	if it.pull {
		pr := m
		issueURL, _ := pr["issue_url"].(string)
		m = map[string]any{}
		for _, k := range []string{"id", "node_id", "number", "title", "user", "labels", "state", "locked", "assignee", "assignees",
			"milestone", "created_at", "updated_at", "closed_at", "author_association", "active_lock_reason", "body", "draft", "html_url", "comments_url"} {
			m[k] = pr[k]
		}
		m["url"] = issueURL
		m["repository_url"] = base + "/repos/" + it.repo
		m["labels_url"] = issueURL + "/labels{/name}"
		m["events_url"] = issueURL + "/events"
		m["timeline_url"] = issueURL + "/timeline"
		m["state_reason"] = nil
		m["pull_request"] = map[string]any{
			"url": pr["url"], "html_url": pr["html_url"], "diff_url": pr["diff_url"], "patch_url": pr["patch_url"], "merged_at": pr["merged_at"],
		}
	}
	if url, _ := m["url"].(string); url != "" {
		if s, _ := m["labels_url"].(string); s == "" {
			m["labels_url"] = url + "/labels{/name}"
		}
		if s, _ := m["timeline_url"].(string); s == "" {
			m["timeline_url"] = url + "/timeline"
		}
	}
	m["comments"] = comments[strings.ToLower(it.repo)+"#"+strconv.Itoa(it.Number)]
	if noUser(m["user"]) {
		m["user"] = sessionUser(base)
	}
	return m
}

// getIssue answers an issue, or the pull request of that number as its
// issue.
func getIssue(c *dialect.Call) (dialect.Answer, bool) {
	full := c.Path("owner") + "/" + c.Path("repo")
	n, err := strconv.Atoi(c.Path("issue_number"))
	if err != nil {
		return dialect.Answer{}, false
	}
	var found *item
	eachItem(c, inRepo(full), func(it *item) bool {
		if it.Number == n && strings.EqualFold(it.repo, full) {
			found = it
			return false
		}
		return true
	})
	if found == nil {
		return dialect.Answer{}, false // the engine's not-found
	}
	return answer(http.StatusOK, issueJSON(found, c.Here.Origin(), commentCounts(c))), true
}

// listIssues is GitHub's issue list of a repository: issues and pull
// requests, by state (open unless asked), labels (each of them),
// creator and assignee, sorted by created, updated or comments.
func listIssues(c *dialect.Call) (dialect.Answer, bool) {
	if c.Entity("repository") == nil {
		// GitHub's not-found: the engine would list nothing under a
		// repository the session lacks, as if it were there and empty.
		return message(http.StatusNotFound, "Not Found"), true
	}
	g := listCall(c)
	full := c.Path("owner") + "/" + c.Path("repo")
	state := cmp.Or(g.str("state"), "open")
	var labels []string
	if s := g.str("labels"); s != "" {
		labels = strings.Split(s, ",")
	}
	creator, assignee := g.str("creator"), g.str("assignee")
	var since time.Time
	if s := g.str("since"); s != "" {
		t, err := parseTime(s)
		if err != nil {
			return validationFailedOf("Issue", "since", "invalid"), true
		}
		since = t
	}
	comments := commentCounts(c)
	var all []*item
	eachItem(c, inRepo(full), func(it *item) bool {
		switch {
		case !strings.EqualFold(it.repo, full),
			state != "all" && it.State != state,
			!hasLabels(it, labels),
			creator != "" && !strings.EqualFold(it.author(), creator),
			assignee != "" && !assigned(it, assignee),
			!since.IsZero() && updatedBefore(it, since):
			return true
		}
		all = append(all, it)
		return true
	})
	key := func(it *item) string { return it.CreatedAt }
	switch g.str("sort") {
	case "updated":
		key = func(it *item) string { return it.UpdatedAt }
	case "comments":
		key = func(it *item) string {
			return strconv.Itoa(1e9 + comments[strings.ToLower(it.repo)+"#"+strconv.Itoa(it.Number)])
		}
	}
	slices.SortStableFunc(all, func(a, b *item) int {
		return cmp.Or(cmp.Compare(key(a), key(b)), cmp.Compare(a.Number, b.Number))
	})
	if g.str("direction") != "asc" {
		slices.Reverse(all)
	}
	start, end, link := g.span(len(all))
	out := make([]map[string]any, 0, end-start)
	for _, it := range all[start:end] {
		out = append(out, issueJSON(it, c.Here.Origin(), comments))
	}
	a := answer(http.StatusOK, out)
	a.Link = link
	for _, p := range []string{"mentioned", "milestone", "type"} {
		if _, sent := c.Params[p]; sent {
			a.Ignored = append(a.Ignored, p) // not modelled: said, not silently dropped
		}
	}
	return a, true
}

// updatedBefore reports whether it was last updated before t.
func updatedBefore(it *item, t time.Time) bool {
	u, err := parseTime(it.UpdatedAt)
	return err == nil && u.Before(t)
}

func hasLabels(it *item, names []string) bool {
	for _, want := range names {
		if !slices.ContainsFunc(it.Labels, func(l struct {
			Name string `json:"name"`
		}) bool {
			return strings.EqualFold(l.Name, strings.TrimSpace(want))
		}) {
			return false
		}
	}
	return true
}

// assigned is GitHub's assignee filter: a login, "none" or "*".
func assigned(it *item, who string) bool {
	switch who {
	case "none":
		return len(it.Assignees) == 0
	case "*":
		return len(it.Assignees) > 0
	}
	for _, a := range it.Assignees {
		if strings.EqualFold(a.Login, who) {
			return true
		}
	}
	return false
}
