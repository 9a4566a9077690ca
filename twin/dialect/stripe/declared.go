package stripe

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// Declared events (SPEC §14, behaviour as data): twin.toml's
// [resources.events] names the event of a resource's create, update,
// delete and actions (customer.created, price.updated, coupon.deleted,
// invoice.sent), and the engine names it with each 2xx write it answers
// (dialect.Call.Event). One path emits them all, after the route's
// behaviour, about the answer as that behaviour left it:
//
//   - an update's event (X.updated) carries previous_attributes, the
//     values its changed fields had before (Call.Before);
//   - a delete's carries the entity as it was, where the answer is a
//     deleted confirmation ({"id":..., "deleted": true}), and the answer
//     itself where the delete changed the entity (a subscription
//     canceled by DELETE);
//   - nothing is emitted for an answer that is an error (a behaviour's
//     decline in place of the engine's 2xx).
//
// Where a route's behaviour emits the declared event itself, the behaviour
// wins and the declared one is not emitted again: that is how data
// cannot say an event's place among others (a product's created before its
// default price's, a payment intent's before its charge's, a
// subscription's before its first invoice's). The behaviour's events are
// seen as they are kept (heard), so an event emitted by any of its
// helpers counts, whichever World it went through. Only the after's are
// seen: a before that declines runs in a call of its own, so it emits
// no declared type (a customer's delete cancels the customer's
// subscriptions there, with their own events, before customer.deleted).

// answerDeclared runs after, the route's behaviour (nil for none), then
// emits c.Event about the answer unless after emitted it about the same
// object. It returns what after returned: the new body, or nil to keep
// the engine's.
func answerDeclared(c *dialect.Call, after func(*dialect.Call, int, []byte) []byte, status int, body []byte) []byte {
	var out []byte
	var emitted [][]byte
	if after != nil {
		h := &heard{World: c.World}
		hc := *c
		hc.World = h
		out = after(&hc, status, body)
		emitted = h.events
	}
	ans := body
	if out != nil {
		ans = out
	}
	if (Dialect{}).Restate(ans) != 0 {
		return out // the behaviour answered an error: the write is not what the event says
	}
	update := strings.HasSuffix(c.Event, ".updated")
	deleted := c.Method == "DELETE" && c.Before != nil
	if !update && !deleted && len(emitted) == 0 {
		// A create or an action whose behaviour emitted nothing: the
		// answer is carried as it is, so it is not read into an object
		// (the most of a create's cost, for an entity of many fields).
		if isObject(ans) {
			emitJSON(c.World, c, c.Event, ans, nil)
		}
		return out
	}
	o, raw := decode(ans), ans
	if deleted && o != nil && o.Has("deleted") {
		o, raw = decode(c.Before), c.Before
	}
	if o == nil || emittedAbout(emitted, c.Event, o.String("id")) {
		return out
	}
	var prev *object.Object
	if update {
		prev = changed(decode(c.Before), o)
	}
	emitJSON(c.World, c, c.Event, raw, prev)
	return out
}

// isObject reports whether body is a JSON object, as decode would read
// one, without building it.
func isObject(body []byte) bool {
	b := bytes.TrimLeft(body, " \t\r\n")
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}

// emittedAbout reports whether events (as kept) hold one of type typ
// about the object with id.
func emittedAbout(events [][]byte, typ, id string) bool {
	for _, body := range events {
		ev := decode(body)
		if ev == nil || ev.String("type") != typ {
			continue
		}
		if obj := child(child(ev, "data"), "object"); obj != nil && obj.String("id") == id {
			return true
		}
	}
	return false
}

// heard is a World that notes the events kept through it: a behaviour's,
// for answerDeclared. A World a behaviour wraps around it (the clock's)
// keeps through it too.
type heard struct {
	dialect.World
	events [][]byte
}

func (h *heard) Put(resource, id string, body []byte) error {
	if err := h.World.Put(resource, id, body); err != nil {
		return err
	}
	if resource == "event" {
		h.events = append(h.events, body)
	}
	return nil
}
