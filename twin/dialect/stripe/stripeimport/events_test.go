package stripeimport

import (
	"reflect"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/format"
)

// someEvents are event types as Stripe's enabled_events lists them.
var someEvents = eventSet(
	"customer.created", "customer.updated", "customer.deleted",
	"customer.subscription.created", "customer.subscription.deleted",
	"customer.source.created", "source.chargeable",
	"charge.dispute.created", "charge.updated", "charge.captured",
	"issuing_card.created", "billing.meter.created", "billing.meter.deactivated",
	"invoice.finalized", "invoice.marked_uncollectible", "invoice.voided", "invoice.paid",
	"a.widget.created", "b.widget.created",
)

func eventSet(types ...string) eventTypes {
	ev := eventTypes{}
	for _, typ := range types {
		ev[typ] = true
	}
	return ev
}

func TestEventPrefix(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"customer", "customer"},
		{"billing.meter", "billing.meter"},
		{"issuing.card", "issuing_card"},          // Stripe spells it with an underscore
		{"subscription", "customer.subscription"}, // named under its owner
		{"dispute", "charge.dispute"},             // the same
		{"source", "source"},                      // its own events (source.chargeable), not customer.source.*, which attach one
		{"widget", ""},                            // two owners: no one type
		{"bank_account", ""},                      // no event
		{"checkout.session", ""},                  // a dotted name has no owner
	} {
		if have := someEvents.prefix(tc.name); have != tc.want {
			t.Errorf("prefix(%q): want %q, have %q", tc.name, tc.want, have)
		}
	}
}

func TestPastTense(t *testing.T) {
	for verb, want := range map[string]string{"cancel": "canceled", "finalize": "finalized", "void": "voided", "mark_uncollectible": "marked_uncollectible", "capture": "captured", "pay": "paid", "send": "sent", "submit": "submitted"} {
		if have := pastTense(verb); have != want {
			t.Errorf("pastTense(%q): want %q, have %q", verb, want, have)
		}
	}
}

// TestEventsOfOperations: a resource declares the listed events of the
// operations it has, and none of those it lacks or the list lacks.
func TestEventsOfOperations(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    format.Resource
		want format.Events
	}{
		{"every write", format.Resource{Name: "customer", Collection: "/v1/customers", Item: "/v1/customers/{id}"},
			format.Events{Create: "customer.created", Update: "customer.updated", Delete: "customer.deleted"}},
		{"no delete, no update event", format.Resource{Name: "subscription", Collection: "/v1/subscriptions", Item: "/v1/subscriptions/{id}", Delete: "none"},
			format.Events{Create: "customer.subscription.created"}},
		{"create omitted", format.Resource{Name: "charge", Collection: "/v1/charges", Item: "/v1/charges/{id}", Omit: []string{"create"}, Delete: "none",
			Actions: []format.Action{{Name: "capture"}, {Name: "refund"}}},
			format.Events{Update: "charge.updated", Actions: map[string]string{"capture": "charge.captured"}}},
		{"actions", format.Resource{Name: "invoice", Collection: "/v1/invoices", Item: "/v1/invoices/{id}", Delete: "none",
			Actions: []format.Action{{Name: "finalize"}, {Name: "mark_uncollectible"}, {Name: "pay"}, {Name: "send"}, {Name: "void"}}},
			format.Events{Actions: map[string]string{"finalize": "invoice.finalized", "mark_uncollectible": "invoice.marked_uncollectible", "pay": "invoice.paid", "void": "invoice.voided"}}},
		{"none", format.Resource{Name: "bank_account", Collection: "/v1/bank_accounts", Item: "/v1/bank_accounts/{id}"}, format.Events{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if have := someEvents.events(&tc.r); !reflect.DeepEqual(tc.want, have) {
				t.Errorf("want %+v, have %+v", tc.want, have)
			}
		})
	}
}

// TestReadEventTypes reads the enum of a webhook endpoint's
// enabled_events, without "*", which names every type.
func TestReadEventTypes(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData([]byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{"/v1/webhook_endpoints":{"post":{
		"requestBody":{"content":{"application/x-www-form-urlencoded":{"schema":{"type":"object","properties":{
			"enabled_events":{"type":"array","items":{"type":"string","enum":["*","customer.created","invoice.paid"]}}}}}}},
		"responses":{"200":{"description":"ok"}}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if have, want := readEventTypes(doc), eventSet("customer.created", "invoice.paid"); !reflect.DeepEqual(want, have) {
		t.Errorf("want %v, have %v", want, have)
	}
	empty, err := openapi3.NewLoader().LoadFromData([]byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	if have := readEventTypes(empty); have != nil {
		t.Errorf("a description without webhook endpoints: want no event types, have %v", have)
	}
}
