package github

import (
	"cmp"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/wraithdev/wraith/twin/dialect"
)

// Search over the session's issues, pull requests and repositories, with
// GitHub's common qualifiers. A query is terms separated by spaces, a
// quoted "phrase" one term; a qualifier is NAME:VALUE (a quoted value
// may hold spaces), and a leading '-' negates it. Every term must hold:
// qualifiers as below, free text as words found, ignoring case, in the
// fields in: names (title and body for issues, name and description for
// repositories). A qualifier GitHub has that the twin does not model
// (language:, created:, reactions: ...) is ignored and reported in
// X-Wraith-Ignored-Params as q:NAME, so the agent can tell.

// maxQueryTerms bounds a query as GitHub bounds one (it refuses more than
// five AND, OR or NOT operators; terms are cheaper here, but bounded).
const maxQueryTerms = 64

// term is one term of a query.
type term struct {
	name  string // the qualifier's name, lower-cased; "" for free text
	value string
	not   bool
}

// parseQuery splits q into terms.
func parseQuery(q string) []term {
	var out []term
	for len(out) < maxQueryTerms {
		q = strings.TrimLeft(q, " \t\n+")
		if q == "" {
			break
		}
		var t term
		if q[0] == '-' && len(q) > 1 && q[1] != ' ' {
			t.not, q = true, q[1:]
		}
		raw, rest := nextWord(q)
		q = rest
		if name, value, ok := strings.Cut(raw, ":"); ok && name != "" && !strings.HasPrefix(raw, `"`) {
			t.name, t.value = strings.ToLower(name), strings.Trim(value, `"`)
		} else {
			t.value = strings.Trim(raw, `"`)
		}
		if t.value != "" {
			out = append(out, t)
		}
	}
	return out
}

// nextWord is q's first word, a quoted part taken whole.
func nextWord(q string) (word, rest string) {
	quoted := false
	for i, r := range q {
		switch {
		case r == '"':
			quoted = !quoted
		case (r == ' ' || r == '\t' || r == '\n' || r == '+') && !quoted:
			return q[:i], q[i:]
		}
	}
	return q, ""
}

// query is a parsed search: its qualifiers' tests and its free text.
type query struct {
	terms   []term
	in      []string // the in: fields, empty for the default
	ignored []string
}

func newQuery(q string, known func(name string) bool) query {
	var qu query
	for _, t := range parseQuery(q) {
		switch {
		case t.name == "in":
			qu.in = append(qu.in, strings.Split(strings.ToLower(t.value), ",")...)
		case t.name == "" || known(t.name):
			qu.terms = append(qu.terms, t)
		default:
			if !slices.Contains(qu.ignored, "q:"+t.name) {
				qu.ignored = append(qu.ignored, "q:"+t.name)
			}
		}
	}
	slices.Sort(qu.ignored)
	return qu
}

// text reports whether phrase's words, in order, are words of one of
// fields, ignoring case: "bug" finds "a bug." but not "debug".
func text(phrase string, fields ...string) bool {
	want := words(phrase)
	if len(want) == 0 {
		return true
	}
	for _, f := range fields {
		have := words(f)
		for i := 0; i+len(want) <= len(have); i++ {
			if slices.Equal(have[i:i+len(want)], want) {
				return true
			}
		}
	}
	return false
}

// words is s lower-cased and cut at everything but letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// fields are the in: fields of qu, or def when it names none.
func (qu query) fields(def ...string) []string {
	if len(qu.in) > 0 {
		return qu.in
	}
	return def
}

// maybe reports whether an issue's or pull request's bytes may match
// qu: false when a term it must hold is a repository or a word of ASCII
// letters and digits (which JSON writes as they are) and the bytes lack
// it. It lets a search decode only the bodies that may match.
func (qu query) maybe(body []byte) bool {
	for _, t := range qu.terms {
		switch {
		case t.not:
		case t.name == "repo":
			if !containsFold(body, []byte("/repos/"+t.value+"/")) {
				return false
			}
		case t.name == "":
			for _, w := range strings.Fields(t.value) {
				if plainWord(w) && !containsFold(body, []byte(w)) {
					return false
				}
			}
		}
	}
	return true
}

// plainWord reports whether w is ASCII letters and digits only.
func plainWord(w string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i] | 0x20
		if !(c >= 'a' && c <= 'z') && !(w[i] >= '0' && w[i] <= '9') {
			return false
		}
	}
	return w != ""
}

// issueQualifiers are the qualifiers an issue search acts on.
var issueQualifiers = map[string]bool{"repo": true, "user": true, "org": true, "is": true, "type": true, "state": true,
	"label": true, "author": true, "assignee": true, "no": true}

// matchIssue reports whether it holds every term of qu.
func (qu query) matchIssue(it *item) bool {
	for _, t := range qu.terms {
		if qu.issueTerm(it, t) == t.not {
			return false
		}
	}
	return true
}

func (qu query) issueTerm(it *item, t term) bool {
	v := strings.ToLower(t.value)
	owner, _, _ := strings.Cut(it.repo, "/")
	switch t.name {
	case "":
		var fields []string
		for _, in := range qu.fields("title", "body") {
			switch in {
			case "title":
				fields = append(fields, it.Title)
			case "body":
				fields = append(fields, it.Body)
			}
		}
		return text(t.value, fields...)
	case "repo":
		return strings.EqualFold(it.repo, v)
	case "user", "org":
		return strings.EqualFold(owner, v)
	case "is", "type", "state":
		switch v {
		case "issue":
			return !it.pull
		case "pr", "pull-request":
			return it.pull
		case "open", "closed":
			return it.State == v
		case "merged":
			return it.pull && it.Merged
		case "unmerged":
			return it.pull && !it.Merged && it.State == "closed"
		}
		return false
	case "label":
		for _, name := range strings.Split(t.value, ",") { // label:a,b is either
			if hasLabels(it, []string{name}) {
				return true
			}
		}
		return false
	case "author":
		return strings.EqualFold(it.author(), v)
	case "assignee":
		return assigned(it, v)
	case "no":
		switch v {
		case "label":
			return len(it.Labels) == 0
		case "assignee":
			return len(it.Assignees) == 0
		}
	}
	return false
}

// searchAnswer is GitHub's search answer of items, paged, with the
// qualifiers the twin ignored named.
func searchAnswer(g *gitCall, items []map[string]any, extra map[string]any, ignored []string) dialect.Answer {
	start, end, link := g.span(len(items))
	out := map[string]any{"total_count": len(items), "incomplete_results": false, "items": items[start:end]}
	for k, v := range extra {
		out[k] = v
	}
	a := answer(http.StatusOK, out)
	a.Link = link
	a.Ignored = ignored
	return a
}

// missingQuery is GitHub's 422 for a search without q.
func missingQuery() dialect.Answer {
	return answer(http.StatusUnprocessableEntity, map[string]any{
		"message": "Validation Failed", "documentation_url": "https://docs.github.com/v3/search",
		"errors": []map[string]string{{"resource": "Search", "field": "q", "code": "missing"}},
	})
}

// searchIssues is GET /search/issues over the session's issues and pull
// requests: newest first (sort=created, updated or comments and order
// asc change that), each with a score of 1.
func searchIssues(c *dialect.Call) (dialect.Answer, bool) {
	g := listCall(c)
	q := g.str("q")
	if strings.TrimSpace(q) == "" {
		return missingQuery(), true
	}
	qu := newQuery(q, func(n string) bool { return issueQualifiers[n] })
	comments := commentCounts(c)
	var found []*item
	eachItem(c, qu.maybe, func(it *item) bool {
		if qu.matchIssue(it) {
			found = append(found, it)
		}
		return true
	})
	count := func(it *item) int { return comments[strings.ToLower(it.repo)+"#"+strconv.Itoa(it.Number)] }
	slices.SortStableFunc(found, func(a, b *item) int {
		switch g.str("sort") {
		case "updated":
			return cmp.Or(cmp.Compare(a.UpdatedAt, b.UpdatedAt), cmp.Compare(a.Number, b.Number))
		case "comments":
			return cmp.Or(cmp.Compare(count(a), count(b)), cmp.Compare(a.Number, b.Number))
		}
		return cmp.Or(cmp.Compare(a.CreatedAt, b.CreatedAt), cmp.Compare(a.Number, b.Number), cmp.Compare(a.repo, b.repo))
	})
	if g.str("order") != "asc" {
		slices.Reverse(found)
	}
	items := make([]map[string]any, len(found))
	for i, it := range found {
		m := issueJSON(it, c.Here.Origin(), comments)
		m["score"] = 1.0
		items[i] = m
	}
	return searchAnswer(g, items, map[string]any{"search_type": "lexical"}, qu.ignored), true
}

// repoQualifiers are the qualifiers a repository search acts on.
var repoQualifiers = map[string]bool{"repo": true, "user": true, "org": true, "is": true, "fork": true}

// searchRepos is GET /search/repositories over the session's
// repositories, by name and description, newest first.
func searchRepos(c *dialect.Call) (dialect.Answer, bool) {
	g := listCall(c)
	q := g.str("q")
	if strings.TrimSpace(q) == "" {
		return missingQuery(), true
	}
	qu := newQuery(q, func(n string) bool { return repoQualifiers[n] })
	open := map[string]int{}
	eachItem(c, nil, func(it *item) bool {
		if it.State == "open" {
			open[strings.ToLower(it.repo)]++
		}
		return true
	})
	items := []map[string]any{}
	c.Each("repository", func(body []byte) bool {
		m, err := decodeJSON(body)
		if err != nil || m == nil {
			return true
		}
		if qu.matchRepo(m) {
			full, _ := m["full_name"].(string)
			completeRepo(m, c.Here.Origin(), open[strings.ToLower(full)])
			m["score"] = 1.0
			items = append(items, m)
		}
		return true
	})
	return searchAnswer(g, items, nil, qu.ignored), true
}

func (qu query) matchRepo(m map[string]any) bool {
	full, _ := m["full_name"].(string)
	name, _ := m["name"].(string)
	desc, _ := m["description"].(string)
	private, _ := m["private"].(bool)
	fork, _ := m["fork"].(bool)
	owner, _, _ := strings.Cut(full, "/")
	for _, t := range qu.terms {
		v := strings.ToLower(t.value)
		var ok bool
		switch t.name {
		case "":
			var fields []string
			for _, in := range qu.fields("name", "description") {
				switch in {
				case "name":
					fields = append(fields, name)
				case "description":
					fields = append(fields, desc)
				}
			}
			ok = text(t.value, fields...)
		case "repo":
			ok = strings.EqualFold(full, v)
		case "user", "org":
			ok = strings.EqualFold(owner, v)
		case "is":
			ok = (v == "public" && !private) || (v == "private" && private)
		case "fork":
			ok = v == "true" || (v == "only" && fork)
		}
		if ok == t.not {
			return false
		}
	}
	return true
}
