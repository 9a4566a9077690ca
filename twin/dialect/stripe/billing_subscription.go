package stripe

import (
	"net/http"
	"strconv"
	"time"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// Subscriptions: a trial or a first period from the items' prices, the
// first invoice and its payment as payment_behavior says, cancelation now
// or at the period's end. The periods live on the items
// (current_period_start, current_period_end), as in Stripe's description.

// subscriptionCreateTakes are the create's parameters the behaviour acts
// on that name no field of the subscription. proration_behavior changes
// nothing on a create without billing_cycle_anchor, as at Stripe (there is
// no partial period to prorate).
var subscriptionCreateTakes = []string{"trial_period_days", "payment_behavior", "proration_behavior", "off_session", "add_invoice_items"}

// subscriptionCreated starts the subscription the engine made: its trial
// (trial_period_days or trial_end) or first period, the invoice for it
// (nothing due while trialing), and that invoice's payment:
//   - default_incomplete: the invoice stays open, the subscription
//     incomplete, until the invoice is paid;
//   - allow_incomplete (the default), error_if_incomplete: the amount is
//     collected now; a decline leaves the subscription incomplete;
//   - collection_method=send_invoice: the invoice is open with its due
//     date (days_until_due) and the subscription active.
func subscriptionCreated(c *dialect.Call, _ int, body []byte) []byte {
	w := c.World
	sub := decode(body)
	if sub == nil || !w.Has("invoice") {
		return nil
	}
	now := c.Now
	cus := load(w, "customer", idOf(mustGet(sub, "customer")))
	var trialEnd int64
	if d, err := strconv.ParseInt(param(c, "trial_period_days"), 10, 64); err == nil && d > 0 {
		trialEnd = now + d*day
	} else if param(c, "trial_end") == "now" {
		sub.Set("trial_end", nil)
	} else if te := integer(sub, "trial_end"); te > now {
		trialEnd = te
	}
	first := firstPrice(sub)
	if sub.String("currency") == "" && first != nil {
		sub.Set("currency", first.String("currency"))
	}
	anchor, end := now, next(now, now, first)
	if trialEnd > 0 {
		anchor, end = trialEnd, trialEnd
		sub.Set("status", "trialing")
		sub.Set("trial_end", num(trialEnd))
		sub.Set("trial_start", num(now))
	}
	setPeriod(sub, now, end)
	sub.Set("billing_cycle_anchor", num(anchor))
	sub.Set("start_date", num(now))
	if cus != nil {
		sub.Set("test_clock", idOrNil(cus, "test_clock"))
	}
	if v, _ := sub.Get("cancel_at_period_end"); v == true {
		sub.Set("cancel_at", num(end))
	}
	inv := subscriptionInvoice(w, c, sub, cus, "subscription_create", now, now, now, end, trialEnd > 0)
	addInvoiceItems(c, sub, inv)
	sub.Set("latest_invoice", inv.String("id"))
	charge := sub.String("collection_method") != "send_invoice" && integer(inv, "amount_due") > 0
	if charge {
		sub.Set("status", "incomplete") // until the first invoice is paid
	}
	keep(w, "subscription", sub)
	emit(w, c, "customer.subscription.created", sub, nil)
	emit(w, c, "invoice.created", inv, nil)
	finalize(w, c, inv, now)
	if !charge || param(c, "payment_behavior") != "default_incomplete" {
		collectAuto(w, c, inv, now)
	}
	return expandField(c, w.Get("subscription", sub.String("id")), "latest_invoice", "invoice")
}

// addInvoiceItems adds the one-off items of add_invoice_items (each a
// price and quantity) to the subscription's first invoice, as invoice
// items of it, billed even during a trial.
func addInvoiceItems(c *dialect.Call, sub, inv *object.Object) {
	w := c.World
	list, _ := c.Params["add_invoice_items"].([]any)
	added := false
	for _, v := range list {
		m, _ := v.(map[string]any)
		pr := load(w, "price", text(m, "price"))
		if pr == nil {
			continue
		}
		qty := int64(1)
		if n, err := strconv.ParseInt(text(m, "quantity"), 10, 64); err == nil && n > 0 {
			qty = n
		}
		ii := fresh(w, "invoiceitem")
		if ii == nil {
			return
		}
		amount := integer(pr, "unit_amount") * qty
		ii.Set("amount", num(amount))
		ii.Set("currency", pr.String("currency"))
		ii.Set("customer", idOf(mustGet(sub, "customer")))
		ii.Set("date", num(c.Now))
		ii.Set("invoice", inv.String("id"))
		ii.Set("net_amount", num(amount))
		parent := object.New(2)
		details := object.New(1)
		details.Set("subscription", sub.String("id"))
		parent.Set("subscription_details", details)
		parent.Set("type", "subscription_details")
		ii.Set("parent", parent)
		period := object.New(2)
		period.Set("end", num(c.Now))
		period.Set("start", num(c.Now))
		ii.Set("period", period)
		ii.Set("pricing", pricing(pr))
		ii.Set("quantity", num(qty))
		ii.Set("quantity_decimal", strconv.FormatInt(qty, 10))
		ii.Set("test_clock", mustGet(sub, "test_clock"))
		if keep(w, "invoiceitem", ii) == nil {
			return
		}
		addLine(inv, itemLine(w, ii, inv.String("id")))
		added = true
	}
	if added {
		totals(inv)
		keep(w, "invoice", inv)
	}
}

// firstPrice is the price of sub's first item, nil for none.
func firstPrice(sub *object.Object) *object.Object {
	for _, v := range items(sub, "items") {
		if it, ok := v.(*object.Object); ok {
			if pr := child(it, "price"); pr != nil {
				return pr
			}
		}
	}
	return nil
}

// periodEnd is the end of sub's current period, on its first item (0 for
// a subscription without items).
func periodEnd(sub *object.Object) int64 {
	for _, v := range items(sub, "items") {
		if it, ok := v.(*object.Object); ok {
			return integer(it, "current_period_end")
		}
	}
	return 0
}

// periodStart is the start of sub's current period.
func periodStart(sub *object.Object) int64 {
	for _, v := range items(sub, "items") {
		if it, ok := v.(*object.Object); ok {
			return integer(it, "current_period_start")
		}
	}
	return 0
}

// setPeriod sets every item's current period.
func setPeriod(sub *object.Object, start, end int64) {
	for _, v := range items(sub, "items") {
		if it, ok := v.(*object.Object); ok {
			it.Set("current_period_end", num(end))
			it.Set("current_period_start", num(start))
		}
	}
}

// next is the end of the period that starts at t for a price billed
// every interval_count intervals, on the cycle anchored at anchor: a
// monthly cycle anchored on the 31st ends on the last day of shorter
// months, as Stripe bills. Without a recurring price, a month.
func next(t, anchor int64, pr *object.Object) int64 {
	interval, count := "month", int64(1)
	if r := child(pr, "recurring"); r != nil {
		if s := r.String("interval"); s != "" {
			interval = s
		}
		if n := integer(r, "interval_count"); n > 0 {
			count = n
		}
	}
	switch interval {
	case "day":
		return t + count*day
	case "week":
		return t + count*7*day
	case "year":
		count *= 12
	}
	a := time.Unix(anchor, 0).UTC()
	at := time.Unix(t, 0).UTC()
	y, m := at.Year(), int(at.Month())+int(count)
	first := time.Date(y, time.Month(m), 1, a.Hour(), a.Minute(), a.Second(), 0, time.UTC)
	last := first.AddDate(0, 1, -1).Day()
	d := a.Day()
	if d > last {
		d = last
	}
	return first.AddDate(0, 0, d-1).Unix()
}

// subscriptionInvoice makes sub's invoice at at for billing_reason
// reason: a line per item for the period lineStart to lineEnd, at nothing
// for a trial; periodStart is the start of the period it closes. It
// returns the draft, kept; the caller records invoice.created once the
// subscription's own event is recorded, in Stripe's order.
func subscriptionInvoice(w dialect.World, c *dialect.Call, sub, cus *object.Object, reason string, at, periodStart, lineStart, lineEnd int64, trial bool) *object.Object {
	inv := billSubscription(w, sub, cus, reason, at, periodStart, lineStart, lineEnd, trial)
	keep(w, "invoice", inv)
	return inv
}

// billSubscription is subscriptionInvoice's draft, not kept: a preview
// (billing_preview.go) shows it without making it.
func billSubscription(w dialect.World, sub, cus *object.Object, reason string, at, periodStart, lineStart, lineEnd int64, trial bool) *object.Object {
	inv := invoiceHeader(w, sub, cus, reason, at, periodStart)
	for _, v := range items(sub, "items") {
		it, ok := v.(*object.Object)
		if !ok {
			continue
		}
		pr := child(it, "price")
		qty := integer(it, "quantity")
		amount := integer(pr, "unit_amount") * qty
		if trial {
			amount = 0
		}
		period := object.New(2)
		period.Set("end", num(lineEnd))
		period.Set("start", num(lineStart))
		p := object.New(5)
		p.Set("invoice_item", nil)
		p.Set("proration", false)
		p.Set("proration_details", nil)
		p.Set("subscription", sub.String("id"))
		p.Set("subscription_item", it.String("id"))
		var pc any
		if pr != nil {
			pc = pricing(pr)
		}
		addLine(inv, line(w, lineOf{
			amount: amount, currency: sub.String("currency"), invoice: inv.String("id"),
			metadata: mustGet(it, "metadata"), period: period, pricing: pc, quantity: qty,
			subscription: sub.String("id"), parentKind: "subscription_item_details", parent: p,
		}))
	}
	totals(inv)
	return inv
}

// invoiceHeader is a new draft of sub's for reason at at, closing the
// period from periodStart, with no lines yet.
func invoiceHeader(w dialect.World, sub, cus *object.Object, reason string, at, periodStart int64) *object.Object {
	inv := fresh(w, "invoice")
	inv.Set("auto_advance", true)
	inv.Set("billing_reason", reason)
	inv.Set("collection_method", sub.String("collection_method"))
	inv.Set("created", num(at))
	inv.Set("currency", sub.String("currency"))
	inv.Set("customer", idOf(mustGet(sub, "customer")))
	billTo(inv, cus)
	if d := integer(sub, "days_until_due"); d > 0 && sub.String("collection_method") == "send_invoice" {
		inv.Set("due_date", num(at+d*day))
	}
	parent := object.New(3)
	parent.Set("quote_details", nil)
	details := object.New(2)
	md := child(sub, "metadata")
	if md == nil {
		md = object.New(0)
	}
	details.Set("metadata", md.Clone())
	details.Set("subscription", sub.String("id"))
	parent.Set("subscription_details", details)
	parent.Set("type", "subscription_details")
	inv.Set("parent", parent)
	inv.Set("period_end", num(at))
	inv.Set("period_start", num(periodStart))
	inv.Set("test_clock", mustGet(sub, "test_clock"))
	return inv
}

// subscriptionUpdated follows an update's items (mergeItems) and their
// prorations (prorate),
// cancel_at_period_end (set, the subscription is canceled when its period
// ends, cancel_at, and says why, cancellation_details; cleared, it renews
// and the reason is gone) and a trialing subscription's trial_end. Its
// event's previous_attributes are every field the update changed, as
// Stripe's are (metadata, items, cancel_at, canceled_at...).
func subscriptionUpdated(c *dialect.Call, _ int, body []byte) []byte {
	sub := decode(body)
	if sub == nil {
		return nil
	}
	was := decode(c.Before)
	if mergeItems(c, was, sub) {
		if inv := prorate(c, was, sub); inv != nil {
			sub.Set("latest_invoice", inv.String("id"))
		}
	}
	switch param(c, "cancel_at_period_end") {
	case "true":
		sub.Set("cancel_at", num(periodEnd(sub)))
		sub.Set("canceled_at", num(c.Now))
		cancellation(sub, "cancellation_requested")
	case "false":
		sub.Set("cancel_at", nil)
		sub.Set("canceled_at", nil)
		cancellation(sub, "")
	}
	prev := changed(was, sub)
	if sub.String("status") == "trialing" {
		if te, ok := trialEndParam(c); ok {
			return endTrial(c, sub, prev, te)
		}
	}
	body = keep(c.World, "subscription", sub)
	emit(c.World, c, "customer.subscription.updated", sub, prev)
	return body
}

// endTrialNow answers an update of a trialing subscription that sends
// trial_end=now, which the subscription's integer field cannot hold: the
// trial ends at once (endTrial). An update that sends more than that goes
// to the engine.
func endTrialNow(c *dialect.Call) (dialect.Answer, bool) {
	if param(c, "trial_end") != "now" {
		return dialect.Answer{}, false
	}
	for k := range c.Params {
		switch k {
		case "trial_end", "proration_behavior", "expand":
		default:
			return dialect.Answer{}, false
		}
	}
	sub := decode(c.Entity("subscription"))
	if sub == nil || sub.String("status") != "trialing" {
		return dialect.Answer{}, false
	}
	return dialect.Answer{Status: http.StatusOK, Body: endTrial(c, sub, object.New(1), c.Now)}, true
}

// trialEndParam is the trial_end an update sends ("now" is the request's
// time), ok false when it sends none.
func trialEndParam(c *dialect.Call) (int64, bool) {
	switch v := param(c, "trial_end"); v {
	case "":
		return 0, false
	case "now":
		return c.Now, true
	default:
		te, err := strconv.ParseInt(v, 10, 64)
		return te, err == nil
	}
}

// endTrial moves a trialing subscription's trial end to te, as Stripe's
// update with trial_end does: a later time extends the trial; now (or a
// past time) ends it at once, with the first period's invoice charged as
// the clock would at the trial's end.
func endTrial(c *dialect.Call, sub, prev *object.Object, te int64) []byte {
	w := c.World
	prev.Set("trial_end", num(periodEnd(sub))) // a trial's period ends with it; the engine set the field already
	if te > c.Now {
		sub.Set("trial_end", num(te))
		sub.Set("billing_cycle_anchor", num(te))
		setPeriod(sub, periodStart(sub), te)
		if was := decode(c.Before); was != nil {
			prev = changed(was, sub) // the anchor and the items' period moved too
		}
		body := keep(w, "subscription", sub)
		emit(w, c, "customer.subscription.updated", sub, prev)
		return body
	}
	sub.Set("trial_end", num(c.Now))
	sub.Set("billing_cycle_anchor", num(c.Now))
	setPeriod(sub, periodStart(sub), c.Now)
	keep(w, "subscription", sub)
	newClockWork(w, c.Now, c.Now).periodEnds(sub, c.Now)
	return w.Get("subscription", sub.String("id"))
}

// subscriptionDeleted records the cancelation the engine made.
func subscriptionDeleted(c *dialect.Call, _ int, body []byte) []byte {
	sub := decode(body)
	if sub == nil {
		return nil
	}
	cancellation(sub, "cancellation_requested")
	if cd := paramMap(c, "cancellation_details"); cd != nil {
		d := child(sub, "cancellation_details")
		for _, k := range []string{"comment", "feedback"} {
			if v, ok := cd[k].(string); ok && v != "" {
				d.Set(k, v)
			}
		}
	}
	body = keep(c.World, "subscription", sub)
	emit(c.World, c, "customer.subscription.deleted", sub, nil)
	return body
}

// cancellation sets sub's cancellation_details, the reason null when
// reason is "" (a cancelation taken back).
func cancellation(sub *object.Object, reason string) {
	cd := object.New(3)
	cd.Set("comment", nil)
	cd.Set("feedback", nil)
	if reason == "" {
		cd.Set("reason", nil)
	} else {
		cd.Set("reason", reason)
	}
	sub.Set("cancellation_details", cd)
}

// customerDeleting cancels the customer's subscriptions before the
// engine deletes the customer: Stripe's delete "immediately cancels any
// active subscriptions on the customer" (docs.stripe.com/api/customers/
// delete). It declines, so the engine answers the delete itself.
func customerDeleting(c *dialect.Call) (dialect.Answer, bool) {
	w := c.World
	cus := decode(c.Entity("customer"))
	if cus == nil || !w.Has("subscription") {
		return dialect.Answer{}, false
	}
	var open []*object.Object
	w.Each("subscription", func(b []byte) bool {
		sub := decode(b)
		if sub != nil && idOf(mustGet(sub, "customer")) == cus.String("id") {
			switch sub.String("status") {
			case "canceled", "incomplete_expired":
			default:
				open = append(open, sub)
			}
		}
		return true
	})
	for i := len(open) - 1; i >= 0; i-- { // oldest first, as they were made
		sub := open[i]
		sub.Set("canceled_at", num(c.Now))
		sub.Set("ended_at", num(c.Now))
		sub.Set("status", "canceled")
		cancellation(sub, "cancellation_requested")
		keep(w, "subscription", sub)
		emit(w, c, "customer.subscription.deleted", sub, nil)
	}
	return dialect.Answer{}, false
}
