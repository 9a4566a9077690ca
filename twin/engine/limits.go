package engine

import (
	"fmt"
	"net/http"

	"github.com/wraithdev/wraith/twin/session"
)

// DefaultMaxEntities is how many entities one session may hold of its own
// by default (wraith serve --max-entities).
const DefaultMaxEntities = 10000

// StatusSessionFull is the status of a write refused because the session
// reached --max-entities: 507 Insufficient Storage. It is a 5xx because
// the request is fine and the twin's capacity is what ran out, as with 503
// session-limit; it is not 503 because retrying cannot help until the
// session is reset or deleted.
const StatusSessionFull = http.StatusInsufficientStorage

// full reports whether a write would give the session one more entity of
// its own than Options.MaxEntities allows, and answers 507
// session-entity-limit when it would. A session's own entities are those it
// created, changed or deleted (a deleted one keeps its tombstone, so
// deleting frees no room); writes to an entity it already holds always fit.
func (e *Engine) full(st *session.State, req *request, a *answer) bool {
	max := e.opts.MaxEntities
	if max <= 0 || st.ChangeCount() < max {
		return false
	}
	if req.match.Value.kind != kindCreate && st.Touched(req.match.Param("id")) {
		return false
	}
	e.refuseFull(a, "session-entity-limit", fmt.Sprintf(
		"this session already holds %d entities of its own (created, changed or deleted), the limit (--max-entities): reset or delete the session, or raise --max-entities", max))
	return true
}

// replaysFull reports whether remembering one more Idempotency-Key would
// pass Options.MaxEntities (the caller knows the key is new), answering 507 session-idempotency-limit when
// it would. Keys are never forgotten silently: a forgotten key would turn
// an agent's retry into a second create.
func (e *Engine) replaysFull(st *session.State, req *request, a *answer) bool {
	max := e.opts.MaxEntities
	if max <= 0 || st.ReplayCount() < max {
		return false
	}
	e.refuseFull(a, "session-idempotency-limit", fmt.Sprintf(
		"this session already remembers %d idempotency keys, the limit (--max-entities): reset or delete the session, or raise --max-entities", max))
	return true
}

func (e *Engine) refuseFull(a *answer, code, message string) {
	a.status, a.prov, a.wraith = StatusSessionFull, ProvFault, true
	a.body = errorBody(code, message, map[string]any{"limit": e.opts.MaxEntities})
}
