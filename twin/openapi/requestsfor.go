package openapi

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/reqschema"
)

// RequestsFor is the requests.json of a twin made otherwise than from
// this description (a recorded twin of the same provider): the request
// schemas of the operations the twin serves, so that its requests are
// checked as the provider checks them (SPEC §13). A route of the twin
// matches the description's operation whose template it fits; a recorded
// path (/v1/customers/cus_123) fits one as its template does. It returns
// nil when the twin serves none of the description's operations.
func (r *Result) RequestsFor(t *format.Twin) ([]byte, error) {
	raw, ok := r.Files[format.RequestsFile]
	if !ok {
		return nil, nil
	}
	all, err := reqschema.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("the import's %s: %w", format.RequestsFile, err)
	}
	idx, err := reqschema.NewIndex(all)
	if err != nil {
		return nil, fmt.Errorf("the import's %s: %w", format.RequestsFile, err)
	}
	routes, err := t.Routes()
	if err != nil {
		return nil, err
	}
	served := map[*reqschema.Operation]bool{}
	for _, rt := range routes {
		if op := idx.Lookup(rt.Method, rt.Path); op != nil {
			served[op] = true
		}
	}
	if len(served) == 0 {
		return nil, nil
	}
	out := reqschema.File{Format: all.Format, Source: all.Source}
	for i := range all.Operations { // in the description's order, as the import writes them
		if op := &all.Operations[i]; served[op] {
			out.Operations = append(out.Operations, *op)
		}
	}
	return out.Marshal()
}

// ErrNoRequests is WriteRequestsFor's error for a twin that serves none of
// the description's operations that take parameters.
var ErrNoRequests = errors.New("the twin serves none of the description's operations that take parameters")

// WriteRequestsFor writes dir/requests.json, RequestsFor the twin in dir,
// by a rename (the old file or the new one, never part of either), and
// returns that twin.
func (r *Result) WriteRequestsFor(dir string) (*format.Twin, error) {
	t, err := format.Load(os.DirFS(dir), dir)
	if err != nil {
		return nil, err
	}
	b, err := r.RequestsFor(t)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, ErrNoRequests
	}
	return t, writeFile(filepath.Join(dir, format.RequestsFile), b)
}
