package stripe

import (
	"bytes"
	"net/http"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// Previews (docs.stripe.com/billing/invoices/subscription#previewing):
// POST /v1/invoices/create_preview shows the invoice a subscription's
// next period will make, with the customer's pending invoice items, as
// the clock will make it at the period's end; or, for a customer alone,
// the invoice of their pending items. Nothing is kept: the preview has no
// invoice of its own (its id says upcoming_), and the items stay pending.
// Changes to preview (subscription_details, invoice_items, discounts...)
// are not modelled and are reported ignored.

// previewInvoice answers a preview of subscription or customer.
func previewInvoice(c *dialect.Call) (dialect.Answer, bool) {
	w := c.World
	if !w.Has("invoice") {
		return dialect.Answer{}, false
	}
	var sub *object.Object
	if id := param(c, "subscription"); id != "" {
		if sub = load(w, "subscription", id); sub == nil {
			return stripeError(http.StatusBadRequest, invalidRequest("resource_missing", "subscription", "No such subscription: '"+id+"'")), true
		}
	}
	customer := param(c, "customer")
	if customer == "" && sub != nil {
		customer = idOf(mustGet(sub, "customer"))
	}
	cus := load(w, "customer", customer)
	if cus == nil {
		if customer == "" {
			return stripeError(http.StatusBadRequest, invalidRequest("parameter_missing", "customer",
				"Missing required param: customer. Send the customer or the subscription whose next invoice to preview.")), true
		}
		return stripeError(http.StatusBadRequest, invalidRequest("resource_missing", "customer", "No such customer: '"+customer+"'")), true
	}
	var inv *object.Object
	if sub != nil && renews(sub) {
		at := periodEnd(sub)
		end := next(at, integer(sub, "billing_cycle_anchor"), firstPrice(sub))
		inv = billSubscription(w, sub, cus, "upcoming", at, periodStart(sub), at, end, false)
	} else {
		inv = fresh(w, "invoice")
		inv.Set("billing_reason", "upcoming")
		inv.Set("customer", cus.String("id"))
		billTo(inv, cus)
	}
	inv.Set("id", "upcoming_"+inv.String("id"))
	for _, ii := range pendingItems(w, cus.String("id")) {
		addLine(inv, itemLine(w, ii, inv.String("id")))
	}
	if len(items(inv, "lines")) == 0 {
		return stripeError(http.StatusBadRequest, invalidRequest("invoice_upcoming_none", "",
			"Nothing to invoice for customer: the customer has no pending invoice items and no subscription that renews.")), true
	}
	totals(inv)
	return dialect.Answer{Status: http.StatusOK, Body: inv.AppendJSON(nil), Ignored: unacted(c, "customer", "subscription")}, true
}

// renews reports whether sub's period ends in another invoice: it is
// not canceled, nor canceled at the period's end.
func renews(sub *object.Object) bool {
	switch sub.String("status") {
	case "canceled", "incomplete_expired":
		return false
	}
	v, _ := sub.Get("cancel_at_period_end")
	return v != true
}

// pendingItems are the customer's invoice items on no invoice yet,
// oldest first: what their next invoice bills.
func pendingItems(w dialect.World, customer string) []*object.Object {
	var pending []*object.Object
	w.Each("invoiceitem", func(b []byte) bool {
		// Most items are on an invoice: a renewal looks at every item,
		// so only a pending one is read as an object.
		if !bytes.Contains(b, []byte(`"invoice":null`)) {
			return true
		}
		ii := decode(b)
		if ii != nil && ii.String("customer") == customer && mustGet(ii, "invoice") == nil {
			pending = append(pending, ii)
		}
		return true
	})
	for i, j := 0, len(pending)-1; i < j; i, j = i+1, j-1 {
		pending[i], pending[j] = pending[j], pending[i]
	}
	return pending
}
