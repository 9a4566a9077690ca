package route_test

import (
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/route"
)

func TestRestParameter(t *testing.T) {
	r := addRoutes(t,
		[2]string{"GET", "/repos/{owner}/{repo}/git/ref/{ref...}"},
		[2]string{"PATCH", "/repos/{owner}/{repo}/git/refs/{ref...}"},
		[2]string{"POST", "/repos/{owner}/{repo}/git/refs"},
		[2]string{"GET", "/repos/{owner}/{repo}/contents/{path...}"},
		[2]string{"GET", "/repos/{owner}/{repo}/contents/{path}/meta"},
	)
	checkMatches(t, r, []matchCase{
		{"one segment", "GET", "/repos/o/r/git/ref/main", "/repos/{owner}/{repo}/git/ref/{ref...}", "owner=o;repo=r;ref=main;"},
		{"several segments", "GET", "/repos/o/r/git/ref/heads/feature/x", "/repos/{owner}/{repo}/git/ref/{ref...}", "owner=o;repo=r;ref=heads/feature/x;"},
		{"method", "PATCH", "/repos/o/r/git/refs/heads/main", "/repos/{owner}/{repo}/git/refs/{ref...}", "owner=o;repo=r;ref=heads/main;"},
		{"static wins", "POST", "/repos/o/r/git/refs", "/repos/{owner}/{repo}/git/refs", "owner=o;repo=r;"},
		{"one-segment parameter first", "GET", "/repos/o/r/contents/a/meta", "/repos/{owner}/{repo}/contents/{path}/meta", "owner=o;repo=r;path=a;"},
		{"rest when the parameter leads nowhere", "GET", "/repos/o/r/contents/a/b", "/repos/{owner}/{repo}/contents/{path...}", "owner=o;repo=r;path=a/b;"},
		{"empty rest after a trailing slash", "GET", "/repos/o/r/git/ref/", "/repos/{owner}/{repo}/git/ref/{ref...}", "owner=o;repo=r;ref=;"},
		{"empty rest without the slash", "GET", "/repos/o/r/contents", "/repos/{owner}/{repo}/contents/{path...}", "owner=o;repo=r;path=;"},
		{"a route ending there wins", "POST", "/repos/o/r/git/refs", "/repos/{owner}/{repo}/git/refs", "owner=o;repo=r;"},
		{"no rest of another method", "GET", "/repos/o/r/git/refs", "", ""},
		{"an empty segment in the rest", "GET", "/repos/o/r/git/ref//x", "", ""},
		{"wrong method", "DELETE", "/repos/o/r/git/refs/heads/main", "", ""},
	})
	if !r.PathKnown("/repos/o/r/git/refs/heads/main") {
		t.Error("PathKnown: want the rest route known for any method")
	}
}

func TestRestParameterErrors(t *testing.T) {
	r := route.New[int]()
	if err := r.Add("GET", "/a/{rest...}/b", 1); err == nil || !strings.Contains(err.Error(), "before its last segment") {
		t.Errorf("a rest parameter in the middle: want an error, have %v", err)
	}
	if err := r.Add("GET", "/a/{ref...}", 1); err != nil {
		t.Fatal(err)
	}
	if err := r.Add("PUT", "/a/{path...}", 1); err == nil || !strings.Contains(err.Error(), "use one name") {
		t.Errorf("two names for one rest parameter: want an error, have %v", err)
	}
	if err := r.Add("GET", "/a/{ref...}", 2); err == nil {
		t.Error("a duplicate rest route: want an error")
	}
}
