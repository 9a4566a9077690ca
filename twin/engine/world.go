package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/world"
)

// A dialect's behaviour (dialect.World, dialect.Ticker): what a write does
// beyond its own entity, and what falls due when a session's clock moves,
// is the dialect's; the engine only lends it the session's entities, by
// resource and id, under the session's exclusive lock, and posts the
// webhook deliveries it queues once the request is answered.

// Deliverer posts a session's webhook deliveries (package twin/webhook):
// after the request that queued them is answered, outside the session's
// lock.
type Deliverer interface {
	// Deliver queues ds, posted in order after what sess queued before.
	Deliver(sess *session.Session, ds []dialect.Delivery)
	// Due tells that sess's clock moved to now (unix seconds): the
	// retries due by then are posted. A failed delivery is tried again
	// on the session's clock, never the wall clock's.
	Due(sess *session.Session, now int64)
}

// sessionWorld is dialect.World over one session's exclusive state.
type sessionWorld struct {
	e   *Engine
	st  *session.State
	req *request // nil for a clock's tick
	now int64
	out []dialect.Delivery
}

func (e *Engine) world(st *session.State, req *request, now int64) *sessionWorld {
	return &sessionWorld{e: e, st: st, req: req, now: now}
}

// byIDResource returns the resource named r when its entities are kept
// by id alone, as the ones a World reaches are.
func (w *sessionWorld) byIDResource(r string) *compiled.Resource {
	res := w.e.twin.Resource(r)
	if res == nil || len(res.Keys.Parents) > 0 || res.Keys.Keyed {
		return nil
	}
	return res
}

func (w *sessionWorld) Has(r string) bool { return w.byIDResource(r) != nil }

func (w *sessionWorld) Now() int64 { return w.now }

func (w *sessionWorld) NewID(prefix string) string {
	id, _ := w.e.dialect.NewID(w.st, "string", prefix).(string)
	return id
}

func (w *sessionWorld) Deliver(d dialect.Delivery) { w.out = append(w.out, d) }

func (w *sessionWorld) Get(r, id string) []byte {
	if w.byIDResource(r) == nil || id == "" {
		return nil
	}
	ent := w.st.Get(id)
	if ent == nil || ent.Deleted || ent.Resource != r {
		return nil
	}
	if ent.Provenance != world.Recorded {
		return ent.Body()
	}
	o, err := object.Parse(ent.Body())
	if err != nil {
		return nil
	}
	w.e.scrubObject(o) // as current scrubs a recorded entity a write takes up
	return o.AppendJSON(nil)
}

func (w *sessionWorld) Each(r string, fn func([]byte) bool) {
	if w.byIDResource(r) == nil {
		return
	}
	for _, ent := range w.st.Visible(r) {
		if !fn(ent.Body()) {
			return
		}
	}
}

func (w *sessionWorld) Newest(r string) []byte {
	if w.byIDResource(r) == nil {
		return nil
	}
	if ent := w.st.Newest(r); ent != nil {
		return ent.Body()
	}
	return nil
}

func (w *sessionWorld) New(r string) (*object.Object, error) {
	res := w.byIDResource(r)
	if res == nil {
		return nil, fmt.Errorf("the twin declares no resource %q kept by id", r)
	}
	o := res.Skeleton.Clone()
	w.e.fillIDs(w.st, res, nil, o)
	now := timeValue(res.Keys, w.now)
	for _, f := range res.Timestamps {
		o.Set(f, now)
	}
	return o, nil
}

func (w *sessionWorld) Put(r, id string, body []byte) error {
	res := w.byIDResource(r)
	if res == nil {
		return fmt.Errorf("the twin declares no resource %q kept by id", r)
	}
	if id == "" {
		return errors.New(r + ": no id to keep it by")
	}
	cur := w.st.Get(id)
	if cur != nil && cur.Resource != r {
		// An object keeps its type: the session's lists, orders and
		// reads all take an id to name one resource.
		return fmt.Errorf("%s %s: the id names a %s already", r, id, cur.Resource)
	}
	ne := &world.Entity{ID: id, Resource: r, Created: w.now, Provenance: world.Handler}
	if cur != nil && !cur.Deleted {
		ne.Created, ne.Seq = cur.Created, cur.Seq
	} else {
		ne.Seq = w.st.NextSeq()
	}
	if len(res.Keys.Computed) > 0 {
		o, err := object.Parse(body)
		if err != nil {
			return fmt.Errorf("%s %s: %w", r, id, err)
		}
		req := w.req
		if req == nil {
			req = &request{} // the clock's work: no request, so no {base}
		}
		w.e.compute(res, o, nil, req)
		body = w.e.encode(o)
	}
	ne.SetBody(body)
	w.st.Put(ne)
	return nil
}

// advanceTo is dialect.Clock's AdvanceTo for a write's call.
func (w *sessionWorld) AdvanceTo(t int64) bool {
	if w.st.ClockMode() == session.ClockReal || t < w.now || t > session.MaxEpoch {
		return false
	}
	from := w.now
	w.st.Advance(t - from)
	w.now = w.st.Now(w.e.now)
	if w.req != nil {
		w.req.moved = true // the retries due by now go once the request is answered (deliver)
	}
	if w.e.ticker != nil {
		w.e.ticker.Tick(w, from, w.now)
	}
	return true
}

// clock is the Call's dialect.Clock.
type clock struct{ w *sessionWorld }

func (c clock) AdvanceTo(t int64) bool { return c.w.AdvanceTo(t) }

// Tick runs what falls due in a session whose clock moved from from to
// to (unix seconds), as its dialect's Ticker says, under the session's
// exclusive lock; it returns the webhook deliveries the work queued, for
// Deliver once the lock is released.
func (e *Engine) Tick(st *session.State, from, to int64) []dialect.Delivery {
	if e.ticker == nil || to <= from {
		return nil
	}
	w := e.world(st, nil, to)
	e.ticker.Tick(w, from, to)
	return w.out
}

// Deliver posts ds, which a write or a tick of sess queued, when the
// engine has a Deliverer.
func (e *Engine) Deliver(sess *session.Session, ds []dialect.Delivery) {
	if len(ds) == 0 || e.opts.Webhooks == nil {
		return
	}
	e.opts.Webhooks.Deliver(sess, ds)
}

// Advanced posts what a move of sess's clock to now made due: the failed
// deliveries whose retry falls due by now, then ds, which the move's tick
// queued (the control plane's clock).
func (e *Engine) Advanced(sess *session.Session, now int64, ds []dialect.Delivery) {
	if e.opts.Webhooks == nil {
		return
	}
	e.opts.Webhooks.Due(sess, now)
	e.Deliver(sess, ds)
}

// deliver posts what req queued once it is answered; when req moved its
// session's clock (a provider's test clock), the retries that fell due
// go first.
func (e *Engine) deliver(sess *session.Session, req *request) {
	if req.moved && e.opts.Webhooks != nil {
		now := int64(0)
		// The client may be gone: what fell due is due all the same.
		if sess.ReadContext(context.WithoutCancel(req.ctx), func(st session.Reader) { now = st.Now(e.now) }) == nil {
			e.opts.Webhooks.Due(sess, now)
		}
	}
	e.Deliver(sess, req.deliveries)
}
