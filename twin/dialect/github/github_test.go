package github

import (
	"fmt"
	"testing"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/world"
)

// TestList: a bare array paged by page and per_page, with GitHub's Link
// header of absolute URLs that keep the request's other parameters.
func TestList(t *testing.T) {
	all := make([]*world.Entity, 5)
	for i := range all {
		all[i] = &world.Entity{ID: fmt.Sprint(i + 1)}
		all[i].SetBody([]byte(fmt.Sprintf(`{"number":%d}`, i+1)))
	}
	here := dialect.Here{TLS: true, Host: "api.example", Prefix: "/__s/a", Path: "/repos/o/r/issues", Query: "state=open&per_page=2&page=2"}
	page, refused := New().List(dialect.ListQuery{Params: map[string]any{"per_page": "2", "page": "2", "state": "open"}, Items: all, Here: here})
	if refused != nil {
		t.Fatal(refused)
	}
	if want := `[{"number":3},{"number":4}]`; string(page.Body) != want {
		t.Errorf("body: want %s, have %s", want, page.Body)
	}
	base := "https://api.example/__s/a/repos/o/r/issues?"
	want := `<` + base + `page=3&per_page=2&state=open>; rel="next", <` + base + `page=3&per_page=2&state=open>; rel="last", <` +
		base + `page=1&per_page=2&state=open>; rel="prev", <` + base + `page=1&per_page=2&state=open>; rel="first"`
	if page.Link != want {
		t.Errorf("Link:\nwant %s\nhave %s", want, page.Link)
	}
	// Nothing is refused: what is no positive number is the default.
	page, refused = New().List(dialect.ListQuery{Params: map[string]any{"per_page": "lots"}, Items: all, Here: here})
	if refused != nil || page.Link != "" || string(page.Body) != `[{"number":1},{"number":2},{"number":3},{"number":4},{"number":5}]` {
		t.Errorf("per_page=lots: want every item on one page and no Link, have %s %q %v", page.Body, page.Link, refused)
	}
}

// TestValueRules: a string sent for a branch object sets its ref; no
// metadata rule, no list envelope, nothing reserved.
func TestValueRules(t *testing.T) {
	d := New()
	head, err := object.Parse([]byte(`{"ref":"main","sha":"abc"}`))
	if err != nil {
		t.Fatal(err)
	}
	o, ok := d.FromString("head", head, "feature")
	if !ok || o.String("ref") != "feature" || o.String("sha") != "abc" || head.String("ref") != "main" {
		t.Errorf("FromString: want a copy with ref feature, the original untouched; have %v %v (original %s)", o, ok, head.String("ref"))
	}
	other, _ := object.Parse([]byte(`{"login":"x"}`))
	if _, ok := d.FromString("user", other, "y"); ok {
		t.Error("FromString of an object with no ref: want none")
	}
	if d.Cleared("metadata") != nil || d.Reserved("expand") {
		t.Error("want Stripe's value rules absent")
	}
}

// TestCredential: the token scheme, Bearer and the Basic user name.
func TestCredential(t *testing.T) {
	for _, auth := range []string{"token ghp_1.wraith.a", "Bearer ghp_1.wraith.a", "TOKEN ghp_1.wraith.a"} {
		if c, ok := New().Credential(auth); !ok || c.Token != "ghp_1.wraith.a" {
			t.Errorf("%s: have %+v %v", auth, c, ok)
		}
	}
	if _, ok := New().Credential("Digest x"); ok {
		t.Error("Digest: want unread")
	}
}
