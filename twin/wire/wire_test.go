package wire

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// homes are the files that may spell the session header out: this
// package, and ipc's copy for clients (held equal by internal/serve's
// TestSessionHeaderAgrees), which cannot import it.
var homes = map[string]bool{
	"twin/wire/wire.go": true,
	"ipc/ready.go":      true,
}

// TestSessionHeaderWrittenOnce: no other non-test Go file of the module
// spells the session header as a string of its own, so renaming it is a
// change to its homes and nothing else. Tests may: they check the wire.
// Prose that names it inside a longer string (help, comments) is not a
// use and is not looked at.
func TestSessionHeaderWrittenOnce(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	var files int
	var have []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// testdata holds programs that stand for a user's own, outside
			// the module's packages (the go tool ignores it too): they
			// cannot import the header's homes.
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		files++
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && strings.EqualFold(s, SessionHeader) && !homes[rel] {
				have = append(have, rel+":"+strconv.Itoa(fset.Position(lit.Pos()).Line))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatalf("walk the module from %s: %v", root, err)
	}
	// A walk that found this package's own file but little else started
	// in the wrong place and proves nothing.
	if files < 100 {
		t.Fatalf("walked %d non-test Go files from %s; want the whole module", files, root)
	}
	sort.Strings(have)
	for _, pos := range have {
		t.Errorf("%s: the session header %q written out: use wire.SessionHeader (under twin/) or ipc.SessionHeader (outside it)", pos, SessionHeader)
	}
}
