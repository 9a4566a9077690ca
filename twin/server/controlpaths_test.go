package server

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/ipc"
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
	routes := muxPatterns(t, filepath.Join("..", "control"))
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

// muxPatterns reads, from the control package's source, every pattern
// given to h.mux.HandleFunc or h.mux.Handle, but the catch-all.
func muxPatterns(tb testing.TB, dir string) []route {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		tb.Fatal(err)
	}
	var out []route
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			tb.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || (sel.Sel.Name != "HandleFunc" && sel.Sel.Name != "Handle") {
				return true
			}
			if x, ok := sel.X.(*ast.SelectorExpr); !ok || x.Sel.Name != "mux" {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				tb.Errorf("%s: a mux pattern that is not a string literal; this test reads them from the source", fset.Position(call.Pos()))
				return true
			}
			pattern, _ := strconv.Unquote(lit.Value)
			method, path, ok := strings.Cut(pattern, " ")
			if !ok {
				return true // the catch-all, which answers control-not-found
			}
			out = append(out, route{method, path})
			return true
		})
	}
	if len(out) < 10 {
		tb.Fatalf("found %d mux patterns in %s; want every control endpoint", len(out), dir)
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
