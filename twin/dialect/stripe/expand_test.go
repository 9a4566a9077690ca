package stripe

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// expandFields are a few types' expandable fields, as the importer
// records them from Stripe's description.
var expandFields = map[string]map[string]string{
	"payment_intent": {"customer": "customer", "latest_charge": "charge", "last_payment_error.payment_method": "payment_method"},
	"charge":         {"balance_transaction": "balance_transaction", "customer": "customer", "refunds.data": "refund"},
	"refund":         {"balance_transaction": "balance_transaction"},
	"customer":       {"invoice_settings.default_payment_method": "payment_method"},
	"invoice":        {"discounts": "discount"},
}

func expandFieldsOf(typ string) map[string]string { return expandFields[typ] }

func TestExpansions(t *testing.T) {
	for _, tc := range []struct {
		name   string
		q      dialect.ExpandQuery
		expand any
		want   string // the refusal's message, "" for none
	}{
		{"an id", dialect.ExpandQuery{Resource: "payment_intent"}, []any{"customer"}, ""},
		{"expand=", dialect.ExpandQuery{Resource: "payment_intent"}, "customer", ""},
		{"expand[0] and [1]", dialect.ExpandQuery{Resource: "payment_intent"}, []any{"customer", "latest_charge.balance_transaction"}, ""},
		{"through a plain object", dialect.ExpandQuery{Resource: "payment_intent"}, []any{"last_payment_error.payment_method"}, ""},
		{"four levels", dialect.ExpandQuery{Resource: "payment_intent"}, []any{"latest_charge.refunds.data.balance_transaction"}, ""},
		{"five levels", dialect.ExpandQuery{Resource: "payment_intent"}, []any{"latest_charge.refunds.data.balance_transaction.x"}, "You cannot expand more than 4 levels of a property."},
		{"a field without an id", dialect.ExpandQuery{Resource: "payment_intent"}, []any{"metadata"}, "This property cannot be expanded (metadata)."},
		{"a plain object on the way, then nothing", dialect.ExpandQuery{Resource: "payment_intent"}, []any{"last_payment_error.code"}, "This property cannot be expanded (last_payment_error.code)."},
		{"beyond the expanded type's fields", dialect.ExpandQuery{Resource: "payment_intent"}, []any{"customer.nope"}, "This property cannot be expanded (customer.nope)."},
		{"an empty level", dialect.ExpandQuery{Resource: "payment_intent"}, []any{"customer..x"}, "This property cannot be expanded (customer..x)."},
		{"a list's data", dialect.ExpandQuery{Resource: "payment_intent", Page: true}, []any{"data.customer"}, ""},
		{"a list without data", dialect.ExpandQuery{Resource: "payment_intent", Page: true}, []any{"customer"}, "This property cannot be expanded (customer). You may want to try expanding 'data.customer' instead."},
		{"a list without data, no such field", dialect.ExpandQuery{Resource: "payment_intent", Page: true}, []any{"nope"}, "This property cannot be expanded (nope)."},
		{"a search's total_count", dialect.ExpandQuery{Resource: "customer", Page: true, Search: true}, []any{"total_count"}, ""},
		{"a list's total_count", dialect.ExpandQuery{Resource: "customer", Page: true}, []any{"total_count"}, "This property cannot be expanded (total_count)."},
		{"a type without declared fields is not checked", dialect.ExpandQuery{Resource: "checkout.session"}, []any{"anything.at.all"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.q.Fields = expandFieldsOf
			tc.q.Params = map[string]any{"expand": tc.expand}
			paths, refused := Dialect{}.Expansions(tc.q)
			have := ""
			if refused != nil {
				have = refused.Message
				// Stripe's "cannot be expanded" names no param.
				wantParam := ""
				if strings.HasPrefix(have, "You cannot expand more than") {
					wantParam = "expand"
				}
				if refused.Param != wantParam {
					t.Errorf("refusal's param: want %q, have %q", wantParam, refused.Param)
				}
			}
			if have != tc.want {
				t.Fatalf("want %q, have %q", tc.want, have)
			}
			if refused == nil && len(paths) == 0 {
				t.Errorf("want the paths asked for, have none")
			}
		})
	}
}

// expandSession is a fake of the engine's entities: bodies by id.
type expandSession map[string]string

func (s expandSession) Find(typ, id string) *object.Object {
	b, ok := s[id]
	if !ok {
		return nil
	}
	o, err := object.Parse([]byte(b))
	if err != nil {
		panic(err)
	}
	return o
}

// Referring scans the bodies in id order (newest first: the fake's ids
// count down).
func (s expandSession) Referring(typ, field, id string, limit int) ([]*object.Object, bool) {
	var out []*object.Object
	for _, k := range slices.Sorted(maps.Keys(s)) {
		o := s.Find("", k)
		if o.String("object") != typ || o.String(field) != id {
			continue
		}
		if len(out) == limit {
			return out, true
		}
		out = append(out, o)
	}
	return out, false
}

func (expandSession) Collection(typ string) string { return "/v1/" + typ + "s" }

func TestExpand(t *testing.T) {
	s := expandSession{
		"cus_1": `{"id":"cus_1","object":"customer","invoice_settings":{"default_payment_method":"pm_1"}}`,
		"pm_1":  `{"id":"pm_1","object":"payment_method","type":"card"}`,
		"ch_1":  `{"id":"ch_1","object":"charge","balance_transaction":"txn_1","refunds":{"object":"list","data":[{"id":"re_1","object":"refund","balance_transaction":"txn_2"}]}}`,
		"txn_1": `{"id":"txn_1","object":"balance_transaction","amount":2000}`,
		"txn_2": `{"id":"txn_2","object":"balance_transaction","amount":-500}`,
		"di_1":  `{"id":"di_1","object":"discount"}`,
		"re_2":  `{"id":"re_2","object":"refund","charge":"ch_2","balance_transaction":"txn_1"}`,
		"re_3":  `{"id":"re_3","object":"refund","charge":"ch_2","balance_transaction":null}`,
		"re_4":  `{"id":"re_4","object":"refund","charge":"ch_other","balance_transaction":null}`,
	}
	for _, tc := range []struct {
		name   string
		q      dialect.ExpandQuery
		paths  []string
		answer string
		want   string
	}{
		{"an id", dialect.ExpandQuery{Resource: "payment_intent"}, []string{"customer"},
			`{"id":"pi_1","customer":"cus_1","latest_charge":null}`,
			`{"id":"pi_1","customer":{"id":"cus_1","object":"customer","invoice_settings":{"default_payment_method":"pm_1"}},"latest_charge":null}`},
		{"a nested path through a plain object", dialect.ExpandQuery{Resource: "payment_intent"}, []string{"customer.invoice_settings.default_payment_method"},
			`{"id":"pi_1","customer":"cus_1"}`,
			`{"id":"pi_1","customer":{"id":"cus_1","object":"customer","invoice_settings":{"default_payment_method":{"id":"pm_1","object":"payment_method","type":"card"}}}}`},
		{"a list of a resource type, four levels", dialect.ExpandQuery{Resource: "payment_intent"}, []string{"latest_charge.refunds.data.balance_transaction"},
			`{"id":"pi_1","latest_charge":"ch_1"}`,
			`{"id":"pi_1","latest_charge":{"id":"ch_1","object":"charge","balance_transaction":"txn_1","refunds":{"object":"list","data":[{"id":"re_1","object":"refund","balance_transaction":{"id":"txn_2","object":"balance_transaction","amount":-500}}]}}}`},
		{"two paths sharing a level", dialect.ExpandQuery{Resource: "payment_intent"}, []string{"latest_charge", "latest_charge.balance_transaction"},
			`{"id":"pi_1","latest_charge":"ch_1"}`,
			`{"id":"pi_1","latest_charge":{"id":"ch_1","object":"charge","balance_transaction":{"id":"txn_1","object":"balance_transaction","amount":2000},"refunds":{"object":"list","data":[{"id":"re_1","object":"refund","balance_transaction":"txn_2"}]}}}`},
		{"an id the session lacks stays", dialect.ExpandQuery{Resource: "payment_intent"}, []string{"customer"},
			`{"id":"pi_1","customer":"cus_gone"}`,
			`{"id":"pi_1","customer":"cus_gone"}`},
		{"a list of ids", dialect.ExpandQuery{Resource: "invoice"}, []string{"discounts"},
			`{"id":"in_1","discounts":["di_1","di_gone"]}`,
			`{"id":"in_1","discounts":[{"id":"di_1","object":"discount"},"di_gone"]}`},
		{"a list Stripe includes when expanded", dialect.ExpandQuery{Resource: "charge"}, []string{"refunds.data.balance_transaction"},
			`{"id":"ch_2","object":"charge","refunds":null}`,
			`{"id":"ch_2","object":"charge","refunds":{"object":"list","data":[{"id":"re_2","object":"refund","charge":"ch_2","balance_transaction":{"id":"txn_1","object":"balance_transaction","amount":2000}},{"id":"re_3","object":"refund","charge":"ch_2","balance_transaction":null}],"has_more":false,"url":"/v1/charges/ch_2/refunds"}}`},
		{"an included list of none", dialect.ExpandQuery{Resource: "charge"}, []string{"refunds"},
			`{"id":"ch_9","object":"charge","refunds":null}`,
			`{"id":"ch_9","object":"charge","refunds":{"object":"list","data":[],"has_more":false,"url":"/v1/charges/ch_9/refunds"}}`},
		{"a page's data", dialect.ExpandQuery{Resource: "payment_intent", Page: true}, []string{"data.customer"},
			`{"object":"list","data":[{"id":"pi_1","customer":"cus_1"},{"id":"pi_2","customer":null}],"has_more":false}`,
			`{"object":"list","data":[{"id":"pi_1","customer":{"id":"cus_1","object":"customer","invoice_settings":{"default_payment_method":"pm_1"}}},{"id":"pi_2","customer":null}],"has_more":false}`},
		{"a search's total_count is the search's", dialect.ExpandQuery{Resource: "customer", Page: true, Search: true}, []string{"total_count"},
			`{"object":"search_result","data":[{"id":"cus_1"}],"total_count":1}`,
			`{"object":"search_result","data":[{"id":"cus_1"}],"total_count":1}`},
		{"a type without declared fields expands what the session holds", dialect.ExpandQuery{Resource: "checkout.session"}, []string{"customer", "currency"},
			`{"id":"cs_1","customer":"cus_1","currency":"usd"}`,
			`{"id":"cs_1","customer":{"id":"cus_1","object":"customer","invoice_settings":{"default_payment_method":"pm_1"}},"currency":"usd"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.q.Fields = expandFieldsOf
			o, err := object.Parse([]byte(tc.answer))
			if err != nil {
				t.Fatal(err)
			}
			changed := Dialect{}.Expand(tc.q, tc.paths, o, s)
			if have := string(o.AppendJSON(nil)); have != tc.want {
				t.Errorf("want %s\nhave %s", tc.want, have)
			}
			if changed != (tc.answer != tc.want) {
				t.Errorf("changed: want %v, have %v", tc.answer != tc.want, changed)
			}
		})
	}
}

// TestExpansionsOnce: a path sent twice is walked once.
func TestExpansionsOnce(t *testing.T) {
	q := dialect.ExpandQuery{Resource: "payment_intent", Fields: expandFieldsOf, Params: map[string]any{"expand": []any{"customer", "latest_charge", "customer"}}}
	paths, refused := Dialect{}.Expansions(q)
	if refused != nil || len(paths) != 2 || paths[0] != "customer" || paths[1] != "latest_charge" {
		t.Errorf("want [customer latest_charge], have %v %v", paths, refused)
	}
}
