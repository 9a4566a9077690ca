package github

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestParseQuery: terms split at spaces and '+', quoted values and
// phrases taken whole, '-' negating, and a bounded number of terms.
func TestParseQuery(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want string
	}{
		{"", ""},
		{"bug", "=bug"},
		{"repo:o/r is:pr is:open", "repo=o/r is=pr is=open"},
		{"fix+repo:o/r", "=fix repo=o/r"},
		{`label:"help wanted" "null pointer"`, "label=help wanted =null pointer"},
		{"-label:bug -author:x", "!label=bug !author=x"},
		{"IS:PR a - b", "is=PR =a =- =b"},
		{"in:title crash", "in=title =crash"},
		{strings.Repeat("w ", 100), strings.TrimSpace(strings.Repeat("=w ", maxQueryTerms))},
	} {
		var have []string
		for _, term := range parseQuery(tc.q) {
			s := term.name + "=" + term.value
			if term.not {
				s = "!" + s
			}
			have = append(have, s)
		}
		if got := strings.Join(have, " "); got != tc.want {
			t.Errorf("parseQuery(%q): want %q, have %q", tc.q, tc.want, got)
		}
	}
}

// TestMatchIssue holds each qualifier to what GitHub's search finds.
func TestMatchIssue(t *testing.T) {
	issue := func(doc string, pull bool) *item {
		it := &item{pull: pull}
		if err := json.Unmarshal([]byte(doc), it); err != nil {
			t.Fatal(err)
		}
		it.repo = repoOfURL(it.URL)
		return it
	}
	bug := issue(`{"number":1,"title":"Crash on start","body":"a null pointer, debug it","state":"open",
		"url":"http://h/__s/x/repos/Octo/demo/issues/1","labels":[{"name":"bug"},{"name":"help wanted"}],"user":null}`, false)
	pr := issue(`{"number":2,"title":"Fix the crash","body":null,"state":"closed","merged":true,
		"url":"http://h/repos/octo/demo/pulls/2","labels":[],"user":{"login":"agent"},"assignees":[{"login":"rev"}]}`, true)
	for _, tc := range []struct {
		q         string
		bug, pull bool
	}{
		{"crash", true, true},
		{"Crash in:title", true, true},
		{"pointer in:title", false, false},
		{"pointer", true, false},
		{"bug", false, false}, // a label is no text, and "debug" is not the word "bug"
		{`"null pointer"`, true, false},
		{`"pointer null"`, false, false},
		{"is:pr", false, true},
		{"is:pull-request", false, true},
		{"type:issue", true, false},
		{"is:open", true, false},
		{"state:closed", false, true},
		{"is:merged", false, true},
		{"is:unmerged", false, false},
		{"repo:octo/demo", true, true},
		{"repo:OCTO/DEMO crash", true, true},
		{"repo:octo/other", false, false},
		{"user:octo", true, true},
		{"label:bug", true, false},
		{`label:"help wanted"`, true, false},
		{"label:bug,enhancement", true, false},
		{"-label:bug", false, true},
		{"no:label", false, true},
		{"author:wraith-user", true, false}, // an issue the engine made names no user: the session's own
		{"author:agent", false, true},
		{"assignee:rev", false, true},
		{"no:assignee", true, false},
		{"-is:pr crash", true, false},
	} {
		qu := newQuery(tc.q, func(n string) bool { return issueQualifiers[n] })
		if have := qu.matchIssue(bug); have != tc.bug {
			t.Errorf("%q on the issue: want %v, have %v", tc.q, tc.bug, have)
		}
		if have := qu.matchIssue(pr); have != tc.pull {
			t.Errorf("%q on the pull request: want %v, have %v", tc.q, tc.pull, have)
		}
	}
	if qu := newQuery("crash language:go created:>2020 language:c", func(n string) bool { return issueQualifiers[n] }); strings.Join(qu.ignored, ",") != "q:created,q:language" {
		t.Errorf("qualifiers the twin does not model: want q:created,q:language reported, have %v", qu.ignored)
	}
}

// TestReleaseID: an id names its release in its own repository only.
func TestReleaseID(t *testing.T) {
	id := releaseID("octo/demo", 3)
	s := jsonInt(id)
	if want, have := 3, releaseNumber("octo/demo", s); want != have {
		t.Errorf("number of %s in octo/demo: want %d, have %d", s, want, have)
	}
	if want, have := 3, releaseNumber("OCTO/Demo", s); want != have {
		t.Errorf("names ignore case: want %d, have %d", want, have)
	}
	for _, bad := range []struct{ repo, id string }{{"octo/other", s}, {"octo/demo", "3"}, {"octo/demo", "x"}, {"octo/demo", "-1"}} {
		if have := releaseNumber(bad.repo, bad.id); have != 0 {
			t.Errorf("release %s of %s: want none, have %d", bad.id, bad.repo, have)
		}
	}
}

func jsonInt(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestMaybe: the byte test a search skips bodies by never skips one that
// matches, and skips what lacks a repository or a plain word it asks for.
func TestMaybe(t *testing.T) {
	body := []byte(`{"title":"Crash on start","url":"http://h/repos/Octo/Demo_1/issues/1","body":"caf\u00e9 <b>"}`)
	for _, tc := range []struct {
		q    string
		want bool
	}{
		{"repo:octo/demo_1 crash", true},
		{"repo:octo/demo", false}, // a prefix of another name is no match
		{"repo:other/demo_1", false},
		{"CRASH start", true},
		{"boom", false},
		{"-boom", true},
		{"café", true}, // not a plain word: decoded and tested for real
		{"<b>", true},
		{"label:bug", true},
	} {
		qu := newQuery(tc.q, func(n string) bool { return issueQualifiers[n] })
		if have := qu.maybe(body); have != tc.want {
			t.Errorf("maybe %q: want %v, have %v", tc.q, tc.want, have)
		}
	}
	for _, tc := range []struct {
		b, needle string
		want      bool
	}{
		{"abc", "", true}, {"aBc", "bC", true}, {"a_b", "_B", true}, {"a-b", "_b", false},
		{"/x/y", "/Y", true}, {"ab", "abc", false}, {"1a", "1A", true},
	} {
		if have := containsFold([]byte(tc.b), []byte(tc.needle)); have != tc.want {
			t.Errorf("containsFold(%q, %q): want %v, have %v", tc.b, tc.needle, tc.want, have)
		}
	}
	if want, have := "http://h/repos/o/r/issues/3", issueURL([]byte(`{"id":1,"issue_url":"http://h/repos/o/r/issues/3","x":"y"}`)); want != have {
		t.Errorf("issueURL: want %s, have %s", want, have)
	}
}
