package engine

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/wraithdev/wraith/twin/format"
)

// shaped is a provider-shaped answer: a status and a compact JSON body
// template with {placeholders}.
type shaped struct {
	status int
	body   string
}

// errorShapes are the twin's provider-shaped error answers; nil where the
// twin does not declare one, and Wraith's own shape is used instead.
type errorShapes struct {
	notFound, invalid, idempotency, rateLimited, unexpectedState, validation *shaped
}

func compileShaped(a *format.Answer, status int) (*shaped, error) {
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
	return &shaped{status: status, body: buf.String()}, nil
}

func compileErrorShapes(e format.Errors) (errorShapes, error) {
	var s errorShapes
	var err error
	for _, c := range []struct {
		dst **shaped
		src *format.Answer
	}{
		{&s.notFound, e.NotFound}, {&s.invalid, e.InvalidRequest}, {&s.idempotency, e.Idempotency},
		{&s.rateLimited, e.RateLimited}, {&s.unexpectedState, e.UnexpectedState}, {&s.validation, e.Validation},
	} {
		if *c.dst, err = compileShaped(c.src, 400); err != nil {
			return s, err
		}
	}
	return s, nil
}

// set fills the answer's status and body from the shape.
func (s *shaped) set(a *answer, vals map[string]string) {
	a.status = s.status
	a.body = []byte(format.Fill(s.body, vals))
}
