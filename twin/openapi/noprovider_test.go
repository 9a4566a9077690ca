package openapi_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// provider matches the providers whose dialects live in packages of their
// own.
var provider = regexp.MustCompile(`(?i)stripe|github`)

// TestNamesNoProvider: the importer's own code names no provider: what
// it knows of one is a dialect's (twin/dialect/*/…import) or an
// overlay's. Comments may name one, as an example; import paths are the
// module's. Every identifier and string literal of the package's non-test
// files is read.
func TestNamesNoProvider(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	read := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0) // no comments
		if err != nil {
			t.Fatal(err)
		}
		read++
		imports := map[*ast.BasicLit]bool{}
		for _, im := range file.Imports {
			imports[im.Path] = true
		}
		ast.Inspect(file, func(n ast.Node) bool {
			var text string
			switch n := n.(type) {
			case *ast.Ident:
				text = n.Name
			case *ast.BasicLit:
				if !imports[n] {
					text = n.Value
				}
			}
			if text != "" && provider.MatchString(text) {
				t.Errorf("%s: %s names a provider: it belongs in the provider's dialect", fset.Position(n.Pos()), text)
			}
			return true
		})
	}
	if read < 10 {
		t.Fatalf("read %d files: want the package's", read)
	}
}
