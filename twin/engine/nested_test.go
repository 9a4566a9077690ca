package engine

import (
	"net/url"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/scrub"
)

// nestedTwin declares a nested default (a price's recurring), a default
// for the elements of a nested list (a subscription's items) and an
// expansion (each item's price).
const nestedTwin = `format = 1
name = "nested"
provider = "stripe"

[errors.invalid_request]
status = 400
body = '{"error":{"message":"{message}","param":"{param}","type":"invalid_request_error"}}'

[[resources]]
name = "price"
collection = "/v1/prices"
item = "/v1/prices/{id}"
id_prefix = "price_"
skeleton = '{"id":"","object":"price","recurring":null,"unit_amount":0}'
[resources.nested_defaults]
recurring = '{"interval":"month","interval_count":1,"meter":null,"usage_type":"licensed"}'

[[resources]]
name = "subscription"
collection = "/v1/subscriptions"
item = "/v1/subscriptions/{id}"
id_prefix = "sub_"
timestamps = ["created"]
skeleton = '{"id":"","object":"subscription","created":0,"metadata":{},"items":{"object":"list","data":[],"has_more":false,"url":"/v1/subscription_items"}}'
[resources.nested_defaults]
"items.data[]" = '{"id":"$id:si_","object":"subscription_item","created":"$now","price":null,"quantity":1,"subscription":"$.id","note":"$$literal"}'
[[resources.expand]]
field = "items.data[].price"
resource = "price"
`

func newNested(tb testing.TB, opts Options) *Engine {
	tb.Helper()
	tw, err := format.Load(fstest.MapFS{"twin.toml": {Data: []byte(nestedTwin)}}, "nested")
	if err != nil {
		tb.Fatal(err)
	}
	opts.Scrubber = scrub.New(scrub.DeriveKey([]byte(tw.Digest)), scrub.Policy{})
	e, err := New(tw, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

func TestNestedDefaultMergesUnderParameters(t *testing.T) {
	e := newNested(t, Options{})
	tests := []struct {
		name, form string
		want       map[string]any
	}{
		{"interval only", "recurring[interval]=year", map[string]any{"interval": "year", "interval_count": 1.0, "meter": nil, "usage_type": "licensed"}},
		{"a string converted to the default's type", "recurring[interval_count]=3", map[string]any{"interval": "month", "interval_count": 3.0, "meter": nil, "usage_type": "licensed"}},
		{"a field the default lacks", "recurring[interval]=week&recurring[x]=1", map[string]any{"interval": "week", "interval_count": 1.0, "meter": nil, "usage_type": "licensed", "x": "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, p := serve(t, e, "POST", "/v1/prices", "s", tt.form)
			rec, _ := p["recurring"].(map[string]any)
			if w.Code != 200 || !sameJSON(rec, tt.want) {
				t.Errorf("want recurring %v, have %d %s", tt.want, w.Code, w.Body)
			}
		})
	}
	// A price without recurring keeps null: defaults apply under a parameter only.
	if _, p := serve(t, e, "POST", "/v1/prices", "s", "unit_amount=5"); p["recurring"] != nil {
		t.Errorf("no recurring parameter: want recurring null, have %v", p["recurring"])
	}
	// An update that sets recurring on a one-time price merges over the default too.
	_, p := serve(t, e, "POST", "/v1/prices", "s", "unit_amount=5")
	if _, u := serve(t, e, "POST", "/v1/prices/"+p["id"].(string), "s", "recurring[interval]=day"); !sameJSON(u["recurring"], map[string]any{"interval": "day", "interval_count": 1.0, "meter": nil, "usage_type": "licensed"}) {
		t.Errorf("update: want recurring merged over the default, have %v", u["recurring"])
	}
}

func TestNestedListElementsAndExpansion(t *testing.T) {
	e := newNested(t, Options{})
	_, price := serve(t, e, "POST", "/v1/prices", "s", "unit_amount=700&recurring[interval]=month")
	pid := price["id"].(string)
	w, sub := serve(t, e, "POST", "/v1/subscriptions", "s", "items[0][price]="+pid+"&items[0][quantity]=2&items[1][price]="+pid)
	data := sub["items"].(map[string]any)["data"].([]any)
	if w.Code != 200 || len(data) != 2 {
		t.Fatalf("want 2 items, have %d %s", w.Code, w.Body)
	}
	seen := map[string]bool{}
	for i, d := range data {
		item := d.(map[string]any)
		id, _ := item["id"].(string)
		if !strings.HasPrefix(id, "si_") || seen[id] {
			t.Errorf("item %d: want a new si_ id of its own, have %q", i, id)
		}
		seen[id] = true
		if item["object"] != "subscription_item" || item["subscription"] != sub["id"] || item["created"] != sub["created"] || item["note"] != "$literal" {
			t.Errorf("item %d: want the default's object, subscription, created and note, have %v", i, item)
		}
		if !sameJSON(item["price"], price) {
			t.Errorf("item %d: want the price object %v, have %v", i, price, item["price"])
		}
	}
	if q := []any{data[0].(map[string]any)["quantity"], data[1].(map[string]any)["quantity"]}; q[0] != 2.0 || q[1] != 1.0 {
		t.Errorf("quantities: want 2 (sent, as a number) and 1 (the default), have %v", q)
	}

	// The same requests in another session give the same ids.
	serve(t, e, "POST", "/v1/prices", "t", "unit_amount=700&recurring[interval]=month")
	_, again := serve(t, e, "POST", "/v1/subscriptions", "t", "items[0][price]="+pid+"&items[0][quantity]=2&items[1][price]="+pid)
	if !sameJSON(again, sub) {
		t.Errorf("same requests in another session: want the same answer\n%v\nhave\n%v", sub, again)
	}
}

func TestExpansionOfAnUnknownID(t *testing.T) {
	form := "items[0][price]=" + url.QueryEscape("price_nobody")
	t.Run("synthesize", func(t *testing.T) {
		w, sub := serve(t, newNested(t, Options{}), "POST", "/v1/subscriptions", "s", form)
		item := sub["items"].(map[string]any)["data"].([]any)[0].(map[string]any)
		price, _ := item["price"].(map[string]any)
		if w.Code != 200 || price["id"] != "price_nobody" || price["object"] != "price" {
			t.Errorf("want the price synthesized from its shape, have %d %s", w.Code, w.Body)
		}
	})
	t.Run("not_found", func(t *testing.T) {
		e := newNested(t, Options{UnknownEntity: NotFound})
		w, m := serve(t, e, "POST", "/v1/subscriptions", "s", form)
		msg, _ := m["error"].(map[string]any)["message"].(string)
		if w.Code != 400 || !strings.Contains(msg, "No such price: 'price_nobody'") {
			t.Errorf("want 400 No such price, have %d %s", w.Code, w.Body)
		}
		if w, l := serve(t, e, "GET", "/v1/subscriptions", "s", ""); len(l["data"].([]any)) != 0 {
			t.Errorf("a refused create stores nothing: have %d %s", w.Code, w.Body)
		}
	})
}

func sameJSON(a, b any) bool { return valueText(toObjectValue(a)) == valueText(toObjectValue(b)) }

// toObjectValue converts decoded JSON into package object's value set.
func toObjectValue(v any) any { return paramValue(v) }
