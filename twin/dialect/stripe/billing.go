package stripe

import (
	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// Billing (SPEC §14, Stripe core): products and prices, invoices and
// their totals, subscriptions, and what the session's clock makes of them.
// Files: billing_catalog.go (products, prices, customers), billing_invoice.go
// (invoice items, invoices, paying them), billing_subscription.go
// (subscriptions and their first invoice), billing_clock.go (renewals on
// the session's clock, test clocks).

// billing adds the billing routes' behaviour.
func (b behaviours) billing() {
	b.also("DELETE /v1/customers/{id}", behaviour{before: customerDeleting})
	b["POST /v1/products"] = behaviour{after: productCreated, takes: []string{"default_price_data"}}
	b["POST /v1/prices"] = behaviour{after: priceCreated, takes: []string{"product_data"}}
	b["POST /v1/invoiceitems"] = behaviour{after: invoiceItemCreated, takes: []string{"pricing", "unit_amount_decimal"}}
	b["POST /v1/invoices"] = behaviour{after: invoiceCreated, takes: []string{"days_until_due", "pending_invoice_items_behavior"}}
	b["POST /v1/invoices/create_preview"] = behaviour{before: previewInvoice}
	b["POST /v1/invoices/{id}/finalize"] = behaviour{after: invoiceFinalized}
	b["POST /v1/invoices/{id}/pay"] = behaviour{before: payInvoice}
	b["POST /v1/invoices/{id}/void"] = behaviour{before: voidInvoice}
	b["POST /v1/invoices/{id}/mark_uncollectible"] = behaviour{after: invoiceUncollectible}
	b["POST /v1/subscriptions"] = behaviour{before: subscriptionRefused, after: subscriptionCreated, takes: subscriptionCreateTakes}
	b["POST /v1/subscriptions/{id}"] = behaviour{before: endTrialNow, after: subscriptionUpdated, takes: []string{"proration_behavior"}}
	b["DELETE /v1/subscriptions/{id}"] = behaviour{after: subscriptionDeleted, takes: []string{"cancellation_details"}}
	b["POST /v1/test_helpers/test_clocks"] = behaviour{after: testClockCreated}
	b["POST /v1/test_helpers/test_clocks/{id}/advance"] = behaviour{before: advanceTestClock}
}

// also adds x to route's behaviour, after what another file gave it: a
// route two files follow (a customer's create) runs both afters in turn,
// and the first before that answers wins.
func (b behaviours) also(route string, x behaviour) {
	prev, ok := b[route]
	if !ok {
		b[route] = x
		return
	}
	both := behaviour{takes: append(append([]string(nil), prev.takes...), x.takes...)}
	switch {
	case prev.before == nil:
		both.before = x.before
	case x.before == nil:
		both.before = prev.before
	default:
		both.before = func(c *dialect.Call) (dialect.Answer, bool) {
			if a, ok := prev.before(c); ok {
				return a, true
			}
			return x.before(c)
		}
	}
	switch {
	case prev.after == nil:
		both.after = x.after
	case x.after == nil:
		both.after = prev.after
	default:
		both.after = func(c *dialect.Call, status int, body []byte) []byte {
			if nb := prev.after(c, status, body); nb != nil {
				body = nb
			}
			if nb := x.after(c, status, body); nb != nil {
				return nb
			}
			return body
		}
	}
	b[route] = both
}

// renew runs the billing work that falls due between from and to
// (renewals, trial ends), in order (billing_clock.go).
func renew(w dialect.World, from, to int64) {
	if !w.Has("subscription") || !w.Has("invoice") {
		return
	}
	newClockWork(w, from, to).run()
}

// child is o's field k as an object, nil when it holds none.
func child(o *object.Object, k string) *object.Object {
	if o == nil {
		return nil
	}
	v, _ := o.Get(k)
	c, _ := v.(*object.Object)
	return c
}

// items is the data of o's list field k (a list envelope), nil when
// it has none.
func items(o *object.Object, k string) []any {
	l := child(o, k)
	if l == nil {
		return nil
	}
	d, _ := l.Get("data")
	a, _ := d.([]any)
	return a
}

// idOf is v's id: v itself when it is one, else an expanded object's.
func idOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case *object.Object:
		return x.String("id")
	}
	return ""
}

// paramMap is the request's parameter name as a nested map, nil when
// not sent as one.
func paramMap(c *dialect.Call, name string) map[string]any {
	m, _ := c.Params[name].(map[string]any)
	return m
}

// text is m's key k as a string ("" when none).
func text(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// previous is a previous_attributes object of keys and their old
// values, in the order given.
func previous(kv ...any) *object.Object {
	p := object.New(len(kv) / 2)
	for i := 0; i+1 < len(kv); i += 2 {
		p.Set(kv[i].(string), kv[i+1])
	}
	return p
}
