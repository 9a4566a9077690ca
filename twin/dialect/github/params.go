package github

import (
	"bytes"
	"errors"
	"mime"
	"strings"

	"github.com/wraithdev/wraith/twin/canon"
	"github.com/wraithdev/wraith/twin/dialect"
)

// problemsParsingJSON is GitHub's sentence for a body it cannot read.
const problemsParsingJSON = "Problems parsing JSON"

var _ dialect.Decoder = Dialect{}

// Params reads a body as JSON whatever its Content-Type says, as GitHub
// does: its own documentation sends bodies with curl -d '{...}', which
// says application/x-www-form-urlencoded. A body of another media type
// (text/plain for /markdown/raw, an upload's octet-stream) is no
// parameters, as package canon reads it. A body GitHub would read that
// is no JSON object is refused, the error starting with GitHub's
// sentence for it.
func (Dialect) Params(contentType string, body []byte, query string) (map[string]any, error) {
	if !readsJSON(contentType) || len(bytes.TrimSpace(body)) == 0 {
		return canon.Params(contentType, body, query)
	}
	p, err := canon.Params("application/json", body, query)
	if err != nil {
		var ne *canon.NumberError
		if errors.As(err, &ne) {
			return nil, err
		}
		return nil, errors.New(problemsParsingJSON + ": " + err.Error())
	}
	return p, nil
}

// FlatParams is Params' fast path, which no body GitHub reads takes: a
// JSON body is a tree. A request with no body is read as canon reads it.
func (Dialect) FlatParams(dst []canon.FlatParam, contentType string, body []byte, query string) ([]canon.FlatParam, bool) {
	if readsJSON(contentType) && len(body) > 0 {
		return dst, false
	}
	return canon.FlatParams(dst, contentType, body, query)
}

// Repeated is canon.Repeated of the query (GitHub's lists in a query,
// ?exclude=a&exclude=b): a body is read as JSON, which sends its lists
// as JSON, and its names replace the query's.
func (Dialect) Repeated(contentType string, body []byte, query string) map[string][]any {
	if readsJSON(contentType) && len(bytes.TrimSpace(body)) > 0 {
		return canon.Repeated("application/json", body, query)
	}
	return canon.Repeated(contentType, body, query)
}

// readsJSON reports whether GitHub reads a body of this media type as
// JSON: a JSON type, a form (curl -d), or none said.
func readsJSON(contentType string) bool {
	if contentType == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return true // GitHub reads the body whatever the header says
	}
	return mt == "application/x-www-form-urlencoded" || mt == "application/json" || strings.HasSuffix(mt, "+json")
}
