package stripe

import (
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/object"
)

func TestFilter(t *testing.T) {
	subs := []string{
		`{"id":"sub_1","status":"active","items":{"object":"list","data":[{"price":{"id":"price_a"},"current_period_start":100,"current_period_end":200},{"price":{"id":"price_b"},"current_period_start":150,"current_period_end":300}]}}`,
		`{"id":"sub_2","status":"canceled","items":{"object":"list","data":[{"price":{"id":"price_b"},"current_period_start":50,"current_period_end":120}]}}`,
		`{"id":"sub_3","status":"incomplete_expired","items":{"object":"list","data":[]}}`,
	}
	prices := []string{
		`{"id":"price_a","created":10,"lookup_key":"basic","recurring":{"interval":"month","usage_type":"licensed"},"product":{"id":"prod_1"}}`,
		`{"id":"price_b","created":20,"lookup_key":"pro","recurring":{"interval":"year","usage_type":"licensed"},"product":"prod_2"}`,
		`{"id":"price_c","created":30,"lookup_key":null,"recurring":null,"product":"prod_2"}`,
	}
	invoices := []string{
		`{"id":"in_1","parent":{"subscription_details":{"subscription":"sub_1"}}}`,
		`{"id":"in_2","parent":null}`,
	}
	for _, tc := range []struct {
		name     string
		resource string
		objects  []string
		param    string
		value    any
		want     string // ids kept; "-" when the dialect leaves the parameter to the engine
	}{
		{"created[gte]", "price", prices, "created", map[string]any{"gte": "20"}, "price_b price_c"},
		{"created[gt] and [lte]", "price", prices, "created", map[string]any{"gt": "10", "lte": "20"}, "price_b"},
		{"created[lt]", "price", prices, "created", map[string]any{"lt": "10"}, ""},
		{"created as a value is the engine's", "price", prices, "created", "10", "-"},
		{"recurring[interval]", "price", prices, "recurring", map[string]any{"interval": "year"}, "price_b"},
		{"recurring[interval] and [usage_type]", "price", prices, "recurring", map[string]any{"interval": "month", "usage_type": "licensed"}, "price_a"},
		{"lookup_keys[]", "price", prices, "lookup_keys", []any{"pro", "basic"}, "price_a price_b"},
		{"ids[] of products", "product", []string{`{"id":"prod_1"}`, `{"id":"prod_2"}`}, "ids", []any{"prod_2"}, "prod_2"},
		{"status=active", "subscription", subs, "status", "active", "sub_1"},
		{"status=all", "subscription", subs, "status", "all", "sub_1 sub_2 sub_3"},
		{"status=ended", "subscription", subs, "status", "ended", "sub_2 sub_3"},
		{"price: any item's", "subscription", subs, "price", "price_b", "sub_1 sub_2"},
		{"current_period_end: the earliest item's", "subscription", subs, "current_period_end", map[string]any{"gte": "150"}, "sub_1"},
		{"current_period_start: the latest item's", "subscription", subs, "current_period_start", map[string]any{"gte": "150"}, "sub_1"},
		{"an invoice's subscription", "invoice", invoices, "subscription", "sub_1", "in_1"},
		{"pending invoice items", "invoiceitem", []string{`{"id":"ii_1","invoice":null}`, `{"id":"ii_2","invoice":"in_1"}`}, "pending", "true", "ii_1"},
		{"events delivered", "event", []string{`{"id":"evt_1","pending_webhooks":0}`, `{"id":"evt_2","pending_webhooks":2}`}, "delivery_success", "true", "evt_1"},
		{"events not delivered", "event", []string{`{"id":"evt_1","pending_webhooks":0}`, `{"id":"evt_2","pending_webhooks":2}`}, "delivery_success", "false", "evt_2"},
		{"types[] of events", "event", []string{`{"id":"evt_1","type":"charge.refunded"}`, `{"id":"evt_2","type":"invoice.paid"}`}, "types", []any{"invoice.paid"}, "evt_2"},
		{"a plain value is the engine's", "charge", []string{`{"id":"ch_1"}`}, "customer", "cus_1", "-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			test, ok := Dialect{}.Filter(tc.resource, tc.param, tc.value)
			if !ok {
				if tc.want != "-" {
					t.Fatalf("want the dialect's test, have none")
				}
				return
			}
			if tc.want == "-" {
				t.Fatalf("want the parameter left to the engine, have a test")
			}
			if have := kept(t, tc.objects, test); have != tc.want {
				t.Errorf("want %q, have %q", tc.want, have)
			}
		})
	}
}

func TestDefaultFilter(t *testing.T) {
	subs := []string{`{"id":"sub_1","status":"active"}`, `{"id":"sub_2","status":"canceled"}`, `{"id":"sub_3","status":"incomplete_expired"}`}
	d := Dialect{}
	test := d.DefaultFilter("subscription", map[string]any{})
	if test == nil {
		t.Fatal("a subscription list without status: want the default of not canceled, have none")
	}
	if have := kept(t, subs, test); have != "sub_1 sub_3" {
		t.Errorf("a subscription list without status: want sub_1 sub_3 (all but canceled), have %q", have)
	}
	if d.DefaultFilter("subscription", map[string]any{"status": "all"}) != nil {
		t.Error("a subscription list naming status: want no default, have one")
	}
	if d.DefaultFilter("invoice", map[string]any{}) != nil {
		t.Error("an invoice list: want no default, have one")
	}
}

func kept(tb testing.TB, bodies []string, test func(*object.Object) bool) string {
	tb.Helper()
	var ids []string
	for _, b := range bodies {
		o, err := object.Parse([]byte(b))
		if err != nil {
			tb.Fatal(err)
		}
		if test(o) {
			ids = append(ids, o.String("id"))
		}
	}
	return strings.Join(ids, " ")
}
