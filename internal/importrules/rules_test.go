package importrules

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/wraithdev/wraith/"

// pkg is what `go list -json` says of one package, the parts the rules read.
type pkg struct {
	ImportPath string
	Name       string
	Dir        string
	GoFiles    []string
	Deps       []string
	Standard   bool
}

// rule forbids some dependencies of some packages. applies and forbids
// take import paths relative to the module ("twin/engine"); forbids sees
// external paths whole ("github.com/spf13/cobra").
type rule struct {
	name    string
	applies func(p string) bool
	forbids func(dep string, std bool) bool
}

func under(prefixes ...string) func(string) bool {
	return func(p string) bool {
		for _, pre := range prefixes {
			if p == pre || strings.HasPrefix(p, pre+"/") {
				return true
			}
		}
		return false
	}
}

var rules = []rule{
	{
		name:    "supervisor may use only ipc and internal/procfs of this module",
		applies: under("supervisor"),
		forbids: func(dep string, _ bool) bool {
			return strings.HasPrefix(dep, module) && dep != module+"ipc" && dep != module+"internal/procfs"
		},
	},
	{
		name:    "ipc uses the standard library only",
		applies: under("ipc"),
		forbids: func(_ string, std bool) bool { return !std },
	},
	{
		name:    "cobra and pflag live only in cmd/wraith",
		applies: func(p string) bool { return !under("cmd/wraith")(p) },
		forbids: func(dep string, _ bool) bool {
			return under("github.com/spf13/cobra", "github.com/spf13/pflag")(dep)
		},
	},
	{
		name:    "nothing under twin/ imports supervisor, manifest or cmd",
		applies: under("twin"),
		forbids: func(dep string, _ bool) bool {
			return under(module+"supervisor", module+"manifest", module+"cmd")(dep)
		},
	},
	{
		name:    "nothing under twin/ imports ipc",
		applies: under("twin"),
		forbids: func(dep string, _ bool) bool { return dep == module+"ipc" },
	},
	{
		name:    "manifest imports nothing of this module but internal/rate and internal/size",
		applies: under("manifest"),
		forbids: func(dep string, _ bool) bool {
			return strings.HasPrefix(dep, module) && dep != module+"internal/rate" && dep != module+"internal/size"
		},
	},
	{
		name:    "internal/rate, internal/size and internal/procfs use the standard library only",
		applies: under("internal/rate", "internal/size", "internal/procfs"),
		forbids: func(_ string, std bool) bool { return !std },
	},
	{
		name:    "the engine and the serve-time dialects do not link the importer (twin/openapi, kin-openapi, a dialect's import hooks)",
		applies: func(p string) bool { return under("twin/engine", "twin/dialect")(p) && !importHooks(p) },
		forbids: func(dep string, _ bool) bool {
			rel, ours := strings.CutPrefix(dep, module)
			return under("github.com/getkin/kin-openapi")(dep) || ours && (under("twin/openapi")(rel) || importHooks(rel))
		},
	},
	{
		name:    "a dialect does not reach into the engine",
		applies: under("twin/dialect"),
		forbids: func(dep string, _ bool) bool { return under(module + "twin/engine")(dep) },
	},
	{
		name:    "compiling a twin does not reach the request path (twin/engine, twin/session)",
		applies: under("twin/engine/compiled"),
		forbids: func(dep string, _ bool) bool {
			return dep == module+"twin/engine" || under(module+"twin/session")(dep)
		},
	},
	{
		name:    "internal/testbin is for tests only",
		applies: func(p string) bool { return !under("internal/testbin")(p) },
		forbids: func(dep string, _ bool) bool { return dep == module+"internal/testbin" },
	},
}

// importHooks reports whether p is a dialect's import hooks
// (twin/dialect/importers, twin/dialect/stripe/stripeimport, ...), which
// the importer calls and the serve path never links.
func importHooks(p string) bool {
	return p == "twin/dialect/importers" || strings.HasPrefix(p, "twin/dialect/") && strings.HasSuffix(p, "import")
}

// violations applies every rule to every package and returns one line per
// forbidden dependency, sorted.
func violations(pkgs []pkg) []string {
	std := map[string]bool{}
	for _, p := range pkgs {
		if p.Standard {
			std[p.ImportPath] = true
		}
	}
	var out []string
	for _, p := range pkgs {
		rel, ok := strings.CutPrefix(p.ImportPath, module)
		if !ok {
			continue
		}
		for _, r := range rules {
			if !r.applies(rel) {
				continue
			}
			for _, d := range p.Deps {
				if r.forbids(d, std[d]) {
					out = append(out, rel+" depends on "+d+": "+r.name)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// listModule runs `go list -deps -json ./...` from the module root, so the
// standard library's packages come back marked Standard.
func listModule(tb testing.TB) []pkg {
	tb.Helper()
	cmd := exec.Command("go", "list", "-deps", "-json", "./...")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			tb.Fatalf("decode go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func TestImportRules(t *testing.T) {
	pkgs := listModule(t)
	var ours int
	for _, p := range pkgs {
		if strings.HasPrefix(p.ImportPath, module) {
			ours++
		}
	}
	if ours < 10 {
		t.Fatalf("go list found %d packages of this module; want the whole module", ours)
	}
	for _, v := range violations(pkgs) {
		t.Error(v)
	}
}

// TestRulesCatchForbiddenImports feeds the rules a graph that breaks each of
// them once, so a rule that can no longer fire is noticed.
func TestRulesCatchForbiddenImports(t *testing.T) {
	graph := []pkg{
		{ImportPath: "fmt", Standard: true},
		{ImportPath: module + "supervisor", Deps: []string{"fmt", module + "ipc", module + "twin/engine"}},
		{ImportPath: module + "ipc", Deps: []string{"fmt", "github.com/hashicorp/go-hclog"}},
		{ImportPath: module + "twin/server", Deps: []string{module + "manifest", "github.com/spf13/cobra"}},
		{ImportPath: module + "manifest", Deps: []string{module + "twin/format"}},
		{ImportPath: module + "twin/engine", Deps: []string{module + "internal/testbin"}},
		{ImportPath: module + "twin/session", Deps: []string{"fmt", module + "ipc"}},
		{ImportPath: module + "internal/rate", Deps: []string{"fmt", module + "twin/session"}},
		{ImportPath: module + "cmd/wraith", Deps: []string{"github.com/spf13/cobra", module + "supervisor", module + "manifest"}},
		{ImportPath: module + "twin/dialect/github", Deps: []string{module + "twin/openapi", module + "twin/engine"}},
		{ImportPath: module + "twin/dialect/github/githubimport", Deps: []string{module + "twin/openapi", "github.com/getkin/kin-openapi/openapi3"}},
		{ImportPath: module + "twin/dialect/dialects", Deps: []string{module + "twin/dialect/stripe/stripeimport"}},
		{ImportPath: module + "twin/engine/compiled", Deps: []string{module + "twin/session"}},
	}
	want := []string{
		"internal/rate depends on " + module + "twin/session: internal/rate, internal/size and internal/procfs use the standard library only",
		"ipc depends on github.com/hashicorp/go-hclog: ipc uses the standard library only",
		"manifest depends on " + module + "twin/format: manifest imports nothing of this module but internal/rate and internal/size",
		"supervisor depends on " + module + "twin/engine: supervisor may use only ipc and internal/procfs of this module",
		"twin/dialect/dialects depends on " + module + "twin/dialect/stripe/stripeimport: the engine and the serve-time dialects do not link the importer (twin/openapi, kin-openapi, a dialect's import hooks)",
		"twin/dialect/github depends on " + module + "twin/engine: a dialect does not reach into the engine",
		"twin/dialect/github depends on " + module + "twin/openapi: the engine and the serve-time dialects do not link the importer (twin/openapi, kin-openapi, a dialect's import hooks)",
		"twin/engine depends on " + module + "internal/testbin: internal/testbin is for tests only",
		"twin/engine/compiled depends on " + module + "twin/session: compiling a twin does not reach the request path (twin/engine, twin/session)",
		"twin/server depends on github.com/spf13/cobra: cobra and pflag live only in cmd/wraith",
		"twin/server depends on " + module + "manifest: nothing under twin/ imports supervisor, manifest or cmd",
		"twin/session depends on " + module + "ipc: nothing under twin/ imports ipc",
	}
	have := violations(graph)
	if strings.Join(have, "\n") != strings.Join(want, "\n") {
		t.Errorf("violations:\nhave\n\t%s\nwant\n\t%s", strings.Join(have, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// TestExitOnlyInMain: libraries return errors; only a main package decides
// the process's exit code.
func TestExitOnlyInMain(t *testing.T) {
	fset := token.NewFileSet()
	for _, p := range listModule(t) {
		if !strings.HasPrefix(p.ImportPath, module) || p.Name == "main" {
			continue
		}
		for _, name := range p.GoFiles {
			path := filepath.Join(p.Dir, name)
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatalf("parse %s: %v", path, err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "Exit" {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "os" {
					t.Errorf("%s: os.Exit in library package %s: return an error and let main exit", fset.Position(sel.Pos()), p.ImportPath)
				}
				return true
			})
		}
	}
}
