package github

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	gh "github.com/google/go-github/v84/github"

	"github.com/wraithdev/wraith/twin/object"
)

// repoLabels is a LabelFinder over one repository's labels, making the
// ones it lacks as the engine's member entities do, and counting what it
// was asked.
type repoLabels struct {
	have  map[string]*object.Object
	asked []string
	next  int64
}

func (r *repoLabels) find(name string) *object.Object {
	r.asked = append(r.asked, name)
	if l, ok := r.have[name]; ok {
		return l
	}
	r.next++
	l, _ := object.Parse([]byte(`{"id":0,"node_id":"","url":"","name":"","color":"ededed","default":false,"description":null}`))
	l.Set("id", json.Number(strconv.FormatInt(r.next, 10)))
	l.Set("name", name)
	r.have[name] = l
	return l
}

func mustObject(tb testing.TB, s string) *object.Object {
	tb.Helper()
	o, err := object.Parse([]byte(s))
	if err != nil {
		tb.Fatal(err)
	}
	return o
}

func TestNamed(t *testing.T) {
	bug := mustObject(t, `{"id":7,"node_id":"LA_kwDO7","url":"http://h/repos/o/r/labels/bug","name":"bug","color":"f00","default":false,"description":"a bug"}`)
	tests := []struct {
		name, issue string
		labels      []string // names of the labels answered, in order
		asked       []string // the names looked up
		assignees   []string
		assignee    string
	}{
		{"names become the repository's labels, made where missing",
			`{"labels":["bug","new",{"name":"x"},"bug"],"assignees":["ada","ada","lin"],"assignee":"bob"}`,
			[]string{"bug", "new", "x"}, []string{"bug", "new", "x"}, []string{"ada", "lin"}, "bob"},
		{"objects already there stay, unasked",
			`{"labels":[{"id":7,"name":"bug","color":"f00"}],"assignees":[{"login":"ada","id":1,"type":"User"}],"assignee":null}`,
			[]string{"bug"}, nil, []string{"ada"}, ""},
		{"nothing sent", `{"labels":[],"assignees":[],"assignee":null}`, nil, nil, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &repoLabels{have: map[string]*object.Object{"bug": bug}, next: 100}
			o := mustObject(t, tt.issue)
			Named(o, r.find, "http://127.0.0.1:1/__s/a")
			b, _ := o.MarshalJSON()
			// The answer decodes as go-github decodes GitHub's.
			var is gh.Issue
			if err := json.Unmarshal(b, &is); err != nil {
				t.Fatalf("go-github cannot decode the issue: %v\n%s", err, b)
			}
			var labels, assignees []string
			for _, l := range is.Labels {
				labels = append(labels, l.GetName())
				if l.GetID() == 0 {
					t.Errorf("label %q: want an id, have none", l.GetName())
				}
			}
			for _, u := range is.Assignees {
				assignees = append(assignees, u.GetLogin())
				if u.GetID() == 0 || u.GetType() != "User" {
					t.Errorf("assignee %q: want a user with an id, have %+v", u.GetLogin(), u)
				}
			}
			if !same(labels, tt.labels) || !same(r.asked, tt.asked) || !same(assignees, tt.assignees) {
				t.Errorf("want labels %q (asked %q), assignees %q; have %q (asked %q), %q", tt.labels, tt.asked, tt.assignees, labels, r.asked, assignees)
			}
			if have := is.GetAssignee().GetLogin(); have != tt.assignee {
				t.Errorf("assignee: want %q, have %q", tt.assignee, have)
			}
			if tt.labels != nil && is.Labels[0].GetColor() != "f00" {
				t.Errorf("an existing label: want the repository's (color f00), have %+v", is.Labels[0])
			}
		})
	}
}

func TestUser(t *testing.T) {
	a, b := User("http://h", "ada"), User("http://h", "ada")
	ja, _ := a.MarshalJSON()
	jb, _ := b.MarshalJSON()
	if string(ja) != string(jb) {
		t.Errorf("want the same user for the same login, have\n%s\n%s", ja, jb)
	}
	if id, other := a.String("node_id"), User("http://h", "lin").String("node_id"); id == other {
		t.Errorf("want different ids for different logins, have %s twice", id)
	}
	var u gh.User
	if err := json.Unmarshal(ja, &u); err != nil {
		t.Fatal(err)
	}
	if u.GetURL() != "http://h/users/ada" || u.GetHTMLURL() != "http://h/ada" || u.GetLogin() != "ada" {
		t.Errorf("want ada's URLs under the twin's base, have %+v", u)
	}
}

func same(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// namer is the interface the engine asserts a dialect for the hook, as
// the engine would declare it: it names no type of this package.
type namer interface {
	Named(o *object.Object, member func(field, name string) *object.Object, base string)
}

func TestDialectNamed(t *testing.T) {
	var d any = New()
	n, ok := d.(namer)
	if !ok {
		t.Fatal("want the github dialect to implement Named(o, label, base), have it not")
	}
	tests := []struct {
		name   string
		member func(field, name string) *object.Object
		want   string // the labels answered
	}{
		{"no members", nil, `["bug"]`},
		{"no labels member", func(string, string) *object.Object { return nil }, `["bug"]`},
		{"the labels member", func(field, name string) *object.Object {
			if field != "labels" {
				t.Errorf("want the labels member asked for, have %q", field)
			}
			return mustObject(t, `{"id":1,"name":"`+name+`"}`)
		}, `[{"id":1,"name":"bug"}]`},
	}
	for _, tt := range tests {
		o := mustObject(t, `{"labels":["bug"],"assignees":["ada"],"assignee":null}`)
		n.Named(o, tt.member, "http://h")
		b, _ := o.MarshalJSON()
		if want := `{"labels":` + tt.want + `,"assignees":[`; !strings.HasPrefix(string(b), want) || !strings.Contains(string(b), `"login":"ada"`) {
			t.Errorf("%s: want labels %s and ada a user, have %s", tt.name, tt.want, b)
		}
	}
}
