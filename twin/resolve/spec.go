package resolve

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/wraithdev/wraith/twin/dialect/importers"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/openapi"
)

// isSpecFile reports a path named like an API description.
func isSpecFile(p string) bool {
	ext := strings.ToLower(filepath.Ext(p))
	return ext == ".json" || ext == ".yaml" || ext == ".yml"
}

var notName = regexp.MustCompile(`[^a-z0-9._-]+`)

// specTwinName is the name of a twin imported from a file:
// "specs/Pet Store.yaml" -> "pet-store".
func specTwinName(p string) string {
	base := strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
	name := strings.Trim(notName.ReplaceAllString(strings.ToLower(base), "-"), "-._")
	if len(name) > 64 {
		name = name[:64]
	}
	if name == "" || !format.ValidName(name) {
		return "imported"
	}
	return name
}

// fromSpec imports an OpenAPI document at p in memory. A file that is not
// an OpenAPI 3.x document does not resolve: the error says what the file
// is and how to fix it (a Swagger 2.0 document: convert it), and wraps
// ErrNotFound, so serve refuses it as a usage error (exit 2), as `wraith
// import openapi` does.
func fromSpec(p string) (Source, bool, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return Source{}, true, fmt.Errorf("read %s: %w", p, err)
	}
	// The file's modification time dates the twin when the description
	// pins no date, as `wraith import openapi` dates it (docs/import.md).
	var modified time.Time
	if fi, err := os.Stat(p); err == nil {
		modified = fi.ModTime()
	}
	name := specTwinName(p)
	res, err := openapi.Import(b, openapi.Options{Name: name, Modified: modified, Dialects: importers.All()})
	switch {
	case errors.Is(err, openapi.ErrSwagger2):
		return Source{}, true, &specError{fmt.Errorf("%s: %w", p, err)}
	case err != nil:
		return Source{}, true, &specError{fmt.Errorf("%s is not an OpenAPI description wraith can serve: %w", p, err)}
	}
	return Source{Name: name, Where: p, FS: res.FS()}, true, nil
}

// specError is a description file that exists but cannot be served. Its
// message is the file's problem alone ("twin not found" would be wrong:
// the file is there), and it is an ErrNotFound for callers that map a
// twin that does not resolve to a usage error.
type specError struct{ err error }

func (e *specError) Error() string   { return e.err.Error() }
func (e *specError) Unwrap() []error { return []error{e.err, ErrNotFound} }
