package engine

import (
	"testing"
	"testing/fstest"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/scrub"
)

// textTwin derives a price's unit_amount_decimal and type from what the
// create sent, as Stripe does, with "$text.field" and rules in order.
const textTwin = `format = 1
name = "text"
provider = "stripe"

[[resources]]
name = "price"
collection = "/v1/prices"
item = "/v1/prices/{id}"
id_prefix = "price_"
skeleton = '{"id":"","object":"price","recurring":null,"type":"one_time","unit_amount":0,"unit_amount_decimal":null,"active":false}'
[[resources.create]]
when = { recurring = "*" }
set = { type = "recurring", unit_amount_decimal = "$text.unit_amount" }
[[resources.create]]
set = { type = "one_time", unit_amount_decimal = "$text.unit_amount" }
[[resources.actions]]
name = "flip"
[[resources.actions.rules]]
set = { unit_amount_decimal = "$text.active" }
[[resources.actions]]
name = "clear"
[[resources.actions.rules]]
set = { unit_amount_decimal = "$text.recurring" }
`

func TestRuleText(t *testing.T) {
	tw, err := format.Load(fstest.MapFS{"twin.toml": {Data: []byte(textTwin)}}, "text")
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(tw, Options{Scrubber: scrub.New(scrub.DeriveKey([]byte(tw.Digest)), scrub.Policy{})})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, form, action string
		want               map[string]any
	}{
		{"a number as its digits", "unit_amount=2500", "", map[string]any{"unit_amount_decimal": "2500", "type": "one_time"}},
		{"the first rule that holds", "unit_amount=900&recurring[interval]=month", "", map[string]any{"unit_amount_decimal": "900", "type": "recurring"}},
		{"a boolean as its word", "unit_amount=1&active=true", "flip", map[string]any{"unit_amount_decimal": "true"}},
		{"null stays null", "unit_amount=1", "clear", map[string]any{"unit_amount_decimal": nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, p := serve(t, e, "POST", "/v1/prices", "s", tt.form)
			if tt.action != "" {
				w, p = serve(t, e, "POST", "/v1/prices/"+p["id"].(string)+"/"+tt.action, "s", "")
			}
			if w.Code != 200 {
				t.Fatalf("want 200, have %d %s", w.Code, w.Body)
			}
			for k, want := range tt.want {
				if have, ok := p[k]; !ok || have != want {
					t.Errorf("%s: want %#v, have %#v", k, want, have)
				}
			}
		})
	}
}

func TestRuleTextNotInNestedDefaults(t *testing.T) {
	const twin = `format = 1
name = "text"
provider = "stripe"

[[resources]]
name = "price"
collection = "/v1/prices"
item = "/v1/prices/{id}"
skeleton = '{"id":"","object":"price","recurring":null}'
[resources.nested_defaults]
recurring = '{"interval":"$text.id"}'
`
	_, err := format.Load(fstest.MapFS{"twin.toml": {Data: []byte(twin)}}, "text")
	if err == nil {
		t.Fatal("want a nested default with $text.field refused, have it loaded")
	}
}
