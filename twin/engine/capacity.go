package engine

import (
	"fmt"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/session"
)

// DefaultMaxEntities is how many entities one session may hold of its own
// by default (wraith serve --max-entities).
const DefaultMaxEntities = 10000

// StatusSessionFull is the status of a write refused because the session
// reached --max-entities (507; the reason is beside the code in apierr's
// table).
var StatusSessionFull = apierr.SessionEntityLimit.Status()

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
	if req.match.Value.Kind != compiled.KindCreate && st.Touched(req.match.Param("id")) {
		return false
	}
	e.refuseFull(a, apierr.SessionEntityLimit, fmt.Sprintf(
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
	e.refuseFull(a, apierr.SessionIdempotencyLimit, fmt.Sprintf(
		"this session already remembers %d idempotency keys, the limit (--max-entities): reset or delete the session, or raise --max-entities", max))
	return true
}

func (e *Engine) refuseFull(a *answer, code apierr.Code, message string) {
	a.fail(apierr.New(code, message).With("limit", e.opts.MaxEntities))
	a.prov = ProvFault
}

// StatusMemoryFull is the status of a write refused because the process
// passed --max-memory: like session-entity-limit, capacity ran out.
var StatusMemoryFull = apierr.MemoryLimit.Status()

// memoryFull reports whether the process's heap is past
// Options.MaxMemory, answering 507 memory-limit when it is. Only writes
// ask: reads, lists and replays store nothing and keep working.
func (e *Engine) memoryFull(a *answer) bool {
	max := e.opts.MaxMemory
	if max <= 0 {
		return false
	}
	heap := e.heap.read()
	if heap <= uint64(max) {
		return false
	}
	a.fail(apierr.Errorf(apierr.MemoryLimit,
		"the twin holds %d bytes of live heap, past its soft limit of %d (--max-memory): reset or delete sessions you no longer need, or raise --max-memory", heap, max).
		With("limit", max).With("heap", heap))
	a.prov = ProvFault
	return true
}

// heapGauge reads the live heap through runtime/metrics at most once per
// heapEvery, so a write costs an atomic load, not a runtime call.
type heapGauge struct {
	at    atomic.Int64 // unix nanoseconds of the last reading
	bytes atomic.Uint64
	mu    sync.Mutex // one reader refreshes; the others use the last value
}

const heapEvery = 50 * time.Millisecond

func (g *heapGauge) read() uint64 {
	now := time.Now().UnixNano() // the process's real time: this measures the process
	if now-g.at.Load() < int64(heapEvery) || !g.mu.TryLock() {
		return g.bytes.Load()
	}
	defer g.mu.Unlock()
	// The live heap at the last collection is what sessions hold, without
	// the garbage between collections; before the first collection there
	// is no such figure, and all allocated objects stand in for it.
	s := [2]metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s[:])
	var v uint64
	if s[0].Value.Kind() == metrics.KindUint64 {
		v = s[0].Value.Uint64()
	}
	if v == 0 && s[1].Value.Kind() == metrics.KindUint64 {
		v = s[1].Value.Uint64()
	}
	g.bytes.Store(v)
	g.at.Store(now)
	return v
}
