package stripe

import (
	"strconv"
	"time"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// Prorations (docs.stripe.com/billing/subscriptions/prorations): an
// update that changes an item's price or quantity in the middle of a
// period credits the unused time at the old price and charges the time
// left at the new one, as pending invoice items (proration: true) that
// the next invoice bills. By proration_behavior:
//   - create_prorations (the default): the items wait for the next invoice;
//   - always_invoice: an invoice of them is made, finalized and charged now;
//   - none: no prorations.
// The time left is counted in seconds, the amount rounded to the nearest
// unit, as Stripe prorates. A trialing subscription, whose items cost
// nothing until the trial ends, is not prorated.

// prorate makes the prorations of an update from was to sub at c.Now,
// and, for always_invoice, their invoice; it returns that invoice, nil
// when none was made.
func prorate(c *dialect.Call, was, sub *object.Object) *object.Object {
	w := c.World
	behaviour := param(c, "proration_behavior")
	if behaviour == "none" || was == nil || sub.String("status") == "trialing" || !w.Has("invoiceitem") {
		return nil
	}
	start, end := periodStart(was), periodEnd(was)
	if end <= c.Now || end <= start {
		return nil
	}
	old := map[string]*object.Object{}
	for _, v := range items(was, "items") {
		if it, ok := v.(*object.Object); ok {
			old[it.String("id")] = it
		}
	}
	made := false
	for _, v := range items(sub, "items") {
		it, ok := v.(*object.Object)
		if !ok {
			continue
		}
		before := old[it.String("id")]
		delete(old, it.String("id"))
		if before != nil && sameBilling(before, it) {
			continue
		}
		if before != nil {
			made = prorationItem(c, sub, before, start, end, true) || made
		}
		made = prorationItem(c, sub, it, start, end, false) || made
	}
	for _, v := range items(was, "items") { // removed items: their unused time
		if it, ok := v.(*object.Object); ok && old[it.String("id")] != nil {
			made = prorationItem(c, sub, it, start, end, true) || made
		}
	}
	if !made || behaviour != "always_invoice" {
		return nil
	}
	cus := load(w, "customer", idOf(mustGet(sub, "customer")))
	if cus == nil {
		return nil
	}
	inv := invoiceHeader(w, sub, cus, "subscription_update", c.Now, c.Now)
	pullPending(w, inv, cus.String("id"))
	totals(inv)
	keep(w, "invoice", inv)
	emit(w, c, "invoice.created", inv, nil)
	finalize(w, c, inv, c.Now)
	collectAuto(w, c, inv, c.Now)
	return load(w, "invoice", inv.String("id"))
}

// sameBilling reports whether an item bills as before: its price and
// quantity unchanged.
func sameBilling(a, b *object.Object) bool {
	return idOf(mustGet(a, "price")) == idOf(mustGet(b, "price")) && integer(a, "quantity") == integer(b, "quantity")
}

// prorationItem keeps the pending invoice item of it's share of the
// period start to end from now: a credit of the unused time, or the
// charge of the time left. It reports whether it made one.
func prorationItem(c *dialect.Call, sub, it *object.Object, start, end int64, credit bool) bool {
	w := c.World
	pr := child(it, "price")
	ii := fresh(w, "invoiceitem")
	if pr == nil || ii == nil {
		return false
	}
	qty := integer(it, "quantity")
	full := integer(pr, "unit_amount") * qty
	// Rounded to the nearest unit: full * left / period, in integers.
	left, period := end-c.Now, end-start
	amount := (2*full*left + period) / (2 * period)
	name := pr.String("nickname")
	if prod := load(w, "product", idOf(mustGet(pr, "product"))); prod != nil && name == "" {
		name = prod.String("name")
	}
	after := time.Unix(c.Now, 0).UTC().Format("02 Jan 2006")
	desc := "Remaining time on " + strconv.FormatInt(qty, 10) + " × " + name + " after " + after
	if credit {
		amount = -amount
		desc = "Unused time on " + strconv.FormatInt(qty, 10) + " × " + name + " after " + after
	}
	ii.Set("amount", num(amount))
	ii.Set("currency", pr.String("currency"))
	ii.Set("customer", idOf(mustGet(sub, "customer")))
	ii.Set("date", num(c.Now))
	ii.Set("description", desc)
	ii.Set("discountable", false)
	ii.Set("net_amount", num(amount))
	parent := object.New(2)
	details := object.New(2)
	details.Set("subscription", sub.String("id"))
	details.Set("subscription_item", it.String("id"))
	parent.Set("subscription_details", details)
	parent.Set("type", "subscription_details")
	ii.Set("parent", parent)
	p := object.New(2)
	p.Set("end", num(end))
	p.Set("start", num(c.Now))
	ii.Set("period", p)
	ii.Set("pricing", pricing(pr))
	ii.Set("proration", true)
	ii.Set("quantity", num(qty))
	ii.Set("quantity_decimal", strconv.FormatInt(qty, 10))
	ii.Set("test_clock", mustGet(sub, "test_clock"))
	if keep(w, "invoiceitem", ii) == nil {
		return false
	}
	emit(w, c, "invoiceitem.created", ii, nil)
	return true
}
