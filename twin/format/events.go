package format

import (
	"maps"
	"slices"
)

// Events are the provider's event types for a resource's writes, the
// events part of behaviour as data (SPEC §14): Stripe sends
// customer.created when a customer is created, whatever else the create
// did. The engine names the type to its dialect with each 2xx write it
// answers (dialect.Call.Event); the dialect keeps and delivers the event
// in its provider's way. What data cannot say (an event only some
// answers cause, events in an order among others) the dialect emits
// itself.
type Events struct {
	Create string `toml:"create,omitzero"`
	Update string `toml:"update,omitzero"`
	// Delete is the event of DELETE {item}, whether it removes the
	// entity or runs on_delete (delete = "action").
	Delete string `toml:"delete,omitzero"`
	// Actions map an action's name to its event type.
	Actions map[string]string `toml:"actions,omitzero"`
}

// Type is the event type declared for op, one of the resource's
// operations (Resource.Operations); "" when none is.
func (e *Events) Type(op Operation) string {
	switch op.Op {
	case "create":
		return e.Create
	case "update":
		return e.Update
	case "delete":
		return e.Delete
	case "action":
		return e.Actions[op.Name]
	}
	return ""
}

// maxEventType bounds an event type's length: Stripe's longest is under
// 70 bytes, and a type is copied into every event kept.
const maxEventType = 128

// validEventType reports whether typ reads as an event type: words of
// letters, digits, "_" or "-", joined by dots ("customer.subscription.created",
// "issues").
func validEventType(typ string) bool {
	if typ == "" || len(typ) > maxEventType {
		return false
	}
	word := 0
	for _, c := range []byte(typ) {
		switch {
		case c == '.':
			if word == 0 {
				return false
			}
			word = 0
		case c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
			word++
		default:
			return false
		}
	}
	return word > 0
}

// validateEvents checks that each declared event names a well-formed
// type for an operation the resource has.
func validateEvents(r *Resource, at string, probs *Problems) {
	e := &r.Events
	has := map[string]bool{}
	for _, op := range r.Operations() {
		has[op.Op] = true
	}
	for _, x := range []struct{ op, typ string }{{"create", e.Create}, {"update", e.Update}, {"delete", e.Delete}} {
		switch {
		case x.typ == "":
		case !validEventType(x.typ):
			probs.addf("%s: events.%s %q: want an event type, words of letters, digits, _ or - joined by dots (\"customer.created\")", at, x.op, x.typ)
		case !has[x.op]:
			probs.addf("%s: events.%s %q: the resource has no %s (see omit, delete and create_paths): drop the event or declare the operation", at, x.op, x.typ, x.op)
		}
	}
	actions := map[string]bool{}
	for _, a := range r.Actions {
		actions[a.Name] = true
	}
	for _, name := range slices.Sorted(maps.Keys(e.Actions)) {
		typ := e.Actions[name]
		switch {
		case !actions[name]:
			probs.addf("%s: events.actions.%s: the resource declares no action %q: name one of its [[resources.actions]]", at, name, name)
		case !validEventType(typ):
			probs.addf("%s: events.actions.%s %q: want an event type, words of letters, digits, _ or - joined by dots (\"payment_intent.canceled\")", at, name, typ)
		}
	}
}
