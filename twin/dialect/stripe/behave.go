package stripe

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// Stripe's behaviour (SPEC §14): what a write does beyond the entity the
// twin's resources declare. The states, transitions and guards a resource
// declares (create rules, actions with from, rules that fail) are data in
// twin.toml and run in the engine; what data cannot say runs here, by
// route, through the session's World:
//
//   - before a write (behaviour.before): a refusal only Stripe's state
//     knows (a refund past what is left), or the whole answer of a route
//     whose effects reach several entities;
//   - after the engine answered a write (behaviour.after): the effects the
//     answer implies (a succeeded payment intent's charge and balance
//     transaction), returning the answer completed with them;
//   - on the session's clock (Tick): renewals and trial ends.
//
// Each file adds its routes: payments.go, billing.go, events.go; the
// events a twin declares for its writes are emitted in declared.go. A twin
// that declares only some resources (checkout, billing, recorded) gets
// the effects on those it has: World.Has says which.

// behaviour is what one route does beyond the engine.
type behaviour struct {
	// before answers the request itself (ok), or declines and the
	// engine serves it. nil: always declines.
	before func(c *dialect.Call) (a dialect.Answer, ok bool)
	// after completes the engine's 2xx answer of a write, returning the
	// new body, or nil to keep it. nil: keeps it.
	after func(c *dialect.Call, status int, body []byte) []byte
	// takes are the top-level parameters before or after acts on that
	// name no field of the entity (trial_period_days), which the answer
	// therefore does not report ignored (dialect.Taker).
	takes []string
}

// behaviours are the routes Stripe's behaviour covers, by route template
// ("POST /v1/refunds").
type behaviours map[string]behaviour

// newBehaviours gathers every file's routes.
func newBehaviours() behaviours {
	b := behaviours{}
	b.payments()
	b.billing()
	b.events()
	return b
}

// Handles reports whether route has behaviour beyond the engine's.
func (d Dialect) Handles(route string) bool {
	_, ok := d.b[route]
	return ok
}

// Handle runs route's before, on a write (a read has no World).
func (d Dialect) Handle(c *dialect.Call) (dialect.Answer, bool) {
	b, ok := d.b[c.Route]
	if !ok || b.before == nil || c.World == nil {
		return dialect.Answer{}, false
	}
	return b.before(c)
}

// Follows reports whether route has an after.
func (d Dialect) Follows(route string) bool { return d.b[route].after != nil }

// Answered runs route's after on a write the engine answered with a 2xx,
// then emits the event the twin declares for the write (declared.go).
func (d Dialect) Answered(c *dialect.Call, status int, body []byte) []byte {
	if c.World == nil {
		return nil
	}
	b := d.b[c.Route]
	if c.Event != "" {
		return answerDeclared(c, b.after, status, body)
	}
	if b.after == nil {
		return nil
	}
	return b.after(c, status, body)
}

// Takes reports whether route's behaviour acts on param.
func (d Dialect) Takes(route, param string) bool {
	return slices.Contains(d.b[route].takes, param)
}

var _ dialect.Taker = Dialect{}

// Tick runs what falls due as the session's clock moves (billing.go).
func (d Dialect) Tick(w dialect.World, from, to int64) {
	if d.b == nil {
		return
	}
	renew(&clockWorld{World: w, version: accountVersion(w, nil)}, from, to)
}

// clockWorld is the World of the clock's work, which knows the account's
// API version for all of it: no request names one, and the work of one
// move (a year of renewals) makes thousands of events, each of which
// would otherwise look it up in the event log again.
type clockWorld struct {
	dialect.World
	version string
}

// The helpers below read and write entities as ordered objects (package
// object), so a changed entity keeps its fields in Stripe's order.
// Numbers are json.Number; amounts are whole numbers of the currency's
// smallest unit.

// load decodes the entity of resource with id from w; nil when the
// session has none.
func load(w dialect.World, resource, id string) *object.Object {
	return decode(w.Get(resource, id))
}

// decode reads body as an object; nil when it is none.
func decode(body []byte) *object.Object {
	if body == nil {
		return nil
	}
	o, err := object.Parse(body)
	if err != nil {
		return nil
	}
	return o
}

// fresh is a new entity of resource from w's skeleton (a fresh id, the
// session's time), nil when the twin declares none.
func fresh(w dialect.World, resource string) *object.Object {
	o, err := w.New(resource)
	if err != nil {
		return nil
	}
	return o
}

// keep saves o as the session's entity of resource and returns its JSON
// as kept (nil when the twin declares no such resource).
func keep(w dialect.World, resource string, o *object.Object) []byte {
	if w.Put(resource, o.String("id"), o.AppendJSON(nil)) != nil {
		return nil
	}
	return w.Get(resource, o.String("id"))
}

// integer is o's field k as a whole number, 0 when it is none.
func integer(o *object.Object, k string) int64 {
	v, _ := o.Get(k)
	switch n := v.(type) {
	case json.Number:
		i, err := n.Int64()
		if err == nil {
			return i
		}
	case string: // a form parameter as sent
		i, err := strconv.ParseInt(n, 10, 64)
		if err == nil {
			return i
		}
	}
	return 0
}

// num is n as the JSON number an entity holds.
func num(n int64) json.Number { return json.Number(strconv.FormatInt(n, 10)) }

// param is the request's parameter name as a string ("" when not sent or
// not a string).
func param(c *dialect.Call, name string) string {
	s, _ := c.Params[name].(string)
	return s
}
