package reqschema

import (
	"fmt"
	"strings"

	"github.com/wraithdev/wraith/twin/route"
)

// Index finds the operation of a route. A twin's routes name their
// parameters otherwise than the description does ({id} where Stripe
// writes {customer}), and a recorded twin's routes may be concrete paths
// (/v1/customers/cus_123): both match the operation's template, since a
// template's parameter matches any one segment, a literal "{id}"
// included.
type Index struct {
	router *route.Router[*Operation]
}

// NewIndex indexes f's operations.
func NewIndex(f *File) (*Index, error) {
	r := route.New[*Operation]()
	for i := range f.Operations {
		op := &f.Operations[i]
		if err := r.Add(op.Method, positional(op.Path), op); err != nil {
			return nil, fmt.Errorf("%s %s: %w", op.Method, op.Path, err)
		}
	}
	return &Index{router: r}, nil
}

// Indexable reports why an operation's template cannot be indexed (a
// parameter inside a segment that is not a suffix: GitHub's
// {base}...{head}), or nil.
func Indexable(method, template string) error {
	return route.New[struct{}]().Add(method, positional(template), struct{}{})
}

// Lookup is the operation that method path (a template or a concrete
// path) is, or nil.
func (x *Index) Lookup(method, path string) *Operation {
	m, ok := x.router.Match(method, path)
	if !ok {
		return nil
	}
	return m.Value
}

// positional names a template's parameters by position ({p0}, {p1}...):
// a description may name one place differently in two templates
// (/orgs/{org}/... beside /orgs/{owner}/...), or in a way routes do not
// allow ({enterprise-team}), and only the place matters here. A
// parameter inside a segment ({Sid}.json) keeps its suffix.
func positional(template string) string {
	var b strings.Builder
	n := 0
	for i := 0; i < len(template); i++ {
		c := template[i]
		if c != '{' {
			b.WriteByte(c)
			continue
		}
		end := strings.IndexByte(template[i:], '}')
		if end < 0 {
			b.WriteString(template[i:])
			break
		}
		fmt.Fprintf(&b, "{p%d}", n)
		n++
		i += end
	}
	return b.String()
}
