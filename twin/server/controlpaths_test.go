package server

import (
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/ipc"
	"github.com/wraithdev/wraith/twin/control"
)

// TestControlPathsPublished: the control paths of the ready document
// (ipc.ControlPaths) are exactly those the control plane registers, and a
// served twin answers each registered method and path with something other
// than control-not-found or method-not-allowed. A path added to the mux
// and not published, or published and not served, fails here.
func TestControlPathsPublished(t *testing.T) {
	published := map[string]bool{}
	v := reflect.ValueOf(ipc.ControlPaths())
	for i := range v.NumField() {
		if p := v.Field(i).String(); p != "" {
			published[p] = true
		}
	}
	routes := muxPatterns(t)
	registered := map[string]bool{}
	for _, r := range routes {
		registered[r.path] = true
	}
	// The session viewer is a page the server serves beside the mux.
	const ui = "/__wraith/ui"
	registered[ui] = true
	for p := range published {
		if !registered[p] {
			t.Errorf("the ready document publishes %s, which the control plane does not register", p)
		}
	}
	for p := range registered {
		if !published[p] {
			t.Errorf("the control plane registers %s, which the ready document does not publish (add it to ipc.ControlPaths)", p)
		}
	}

	srv := startServer(t, "checkout", "--debug")
	base := srv.URL()
	controlCall(t, base, http.MethodPost, "/__wraith/session", `{"session":"paths"}`)
	// DELETE last: it removes the session the others use.
	slices.SortStableFunc(routes, func(a, b route) int {
		return boolInt(a.method == http.MethodDelete) - boolInt(b.method == http.MethodDelete)
	})
	routes = append(routes, route{http.MethodGet, ui})
	for _, r := range routes {
		path := strings.ReplaceAll(r.path, "{session}", "paths")
		status, code := controlCall(t, base, r.method, path, "{}")
		if code == "control-not-found" || code == "method-not-allowed" {
			t.Errorf("%s %s: %d %s, want the endpoint's own answer", r.method, path, status, code)
		}
	}
}

// route is one pattern of the control mux.
type route struct{ method, path string }

// muxPatterns returns every route the control plane's table gives its mux
// (the table, control.Routes, replaced the literal patterns this test
// once read from the source), the viewer's row left out: the test adds
// the viewer itself.
func muxPatterns(tb testing.TB) []route {
	tb.Helper()
	var out []route
	for _, rt := range control.Routes() {
		if rt.Path == "/__wraith/ui" {
			continue
		}
		out = append(out, route{rt.Method, rt.Path})
	}
	if len(out) < 10 {
		tb.Fatalf("found %d routes in the control table; want every control endpoint", len(out))
	}
	return out
}

// controlCall makes one control request and returns the status and the error
// code of the answer, if any.
func controlCall(tb testing.TB, base, method, path, body string) (int, string) {
	tb.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	json.Unmarshal(b, &e)
	return resp.StatusCode, e.Error.Code
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
