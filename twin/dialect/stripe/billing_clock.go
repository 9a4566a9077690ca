package stripe

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// What the session's clock makes due, and Stripe's test clocks, which move
// it. When the clock moves from from to to, every subscription's trial
// warnings, trial ends, period ends and cancelations in (from, to] run in
// time order across the session's subscriptions (older subscriptions first
// at the same instant), as many periods as fell due:
//   - three days before a trial ends: customer.subscription.trial_will_end;
//   - a period's end (the trial's included): the subscription is canceled
//     when it was to cancel then, else its next period starts, with an
//     invoice for it, finalized and charged to the default payment method;
//     a decline leaves the invoice open and the subscription past_due;
//   - a draft invoice's automatically_finalizes_at (auto_advance, an
//     hour after its creation): it is finalized and, when collected
//     automatically, charged.

// maxClockWork bounds the work one clock move does: a move of years over
// daily subscriptions stops there rather than holding the session's lock
// without end; the rest falls due on the next move.
const maxClockWork = 10000

// clockWork is one clock move's work. The session's subscriptions and the
// drafts that finalize by the move's end are read once; a subscription is
// read again after its own work changed it, so a move costs one pass over
// them plus the work that fell due.
type clockWork struct {
	w        dialect.World
	from, to int64
	subs     []*object.Object // oldest first: the older wins a tie
	drafts   []*object.Object // oldest first
	warned   map[string]bool  // subscriptions whose trial_will_end ran
}

func newClockWork(w dialect.World, from, to int64) *clockWork {
	cw := &clockWork{w: w, from: from, to: to, warned: map[string]bool{}}
	w.Each("subscription", func(b []byte) bool {
		if s := decode(b); s != nil {
			cw.subs = append(cw.subs, s)
		}
		return true
	})
	w.Each("invoice", func(b []byte) bool {
		if inv := decode(b); inv != nil && inv.String("status") == "draft" {
			if at := integer(inv, "automatically_finalizes_at"); at > 0 && at <= to {
				cw.drafts = append(cw.drafts, inv)
			}
		}
		return true
	})
	slices.Reverse(cw.subs) // Each is newest first
	slices.Reverse(cw.drafts)
	return cw
}

// dueWork is the next thing that falls due: on one subscription (sub), or
// a draft's automatic finalization (draft, an index into drafts).
type dueWork struct {
	at    int64
	sub   int
	warn  bool // trial_will_end, else the period's end
	draft int  // -1 for a subscription's work
}

func (cw *clockWork) run() {
	for range maxClockWork {
		d, ok := cw.next()
		if !ok {
			return
		}
		if d.draft >= 0 {
			inv := cw.drafts[d.draft]
			cw.drafts = slices.Delete(cw.drafts, d.draft, d.draft+1)
			cw.finalizes(inv, d.at)
			cw.reread(invoiceSubscription(inv))
			continue
		}
		sub := cw.subs[d.sub]
		if d.warn {
			cw.warned[sub.String("id")] = true
			emit(cw.w, nil, "customer.subscription.trial_will_end", sub, nil)
			continue
		}
		cw.periodEnds(sub, d.at)
		cw.reread(sub.String("id"))
	}
}

// reread takes up the session's copy of subscription id after work that
// changed it.
func (cw *clockWork) reread(id string) {
	for i, s := range cw.subs {
		if s.String("id") == id {
			if fresh := load(cw.w, "subscription", id); fresh != nil {
				cw.subs[i] = fresh
			}
			return
		}
	}
}

// next is the earliest work due.
func (cw *clockWork) next() (dueWork, bool) {
	var best dueWork
	found := false
	for i, sub := range cw.subs {
		at, warn, ok := cw.dueOn(sub)
		if ok && (!found || at < best.at) {
			best, found = dueWork{at: at, sub: i, warn: warn, draft: -1}, true
		}
	}
	for i, inv := range cw.drafts {
		if at := integer(inv, "automatically_finalizes_at"); !found || at < best.at {
			best, found = dueWork{at: at, draft: i}, true
		}
	}
	return best, found
}

// finalizes runs a draft's automatic finalization at at (auto_advance):
// open, and charged to its payer when collected automatically; a decline
// leaves it open with the attempt counted.
func (cw *clockWork) finalizes(inv *object.Object, at int64) {
	finalize(cw.w, nil, inv, at)
	collectAuto(cw.w, nil, inv, at)
}

// dueOn is when the next work on sub falls due by the move's end, and
// whether it is the trial's warning.
func (cw *clockWork) dueOn(sub *object.Object) (at int64, warn, ok bool) {
	switch sub.String("status") {
	case "trialing", "active", "past_due", "unpaid":
	default:
		return 0, false, false
	}
	end := periodEnd(sub)
	if end == 0 {
		return 0, false, false
	}
	if sub.String("status") == "trialing" && !cw.warned[sub.String("id")] {
		if warnAt := integer(sub, "trial_end") - 3*day; warnAt > cw.from && warnAt <= cw.to && warnAt < end {
			return warnAt, true, true
		}
	}
	if ca := integer(sub, "cancel_at"); ca > 0 && ca < end {
		end = ca
	}
	if end > cw.to {
		return 0, false, false
	}
	return end, false, true
}

// periodEnds runs sub's period end at at: its cancelation, or its next
// period with the invoice for it.
func (cw *clockWork) periodEnds(sub *object.Object, at int64) {
	w := cw.w
	if v, _ := sub.Get("cancel_at_period_end"); v == true || (integer(sub, "cancel_at") > 0 && integer(sub, "cancel_at") <= at) {
		sub.Set("status", "canceled")
		sub.Set("ended_at", num(at))
		if mustGet(sub, "canceled_at") == nil {
			sub.Set("canceled_at", num(at))
		}
		cancellation(sub, "cancellation_requested")
		keep(w, "subscription", sub)
		emit(w, nil, "customer.subscription.deleted", sub, nil)
		return
	}
	prevStatus, prevInvoice, start := sub.String("status"), mustGet(sub, "latest_invoice"), periodStart(sub)
	end := next(at, integer(sub, "billing_cycle_anchor"), firstPrice(sub))
	setPeriod(sub, at, end)
	if prevStatus == "trialing" {
		sub.Set("status", "active")
	}
	cus := load(w, "customer", idOf(mustGet(sub, "customer")))
	inv := subscriptionInvoice(w, nil, sub, cus, "subscription_cycle", at, start, at, end, false)
	if cus != nil {
		// The customer's pending items are billed on their next invoice,
		// as a preview showed them.
		n := len(items(inv, "lines"))
		pullPending(w, inv, cus.String("id"))
		if len(items(inv, "lines")) > n {
			totals(inv)
			keep(w, "invoice", inv)
		}
	}
	sub.Set("latest_invoice", inv.String("id"))
	keep(w, "subscription", sub)
	prev := previous("latest_invoice", prevInvoice)
	if prevStatus != sub.String("status") {
		prev.Set("status", prevStatus)
	}
	emit(w, nil, "customer.subscription.updated", sub, prev)
	emit(w, nil, "invoice.created", inv, nil)
	finalize(w, nil, inv, at)
	d := collectAuto(w, nil, inv, at)
	if d == nil {
		return
	}
	sub = load(w, "subscription", sub.String("id"))
	if s := sub.String("status"); s != "past_due" {
		sub.Set("status", "past_due")
		keep(w, "subscription", sub)
		emit(w, nil, "customer.subscription.updated", sub, previous("status", s))
	}
}

// testClockCreated makes the new clock ready at its frozen_time.
func testClockCreated(c *dialect.Call, _ int, body []byte) []byte {
	tc := decode(body)
	if tc == nil {
		return nil
	}
	tc.Set("deletes_after", num(integer(tc, "created")+7*day))
	tc.Set("status", "ready")
	return keep(c.World, "test_helpers.test_clock", tc)
}

// advanceTestClock answers POST /v1/test_helpers/test_clocks/{id}/advance:
// a test clock moves the session's clock to frozen_time, running what falls
// due on the way. The answer says advancing, as Stripe answers; the work
// is done by then, so the clock reads back ready.
func advanceTestClock(c *dialect.Call) (dialect.Answer, bool) {
	tc := decode(c.Entity("test_helpers.test_clock"))
	if tc == nil || c.Clock == nil {
		return dialect.Answer{}, false
	}
	to, err := strconv.ParseInt(param(c, "frozen_time"), 10, 64)
	if err != nil {
		return dialect.Answer{}, false // validation refuses it before
	}
	if to <= integer(tc, "frozen_time") {
		return refusal(http.StatusBadRequest, "invalid_request_error", "", "frozen_time",
			"The frozen_time must be after the test clock's current frozen_time ("+strconv.FormatInt(integer(tc, "frozen_time"), 10)+")."), true
	}
	if !c.Clock.AdvanceTo(to) {
		return refusal(http.StatusBadRequest, "invalid_request_error", "", "frozen_time",
			"A test clock moves this session's clock, which cannot reach frozen_time "+strconv.FormatInt(to, 10)+": the session's clock is real, or already past it. Provision the session with a deterministic or fixed clock, and advance to a later time."), true
	}
	tc.Set("frozen_time", num(to))
	tc.Set("status", "ready")
	keep(c.World, "test_helpers.test_clock", tc)
	tc.Set("status", "advancing")
	return dialect.Answer{Status: http.StatusOK, Body: tc.AppendJSON(nil)}, true
}
