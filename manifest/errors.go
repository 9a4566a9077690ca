package manifest

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Problem is one thing wrong with a manifest.
type Problem struct {
	File    string
	Line    int    // 1-based; 0 when the problem belongs to the whole file
	Column  int    // 1-based; 0 when unknown
	Key     string // dotted path, e.g. "twins[1].port"; "" for syntax errors
	Message string
}

func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d", p.Line)
		if p.Column > 0 {
			fmt.Fprintf(&b, ":%d", p.Column)
		}
	}
	b.WriteString(": ")
	if p.Key != "" {
		b.WriteString(p.Key)
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// Error lists every problem found in a manifest, in file order.
type Error struct {
	Problems []Problem
}

func newError(ps []Problem) *Error {
	slices.SortStableFunc(ps, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	return &Error{Problems: ps}
}

func (e *Error) Error() string {
	if len(e.Problems) == 1 {
		return "invalid manifest: " + e.Problems[0].String()
	}
	var b strings.Builder
	name := "manifest"
	if len(e.Problems) > 0 {
		name = filepath.Base(e.Problems[0].File)
	}
	fmt.Fprintf(&b, "invalid manifest: %s has %d problems:", name, len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	return b.String()
}
