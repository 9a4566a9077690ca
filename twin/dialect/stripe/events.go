package stripe

import (
	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// Events (SPEC §14): what a session did, as Stripe's events, kept in
// order and delivered to the session's webhook endpoints.

// events adds the routes whose behaviour is about events and endpoints.
func (b behaviours) events() {}

// emit records an event of typ about o (the object as it is now; prev the
// values its changed fields had before, for *.updated events, nil for
// none) and queues its delivery to the session's enabled endpoints that
// listen for typ. c is the request that caused it, nil for the clock's
// work (the event's request is then null, as for Stripe's own
// automatic work). A twin that declares no event resource records none.
func emit(w dialect.World, c *dialect.Call, typ string, o, prev *object.Object) {
	ev := fresh(w, "event")
	if ev == nil {
		return
	}
	data := object.New(2)
	data.Set("object", o)
	if prev != nil {
		data.Set("previous_attributes", prev)
	}
	ev.Set("data", data)
	ev.Set("type", typ)
	req := object.New(2)
	if c != nil {
		req.Set("id", w.NewID("req_"))
		if k := c.Header.Get("Idempotency-Key"); k != "" {
			req.Set("idempotency_key", k)
		} else {
			req.Set("idempotency_key", nil)
		}
	} else {
		req.Set("id", nil)
		req.Set("idempotency_key", nil)
	}
	ev.Set("request", req)
	ev.Set("api_version", defaultAPIVersion)
	keep(w, "event", ev)
}

// defaultAPIVersion is the API version of Stripe's description the
// embedded twin is imported from, which events name when nothing else
// does.
const defaultAPIVersion = "2026-08-26.dahlia"
