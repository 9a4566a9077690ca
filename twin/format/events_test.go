package format

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

// eventsTwin is goodManifest's widget with an action and a delete that
// runs one, so that every kind of event has an operation to name. keys
// go before the skeleton (plain keys), tables after it.
func eventsTwin(keys, tables string) string {
	return strings.Replace(goodManifest, "skeleton", keys+"skeleton", 1) + tables +
		"[[resources.actions]]\nname = \"cancel\"\n"
}

func TestEventsValidate(t *testing.T) {
	for _, tc := range []struct{ name, keys, tables, want string }{
		{"every kind", "", "[resources.events]\ncreate = \"widget.created\"\nupdate = \"widget.updated\"\ndelete = \"widget.deleted\"\nactions = { cancel = \"widget.canceled\" }\n", ""},
		{"a nested type", "", "[resources.events]\ncreate = \"customer.subscription.created\"\n", ""},
		{"none", "", "", ""},
		{"delete that runs an action", "delete = \"action\"\n", "[resources.on_delete]\nname = \"cancel\"\n[resources.events]\ndelete = \"widget.deleted\"\n", ""},
		{"unknown key", "", "[resources.events]\ncreated = \"widget.created\"\n", `unknown key "resources.events.created"`},
		{"empty word", "", "[resources.events]\ncreate = \"widget..created\"\n", `events.create "widget..created": want an event type`},
		{"trailing dot", "", "[resources.events]\ncreate = \"widget.\"\n", `events.create "widget.": want an event type`},
		{"space", "", "[resources.events]\nupdate = \"widget updated\"\n", `events.update "widget updated": want an event type`},
		{"too long", "", "[resources.events]\nupdate = \"" + strings.Repeat("w", maxEventType+1) + "\"\n", "events.update"},
		{"create omitted", "omit = [\"create\"]\n", "[resources.events]\ncreate = \"widget.created\"\n", `events.create "widget.created": the resource has no create`},
		{"update omitted", "omit = [\"update\"]\n", "[resources.events]\nupdate = \"widget.updated\"\n", `events.update "widget.updated": the resource has no update`},
		{"no delete", "delete = \"none\"\n", "[resources.events]\ndelete = \"widget.deleted\"\n", `events.delete "widget.deleted": the resource has no delete`},
		{"unknown action", "", "[resources.events]\nactions = { refund = \"widget.refunded\" }\n", `events.actions.refund: the resource declares no action "refund"`},
		{"bad action type", "", "[resources.events]\nactions = { cancel = \"widget/canceled\" }\n", `events.actions.cancel "widget/canceled": want an event type`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(fstest.MapFS{"twin.toml": {Data: []byte(eventsTwin(tc.keys, tc.tables))}}, "demo")
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("want no error, have %v", err)
			case tc.want != "" && err == nil:
				t.Errorf("want an error with %q, have none", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Errorf("want an error with %q, have %v", tc.want, err)
			case tc.want != "" && !strings.Contains(err.Error(), "twin.toml"):
				t.Errorf("want the error to name the file, have %v", err)
			}
		})
	}
}

// TestEventsType: each operation of a resource finds its own event, and
// the operations without one (a read, an action not named) find none.
func TestEventsType(t *testing.T) {
	r := Resource{Name: "widget", Collection: "/widgets", Item: "/widgets/{id}", Actions: []Action{{Name: "cancel"}, {Name: "close"}},
		Events: Events{Create: "widget.created", Update: "widget.updated", Delete: "widget.deleted", Actions: map[string]string{"cancel": "widget.canceled"}}}
	var have []string
	for _, op := range r.Operations() {
		have = append(have, op.Method+" "+op.Path+" "+r.Events.Type(op))
	}
	want := []string{
		"GET /widgets ", "POST /widgets widget.created", "GET /widgets/{id} ", "POST /widgets/{id} widget.updated",
		"DELETE /widgets/{id} widget.deleted", "POST /widgets/{id}/cancel widget.canceled", "POST /widgets/{id}/close ",
	}
	if !reflect.DeepEqual(want, have) {
		t.Errorf("want %q, have %q", want, have)
	}
}

// TestEventsWritten: the writer writes [resources.events] and the loader
// reads the same events back; a resource without events writes no table.
func TestEventsWritten(t *testing.T) {
	ev := Events{Create: "widget.created", Delete: "widget.deleted", Actions: map[string]string{"cancel": "widget.canceled"}}
	m := Manifest{Format: Version, Name: "demo", Resources: []Resource{
		{Name: "widget", Collection: "/widgets", Item: "/widgets/{id}", IDPrefix: "wid_", Skeleton: `{"id":""}`, Actions: []Action{{Name: "cancel"}}, Events: ev},
		{Name: "gadget", Collection: "/gadgets", Item: "/gadgets/{id}", IDPrefix: "gad_", Skeleton: `{"id":""}`},
	}}
	var buf bytes.Buffer
	if err := WriteManifest(&buf, &m); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "[resources.events]"); n != 1 {
		t.Fatalf("want one [resources.events] table, have %d:\n%s", n, buf.Bytes())
	}
	tw, err := Load(fstest.MapFS{"twin.toml": {Data: buf.Bytes()}}, "demo")
	if err != nil {
		t.Fatalf("load what was written: %v\n%s", err, buf.Bytes())
	}
	if have := tw.Manifest.Resources[0].Events; !reflect.DeepEqual(ev, have) {
		t.Errorf("widget's events: want %+v, have %+v", ev, have)
	}
	if have := tw.Manifest.Resources[1].Events; !reflect.DeepEqual(Events{}, have) {
		t.Errorf("gadget's events: want none, have %+v", have)
	}
}
