package engine

import (
	"errors"
	"net/http"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/canon"
	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/session"
)

// overLimit answers a request whose parameters pass canon's limits: 400 in
// the provider's invalid-request shape, the limit named in the message and
// its code in X-Wraith-Limit (and in Wraith's own shape when the twin
// declares no provider shape).
func (e *Engine) overLimit(a *answer, err error) {
	code := apierr.InvalidParams
	var le *canon.LimitError
	if errors.As(err, &le) {
		code = apierr.Code(le.Code)
	}
	e.refuse(a, dialect.Problem{Kind: dialect.InvalidRequest, Detail: err.Error()})
	a.limit = code
	if a.wraith {
		a.fail(apierr.New(code, "Invalid request: "+err.Error()).With("param", ""))
	}
}

// keyTooLong reports whether a POST's Idempotency-Key is longer than
// session.MaxIdempotencyKey, answering 400 in the provider's
// invalid-request shape and the dialect's words, X-Wraith-Limit:
// idempotency-key-too-long, when it is. Refused before the session's
// lock: a key is remembered as long as its session lives, so its length
// is what the cache would hold of it on every write.
func (e *Engine) keyTooLong(a *answer, req *request) bool {
	if len(req.idem) <= session.MaxIdempotencyKey || req.method != http.MethodPost {
		return false
	}
	msg := e.dialect.Word(dialect.Problem{Kind: dialect.KeyTooLong, Limit: session.MaxIdempotencyKey, Have: len(req.idem)})
	e.invalid(a, "", msg)
	a.limit = apierr.IdempotencyKeyTooLong
	if a.wraith {
		a.fail(apierr.New(apierr.IdempotencyKeyTooLong, msg).With("limit", session.MaxIdempotencyKey))
	}
	return true
}
