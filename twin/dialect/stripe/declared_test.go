package stripe

import (
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// TestDeclaredEvents drives Answered with the event the twin declares for
// a write, on routes with and without behaviour of their own: the event
// is emitted once, about the answer as the behaviour left it, and not at
// all where the behaviour emitted it itself or answered an error.
func TestDeclaredEvents(t *testing.T) {
	// widget's behaviour emits widget.created itself, after a gadget's:
	// its own order, which the declared event must not repeat.
	own := func(c *dialect.Call, _ int, body []byte) []byte {
		emit(c.World, c, "gadget.created", customer("gad_1"), nil)
		emitJSON(c.World, c, "widget.created", body, nil)
		return nil
	}
	// completing's behaviour completes the answer and emits nothing.
	completing := func(c *dialect.Call, _ int, body []byte) []byte {
		o := decode(body)
		o.Set("done", true)
		return o.AppendJSON(nil)
	}
	// declining's answers an error in place of the engine's 2xx.
	declining := func(*dialect.Call, int, []byte) []byte {
		return []byte(`{"error":{"type":"card_error","code":"card_declined"}}`)
	}
	// through's emits its event through a World of its own around the
	// call's, as the clock's work does.
	through := func(c *dialect.Call, _ int, body []byte) []byte {
		emitJSON(&clockWorld{World: c.World, version: defaultAPIVersion}, c, "sub.updated", body, nil)
		return nil
	}
	d := Dialect{b: behaviours{
		"POST /widgets":     {after: own},
		"POST /completes":   {after: completing},
		"POST /declines":    {after: declining},
		"POST /subs/{id}":   {after: through},
		"POST /gizmos/{id}": {},
	}}
	for _, tc := range []struct {
		name, method, route, event string
		before, body               string
		want                       []string // type, data.object and previous_attributes of each event kept
	}{
		{"no behaviour", "POST", "POST /things", "thing.created", "", `{"id":"th_1","object":"thing"}`,
			[]string{`thing.created {"id":"th_1","object":"thing"} -`}},
		{"the behaviour's own wins", "POST", "POST /widgets", "widget.created", "", `{"id":"wid_1","object":"widget"}`,
			[]string{`gadget.created {"id":"gad_1","object":"customer"} -`, `widget.created {"id":"wid_1","object":"widget"} -`}},
		{"about the completed answer", "POST", "POST /completes", "complete.created", "", `{"id":"co_1"}`,
			[]string{`complete.created {"id":"co_1","done":true} -`}},
		{"an error answered", "POST", "POST /declines", "decline.created", "", `{"id":"de_1"}`, nil},
		{"an update names what changed", "POST", "POST /gizmos/{id}", "gizmo.updated", `{"id":"gz_1","n":1,"m":2}`, `{"id":"gz_1","n":3,"m":2}`,
			[]string{`gizmo.updated {"id":"gz_1","n":3,"m":2} {"n":1}`}},
		{"a deleted confirmation carries the entity as it was", "DELETE", "DELETE /gizmos/{id}", "gizmo.deleted", `{"id":"gz_1","n":1}`, `{"id":"gz_1","object":"gizmo","deleted":true}`,
			[]string{`gizmo.deleted {"id":"gz_1","n":1} -`}},
		{"a delete that changed the entity carries the answer", "DELETE", "DELETE /gizmos/{id}", "gizmo.deleted", `{"id":"gz_1","status":"active"}`, `{"id":"gz_1","status":"canceled"}`,
			[]string{`gizmo.deleted {"id":"gz_1","status":"canceled"} -`}},
		{"through another World", "POST", "POST /subs/{id}", "sub.updated", `{"id":"sub_1"}`, `{"id":"sub_1"}`,
			[]string{`sub.updated {"id":"sub_1"} -`}},
		{"another object's event of the type does not count", "POST", "POST /widgets", "gadget.created", "", `{"id":"wid_2","object":"widget"}`,
			[]string{`gadget.created {"id":"gad_1","object":"customer"} -`, `widget.created {"id":"wid_2","object":"widget"} -`, `gadget.created {"id":"wid_2","object":"widget"} -`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newMemWorld("event")
			c := call()
			c.Method, c.Route, c.Event, c.World = tc.method, tc.route, tc.event, w
			if tc.before != "" {
				c.Before = []byte(tc.before)
			}
			d.Answered(c, 200, []byte(tc.body))
			var have []string
			for _, ev := range w.kept["event"] {
				data := child(ev, "data")
				obj, _ := data.Get("object")
				prev := "-"
				if p, ok := data.Get("previous_attributes"); ok {
					prev = string(object.AppendValue(nil, p))
				}
				have = append(have, ev.String("type")+" "+string(object.AppendValue(nil, obj))+" "+prev)
			}
			if strings.Join(have, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("events kept:\nwant %s\nhave %s", strings.Join(tc.want, "\n"), strings.Join(have, "\n"))
			}
		})
	}
}

// TestAnsweredWithoutEventRunsTheBehaviourAlone: a write the twin
// declares no event for runs its route's behaviour and emits nothing.
func TestAnsweredWithoutEventRunsTheBehaviourAlone(t *testing.T) {
	w := newMemWorld("event")
	ran := false
	d := Dialect{b: behaviours{"POST /widgets": {after: func(*dialect.Call, int, []byte) []byte { ran = true; return nil }}}}
	c := call()
	c.Method, c.Route, c.World = "POST", "POST /widgets", w
	d.Answered(c, 200, []byte(`{"id":"wid_1"}`))
	if !ran || len(w.kept["event"]) != 0 {
		t.Errorf("want the behaviour run and no event, have ran=%t and %d events", ran, len(w.kept["event"]))
	}
}
