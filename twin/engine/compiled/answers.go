package compiled

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/format"
)

// Shaped is a provider-shaped answer: a status and a compact JSON body
// template with {placeholders}.
type Shaped struct {
	Status int
	Body   string
	Header http.Header // a media type other than JSON's, from the dialect
}

// ErrorShapes are the twin's provider-shaped error answers; nil where the
// twin does not declare one, and Wraith's own shape is used instead.
type ErrorShapes struct {
	NotFound, Invalid, Idempotency, RateLimited, UnexpectedState, Validation, MissingReference, Unreadable *Shaped
}

func compileShaped(a *format.Answer, status int) (*Shaped, error) {
	if a == nil {
		return nil, nil
	}
	if a.Status != 0 {
		status = a.Status
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(a.Body)); err != nil {
		return nil, fmt.Errorf("answer body is not JSON: %w", err)
	}
	return &Shaped{Status: status, Body: buf.String()}, nil
}

// compileErrorShapes compiles the twin's [errors], each kind it leaves
// out taken from the dialect's shapes.
func compileErrorShapes(e format.Errors, d map[string]dialect.Shape) (ErrorShapes, error) {
	var s ErrorShapes
	var err error
	for _, c := range []struct {
		dst  **Shaped
		src  *format.Answer
		name string
	}{
		{&s.NotFound, e.NotFound, "not_found"}, {&s.Invalid, e.InvalidRequest, "invalid_request"}, {&s.Idempotency, e.Idempotency, "idempotency"},
		{&s.RateLimited, e.RateLimited, "rate_limited"}, {&s.UnexpectedState, e.UnexpectedState, "unexpected_state"}, {&s.Validation, e.Validation, "validation"},
		{&s.MissingReference, e.MissingReference, "missing_reference"},
		{&s.Unreadable, e.Unreadable, "unreadable"},
	} {
		src, ctype := c.src, ""
		if ds, ok := d[c.name]; ok && src == nil {
			src, ctype = &format.Answer{Status: ds.Status, Body: ds.Body}, ds.ContentType
		}
		if *c.dst, err = compileShaped(src, 400); err != nil {
			return s, fmt.Errorf("%s: %w", c.name, err)
		}
		if ctype != "" {
			(*c.dst).Header = http.Header{"Content-Type": {ctype}}
		}
	}
	return s, nil
}
