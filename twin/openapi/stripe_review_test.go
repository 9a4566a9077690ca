package openapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stripe/stripe-go/v82"
)

// A review of the stripe twin's payments and billing against what
// Stripe's docs say of the edge cases a real integration meets
// (docs.stripe.com/refunds, /payments/place-a-hold-on-a-payment-method,
// /payments/paymentintents/lifecycle, /billing/subscriptions/cancel,
// /billing/subscriptions/change-price, /api/events, /api/idempotent_requests),
// driven by stripe-go; every answer is checked against Stripe's
// description and must name no ignored parameter (payClient).

func reviewTwin(tb testing.TB) string {
	tb.Helper()
	return startTwin(tb, "stripe", "--unknown-entity", "not_found", "--clock", "deterministic", "--clock-epoch", "1700000000").URL()
}

// paidIntent is a payment intent of amount usd confirmed with pm (and
// customer when not ""), as accept-a-payment makes one.
func paidIntent(tb testing.TB, sc *stripe.Client, amount int64, customer, pm string) *stripe.PaymentIntent {
	tb.Helper()
	p := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(amount), Currency: stripe.String("usd"), PaymentMethod: stripe.String(pm), Confirm: stripe.Bool(true)}
	if customer != "" {
		p.Customer = stripe.String(customer)
	}
	pi, err := sc.V1PaymentIntents.Create(context.Background(), p)
	payOK(tb, "pay "+pm, err)
	if pi.Status != stripe.PaymentIntentStatusSucceeded || pi.LatestCharge == nil {
		tb.Fatalf("pay %d with %s: want succeeded with a charge, have %s %v", amount, pm, pi.Status, pi.LatestCharge)
	}
	return pi
}

// TestStripeReviewRefunds: a refund keeps the reason and metadata sent; a
// refund by charge= after one by payment_intent= adds up on the charge;
// a partially captured intent refunds only what was captured; a refund
// by the intent of a canceled hold is refused.
func TestStripeReviewRefunds(t *testing.T) {
	sc, _ := payClient(t, reviewTwin(t), "review-refunds")
	ctx := context.Background()
	pi := paidIntent(t, sc, 3000, "", "pm_card_visa")
	re, err := sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{
		PaymentIntent: stripe.String(pi.ID), Amount: stripe.Int64(1000),
		Reason:   stripe.String(string(stripe.RefundReasonRequestedByCustomer)),
		Metadata: map[string]string{"order": "A-17"},
	})
	payOK(t, "refund with a reason and metadata", err)
	if re.Reason != stripe.RefundReasonRequestedByCustomer || re.Metadata["order"] != "A-17" || re.Amount != 1000 {
		t.Errorf("refund: want reason requested_by_customer, metadata order=A-17, 1000; have %q %v %d", re.Reason, re.Metadata, re.Amount)
	}
	re2, err := sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{Charge: stripe.String(pi.LatestCharge.ID), Amount: stripe.Int64(500)})
	payOK(t, "refund by the charge after one by the intent", err)
	if re2.Amount != 500 || re2.PaymentIntent == nil || re2.PaymentIntent.ID != pi.ID || re2.Reason != "" {
		t.Errorf("refund by charge: want 500 of %s, no reason; have %d %v %q", pi.ID, re2.Amount, re2.PaymentIntent, re2.Reason)
	}
	var charges []*stripe.Charge
	for ch, err := range sc.V1Charges.List(ctx, &stripe.ChargeListParams{PaymentIntent: stripe.String(pi.ID)}) {
		payOK(t, "list the intent's charges", err)
		charges = append(charges, ch)
	}
	if len(charges) != 1 || charges[0].AmountRefunded != 1500 || charges[0].Refunded {
		t.Errorf("the intent's charges after refunds of 1000 and 500: want one, 1500 refunded, not refunded in full; have %d %+v", len(charges), charges)
	}
	// A refund updated keeps what it was not sent.
	re, err = sc.V1Refunds.Update(ctx, re.ID, &stripe.RefundUpdateParams{Params: stripe.Params{Metadata: map[string]string{"note": "late"}}})
	payOK(t, "update the refund's metadata", err)
	if re.Metadata["order"] != "A-17" || re.Metadata["note"] != "late" || re.Amount != 1000 || re.Reason != stripe.RefundReasonRequestedByCustomer {
		t.Errorf("refund updated: want both metadata keys, 1000, its reason; have %v %d %q", re.Metadata, re.Amount, re.Reason)
	}
	_, err = sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{PaymentIntent: stripe.String(pi.ID), Reason: stripe.String("changed_mind")})
	if se := payErr(t, "refund with a reason Stripe has not", err, 400); se.Param != "reason" {
		t.Errorf("refund reason changed_mind: want refused on reason, have %q %q", se.Param, se.Msg)
	}

	// A charge and an intent that are not one payment: refused, and
	// nothing refunded.
	other := paidIntent(t, sc, 1000, "", "pm_card_visa")
	_, err = sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{PaymentIntent: stripe.String(other.ID), Charge: stripe.String(pi.LatestCharge.ID)})
	if se := payErr(t, "refund a charge by another payment's intent", err, 400); se.Param != "payment_intent" {
		t.Errorf("charge and intent of two payments: want refused on payment_intent, have %q %q", se.Param, se.Msg)
	}
	for _, id := range []string{pi.LatestCharge.ID, other.LatestCharge.ID} {
		ch, err := sc.V1Charges.Retrieve(ctx, id, nil)
		payOK(t, "retrieve "+id, err)
		if want := map[string]int64{pi.LatestCharge.ID: 1500, other.LatestCharge.ID: 0}[id]; ch.AmountRefunded != want {
			t.Errorf("after a refused refund: want %s's amount_refunded %d, have %d", id, want, ch.AmountRefunded)
		}
	}

	// A hold of 2000 captured for 1200: 1200 is what can be refunded.
	hold, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{
		Amount: stripe.Int64(2000), Currency: stripe.String("usd"), PaymentMethod: stripe.String("pm_card_visa"),
		CaptureMethod: stripe.String("manual"), Confirm: stripe.Bool(true),
	})
	payOK(t, "hold", err)
	_, err = sc.V1PaymentIntents.Capture(ctx, hold.ID, &stripe.PaymentIntentCaptureParams{AmountToCapture: stripe.Int64(1200)})
	payOK(t, "capture 1200", err)
	_, err = sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{PaymentIntent: stripe.String(hold.ID), Amount: stripe.Int64(1300)})
	if se := payErr(t, "refund 1300 of 1200 captured", err, 400); se.Param != "amount" {
		t.Errorf("refund past the capture: want refused on amount, have %q %q", se.Param, se.Msg)
	}
	re, err = sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{PaymentIntent: stripe.String(hold.ID)})
	payOK(t, "refund the capture", err)
	if re.Amount != 1200 {
		t.Errorf("refund of a partial capture: want 1200, have %d", re.Amount)
	}
	ch, err := sc.V1Charges.Retrieve(ctx, hold.LatestCharge.ID, nil)
	payOK(t, "retrieve the refunded capture", err)
	if !ch.Refunded || ch.AmountCaptured != 1200 {
		t.Errorf("a partial capture refunded in full: want refunded, 1200 captured; have %v %d (amount_refunded %d)", ch.Refunded, ch.AmountCaptured, ch.AmountRefunded)
	}

	// A hold canceled has nothing to refund.
	hold2, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{
		Amount: stripe.Int64(900), Currency: stripe.String("usd"), PaymentMethod: stripe.String("pm_card_visa"),
		CaptureMethod: stripe.String("manual"), Confirm: stripe.Bool(true),
	})
	payOK(t, "hold again", err)
	_, err = sc.V1PaymentIntents.Cancel(ctx, hold2.ID, nil)
	payOK(t, "cancel the hold", err)
	_, err = sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{PaymentIntent: stripe.String(hold2.ID)})
	payErr(t, "refund a canceled hold", err, 400)
}

// TestStripeReviewIntentStates: what an intent in each state refuses,
// and what its cancel and off-session confirm give.
func TestStripeReviewIntentStates(t *testing.T) {
	sc, _ := payClient(t, reviewTwin(t), "review-states")
	ctx := context.Background()
	pi := paidIntent(t, sc, 1000, "", "pm_card_visa")
	_, err := sc.V1PaymentIntents.Cancel(ctx, pi.ID, nil)
	if se := payErr(t, "cancel a succeeded intent", err, 400); se.Code != "payment_intent_unexpected_state" || se.PaymentIntent == nil || se.PaymentIntent.ID != pi.ID {
		t.Errorf("cancel of a succeeded intent: want payment_intent_unexpected_state naming the intent, have %s %q %+v", se.Code, se.Msg, se.PaymentIntent)
	} else if want := "You cannot cancel this PaymentIntent because it has a status of succeeded. Only a PaymentIntent with one of the following statuses may be canceled: requires_payment_method, requires_capture, requires_confirmation, requires_action, processing."; se.Msg != want {
		t.Errorf("cancel of a succeeded intent:\nwant %s\nhave %s", want, se.Msg)
	}
	_, err = sc.V1PaymentIntents.Capture(ctx, pi.ID, nil)
	if se := payErr(t, "capture a succeeded intent", err, 400); se.Code != "payment_intent_unexpected_state" {
		t.Errorf("capture of a succeeded intent: want payment_intent_unexpected_state, have %s %q", se.Code, se.Msg)
	} else if want := "This PaymentIntent could not be captured because it has a status of succeeded. Only a PaymentIntent with one of the following statuses may be captured: requires_capture."; se.Msg != want {
		t.Errorf("capture of a succeeded intent:\nwant %s\nhave %s", want, se.Msg)
	}
	_, err = sc.V1PaymentIntents.Confirm(ctx, pi.ID, nil)
	if se := payErr(t, "confirm a succeeded intent", err, 400); se.Code != "payment_intent_unexpected_state" {
		t.Errorf("confirm of a succeeded intent: want payment_intent_unexpected_state, have %s %q", se.Code, se.Msg)
	}

	for _, reason := range []string{"duplicate", "fraudulent", "requested_by_customer", "abandoned"} {
		open, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(500), Currency: stripe.String("usd")})
		payOK(t, "create to cancel", err)
		c, err := sc.V1PaymentIntents.Cancel(ctx, open.ID, &stripe.PaymentIntentCancelParams{CancellationReason: stripe.String(reason)})
		payOK(t, "cancel "+reason, err)
		if c.Status != stripe.PaymentIntentStatusCanceled || string(c.CancellationReason) != reason || c.CanceledAt == 0 {
			t.Errorf("canceled for %s: want canceled with the reason and its time, have %s %q %d", reason, c.Status, c.CancellationReason, c.CanceledAt)
		}
		_, err = sc.V1PaymentIntents.Capture(ctx, c.ID, nil)
		if se := payErr(t, "capture after cancel", err, 400); se.Code != "payment_intent_unexpected_state" {
			t.Errorf("capture of a canceled intent: want payment_intent_unexpected_state, have %s %q", se.Code, se.Msg)
		}
		_, err = sc.V1PaymentIntents.Confirm(ctx, c.ID, &stripe.PaymentIntentConfirmParams{PaymentMethod: stripe.String("pm_card_visa")})
		if se := payErr(t, "confirm after cancel", err, 400); se.Code != "payment_intent_unexpected_state" {
			t.Errorf("confirm of a canceled intent: want payment_intent_unexpected_state, have %s %q", se.Code, se.Msg)
		}
	}
	open, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(500), Currency: stripe.String("usd")})
	payOK(t, "create to cancel for no reason Stripe has", err)
	_, err = sc.V1PaymentIntents.Cancel(ctx, open.ID, &stripe.PaymentIntentCancelParams{CancellationReason: stripe.String("bored")})
	if se := payErr(t, "cancel for bored", err, 400); se.Param != "cancellation_reason" {
		t.Errorf("cancellation_reason bored: want refused on cancellation_reason, have %q %q", se.Param, se.Msg)
	}

	// Off session with a customer's saved card (docs.stripe.com/payments/
	// save-and-reuse): succeeds without the customer.
	cus, err := sc.V1Customers.Create(ctx, &stripe.CustomerCreateParams{Email: stripe.String("off@example.com")})
	payOK(t, "customer", err)
	pm, err := sc.V1PaymentMethods.Attach(ctx, "pm_card_visa", &stripe.PaymentMethodAttachParams{Customer: stripe.String(cus.ID)})
	payOK(t, "attach", err)
	off, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{
		Amount: stripe.Int64(1099), Currency: stripe.String("usd"), Customer: stripe.String(cus.ID), PaymentMethod: stripe.String(pm.ID),
		OffSession: stripe.Bool(true), Confirm: stripe.Bool(true),
	})
	payOK(t, "confirm off session", err)
	if off.Status != stripe.PaymentIntentStatusSucceeded || off.Customer == nil || off.Customer.ID != cus.ID {
		t.Errorf("off session: want succeeded for %s, have %s %v", cus.ID, off.Status, off.Customer)
	}
	var ids []string
	for ch, err := range sc.V1Charges.List(ctx, &stripe.ChargeListParams{Customer: stripe.String(cus.ID)}) {
		payOK(t, "list the customer's charges", err)
		ids = append(ids, ch.ID)
	}
	if len(ids) != 1 || ids[0] != off.LatestCharge.ID {
		t.Errorf("charges of %s: want only %s, have %v", cus.ID, off.LatestCharge.ID, ids)
	}
}

// TestStripeReviewBalance: a charge's balance transaction expanded from
// its intent adds up: fee is the sum of fee_details, net amount less fee.
func TestStripeReviewBalance(t *testing.T) {
	sc, _ := payClient(t, reviewTwin(t), "review-balance")
	ctx := context.Background()
	for _, amount := range []int64{50, 999, 2000, 123457} {
		pi := paidIntent(t, sc, amount, "", "pm_card_visa")
		p := &stripe.PaymentIntentRetrieveParams{}
		p.AddExpand("latest_charge.balance_transaction")
		pi, err := sc.V1PaymentIntents.Retrieve(ctx, pi.ID, p)
		payOK(t, "retrieve with expand", err)
		tx := pi.LatestCharge.BalanceTransaction
		if tx == nil || tx.Amount != amount {
			t.Fatalf("expanded balance transaction of %d: have %+v", amount, tx)
		}
		var fees int64
		for _, f := range tx.FeeDetails {
			fees += f.Amount
		}
		if tx.Fee != fees || tx.Net != tx.Amount-tx.Fee || tx.Currency != "usd" || tx.Source == nil || tx.Source.ID != pi.LatestCharge.ID {
			t.Errorf("balance transaction of %d: want fee = sum of fee_details (%d), net = amount - fee, of the charge; have fee %d net %d %s %+v", amount, fees, tx.Fee, tx.Net, tx.Currency, tx.Source)
		}
	}
}

// TestStripeReviewIdempotency: a create sent again with its
// Idempotency-Key is the first answer replayed, and makes nothing; the
// same key with other parameters is Stripe's idempotency_error.
func TestStripeReviewIdempotency(t *testing.T) {
	sc, _ := payClient(t, reviewTwin(t), "review-idempotency")
	ctx := context.Background()
	var first *stripe.Refund
	pi := paidIntent(t, sc, 2000, "", "pm_card_visa")
	for i := 0; i < 2; i++ {
		p := &stripe.RefundCreateParams{PaymentIntent: stripe.String(pi.ID), Amount: stripe.Int64(700)}
		p.SetIdempotencyKey("refund-once")
		re, err := sc.V1Refunds.Create(ctx, p)
		payOK(t, "refund with a key", err)
		if first == nil {
			first = re
			continue
		}
		if !bytes.Equal(re.LastResponse.RawJSON, first.LastResponse.RawJSON) || re.LastResponse.Header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("refund retried: want the first answer replayed, have %s", re.LastResponse.RawJSON)
		}
	}
	ch, err := sc.V1Charges.Retrieve(ctx, pi.LatestCharge.ID, nil)
	payOK(t, "retrieve the charge", err)
	if ch.AmountRefunded != 700 {
		t.Errorf("a refund retried with its key: want 700 refunded once, have %d", ch.AmountRefunded)
	}
	p := &stripe.RefundCreateParams{PaymentIntent: stripe.String(pi.ID), Amount: stripe.Int64(800)}
	p.SetIdempotencyKey("refund-once")
	_, err = sc.V1Refunds.Create(ctx, p)
	if se := payErr(t, "the key again with another amount", err, 400); se.Type != stripe.ErrorTypeIdempotency {
		t.Errorf("a key reused with other parameters: want idempotency_error, have %s %q", se.Type, se.Msg)
	}
}

// TestStripeReviewEvents: an event's data.object is the object as
// retrieved right after; the event log is newest first and pages with
// starting_after without skipping or repeating an event.
func TestStripeReviewEvents(t *testing.T) {
	base := reviewTwin(t)
	sc, tr := payClient(t, base, "review-events")
	ctx := context.Background()
	pi := paidIntent(t, sc, 2500, "", "pm_card_visa")
	re, err := sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{PaymentIntent: stripe.String(pi.ID), Amount: stripe.Int64(100)})
	payOK(t, "refund", err)
	var all []*stripe.Event
	for ev, err := range sc.V1Events.List(ctx, &stripe.EventListParams{ListParams: stripe.ListParams{Limit: stripe.Int64(100)}}) {
		payOK(t, "events", err)
		all = append(all, ev)
	}
	for i := 1; i < len(all); i++ {
		if all[i].Created > all[i-1].Created {
			t.Errorf("events: want newest first, have %s (%d) after %s (%d)", all[i].ID, all[i].Created, all[i-1].ID, all[i-1].Created)
		}
	}
	latest := map[string]*stripe.Event{} // the newest event of each object
	for _, ev := range all {
		var o struct{ ID string }
		if err := json.Unmarshal(ev.Data.Raw, &o); err != nil {
			t.Fatal(err)
		}
		if latest[o.ID] == nil {
			latest[o.ID] = ev
		}
	}
	for _, c := range []struct {
		id, path string
	}{
		{pi.ID, "/v1/payment_intents/" + pi.ID},
		{pi.LatestCharge.ID, "/v1/charges/" + pi.LatestCharge.ID},
		{re.ID, "/v1/refunds/" + re.ID},
	} {
		ev := latest[c.id]
		if ev == nil {
			t.Errorf("%s: no event", c.id)
			continue
		}
		raw := rawGet(t, tr, base, c.path)
		if !jsonEqual(t, ev.Data.Raw, raw) {
			t.Errorf("%s's latest event (%s): want data.object as retrieved after\nevent %s\nread  %s", c.id, ev.Type, ev.Data.Raw, raw)
		}
	}
	// Paging by two, newest first.
	var paged []string
	after := ""
	for {
		p := &stripe.EventListParams{ListParams: stripe.ListParams{Limit: stripe.Int64(2), Single: true}}
		if after != "" {
			p.StartingAfter = stripe.String(after)
		}
		page := sc.V1Events.List(ctx, p)
		n := 0
		for ev, err := range page {
			payOK(t, "events page", err)
			paged = append(paged, ev.ID)
			after = ev.ID
			n++
		}
		if n < 2 {
			break
		}
	}
	var want []string
	for _, ev := range all {
		want = append(want, ev.ID)
	}
	if strings.Join(paged, " ") != strings.Join(want, " ") {
		t.Errorf("events paged by two: want %v, have %v", want, paged)
	}
}

// rawGet is the raw body of GET path in tr's session, checked as
// every answer is.
func rawGet(tb testing.TB, tr *payTransport, base, path string) json.RawMessage {
	tb.Helper()
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer sk_test_wraith")
	resp, err := (&http.Client{Transport: tr}).Do(req)
	payOK(tb, "GET "+path, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		tb.Fatalf("GET %s: %s %v", path, resp.Status, err)
	}
	return raw
}

// jsonEqual reports whether a and b are the same JSON value.
func jsonEqual(tb testing.TB, a, b []byte) bool {
	tb.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		tb.Fatal(err)
	}
	return reflect.DeepEqual(va, vb)
}

// reviewPlan is a customer with a default card and a monthly price of
// unit usd, for the subscription reviews.
func reviewPlan(tb testing.TB, sc *stripe.Client, unit int64) (customer, price string) {
	tb.Helper()
	ctx := context.Background()
	cus, err := sc.V1Customers.Create(ctx, &stripe.CustomerCreateParams{Email: stripe.String("sub@example.com")})
	payOK(tb, "customer", err)
	pm, err := sc.V1PaymentMethods.Attach(ctx, "pm_card_visa", &stripe.PaymentMethodAttachParams{Customer: stripe.String(cus.ID)})
	payOK(tb, "attach", err)
	_, err = sc.V1Customers.Update(ctx, cus.ID, &stripe.CustomerUpdateParams{InvoiceSettings: &stripe.CustomerUpdateInvoiceSettingsParams{DefaultPaymentMethod: stripe.String(pm.ID)}})
	payOK(tb, "default payment method", err)
	pr, err := sc.V1Prices.Create(ctx, &stripe.PriceCreateParams{
		Currency: stripe.String("usd"), UnitAmount: stripe.Int64(unit),
		Recurring:   &stripe.PriceCreateRecurringParams{Interval: stripe.String("month")},
		ProductData: &stripe.PriceCreateProductDataParams{Name: stripe.String("Seat")},
	})
	payOK(tb, "price", err)
	return cus.ID, pr.ID
}

// TestStripeReviewSubscriptions: an item's quantity bills on its line; a
// price change keeps the item, its quantity and period; prorations
// (none, the default create_prorations, always_invoice); cancel_at_period_end set and cleared;
// each update's event names what changed in previous_attributes.
func TestStripeReviewSubscriptions(t *testing.T) {
	base := reviewTwin(t)
	sc, _ := payClient(t, base, "review-subs")
	ctx := context.Background()
	cus, price := reviewPlan(t, sc, 1500)
	sub, err := sc.V1Subscriptions.Create(ctx, &stripe.SubscriptionCreateParams{
		Customer: stripe.String(cus), Items: []*stripe.SubscriptionCreateItemParams{{Price: stripe.String(price), Quantity: stripe.Int64(3)}},
	})
	payOK(t, "subscription of 3 seats", err)
	it := sub.Items.Data[0]
	if sub.Status != stripe.SubscriptionStatusActive || it.Quantity != 3 {
		t.Fatalf("subscription: want active with 3 seats, have %s %d", sub.Status, it.Quantity)
	}
	inv, err := sc.V1Invoices.Retrieve(ctx, sub.LatestInvoice.ID, nil)
	payOK(t, "first invoice", err)
	l := inv.Lines.Data[0]
	if inv.Total != 4500 || inv.AmountPaid != 4500 || inv.AmountRemaining != 0 || l.Amount != 4500 || l.Quantity != 3 ||
		l.Period.Start != it.CurrentPeriodStart || l.Period.End != it.CurrentPeriodEnd {
		t.Errorf("first invoice: want 4500 paid, a line of 3 x 1500 for the item's period %d-%d; have total %d paid %d remaining %d, line %d x%d %d-%d",
			it.CurrentPeriodStart, it.CurrentPeriodEnd, inv.Total, inv.AmountPaid, inv.AmountRemaining, l.Amount, l.Quantity, l.Period.Start, l.Period.End)
	}

	// A new price, no proration (docs.stripe.com/billing/subscriptions/change-price).
	_, dearer := reviewPlan(t, sc, 2500)
	sub, err = sc.V1Subscriptions.Update(ctx, sub.ID, &stripe.SubscriptionUpdateParams{
		Items:             []*stripe.SubscriptionUpdateItemParams{{ID: stripe.String(it.ID), Price: stripe.String(dearer)}},
		ProrationBehavior: stripe.String("none"),
	})
	payOK(t, "change the price", err)
	if len(sub.Items.Data) != 1 || sub.Items.Data[0].ID != it.ID || sub.Items.Data[0].Price.ID != dearer || sub.Items.Data[0].Quantity != 3 ||
		sub.Items.Data[0].CurrentPeriodEnd != it.CurrentPeriodEnd {
		t.Errorf("price changed on %s: want that one item, now %s, still 3 seats, the same period end; have %+v", it.ID, dearer, sub.Items.Data)
	}
	if sub.LatestInvoice.ID != inv.ID {
		t.Errorf("proration_behavior=none: want no new invoice, have latest %s (was %s)", sub.LatestInvoice.ID, inv.ID)
	}
	if p := pendingProrations(t, sc, cus); len(p) != 0 {
		t.Errorf("proration_behavior=none: want no proration items, have %d", len(p))
	}
	ev := latestEvent(t, sc, "customer.subscription.updated")
	if _, ok := ev.Data.PreviousAttributes["items"]; !ok {
		t.Errorf("price change's event: want items in previous_attributes, have %v", ev.Data.PreviousAttributes)
	}

	// Two seats fewer, prorated (docs.stripe.com/billing/subscriptions/
	// prorations): the unused time of 3 seats credited, the time left of 1
	// charged, pending for the next invoice.
	sub, err = sc.V1Subscriptions.Update(ctx, sub.ID, &stripe.SubscriptionUpdateParams{
		Items: []*stripe.SubscriptionUpdateItemParams{{ID: stripe.String(it.ID), Quantity: stripe.Int64(1)}},
	})
	payOK(t, "fewer seats", err)
	pro := pendingProrations(t, sc, cus)
	if len(pro) != 2 {
		t.Fatalf("fewer seats: want two proration items, have %d", len(pro))
	}
	now, start, end := pro[0].Period.Start, it.CurrentPeriodStart, it.CurrentPeriodEnd
	share := func(full int64) int64 { return (2*full*(end-now) + (end - start)) / (2 * (end - start)) }
	if credit, charge := pro[1], pro[0]; credit.Amount != -share(3*2500) || charge.Amount != share(2500) || !credit.Proration || !charge.Proration ||
		credit.Period.End != end || charge.Quantity != 1 || credit.Quantity != 3 {
		t.Errorf("prorations from %d of %d-%d: want -%d for 3 seats and %d for 1, both to the period's end; have %d x%d and %d x%d",
			now, start, end, share(3*2500), share(2500), credit.Amount, credit.Quantity, charge.Amount, charge.Quantity)
	}
	// always_invoice bills them, and the next change's, at once.
	sub, err = sc.V1Subscriptions.Update(ctx, sub.ID, &stripe.SubscriptionUpdateParams{
		Items:             []*stripe.SubscriptionUpdateItemParams{{ID: stripe.String(it.ID), Quantity: stripe.Int64(3)}},
		ProrationBehavior: stripe.String("always_invoice"),
	})
	payOK(t, "seats back, invoiced now", err)
	upd, err := sc.V1Invoices.Retrieve(ctx, sub.LatestInvoice.ID, nil)
	payOK(t, "the proration invoice", err)
	wantLines := []int64{-share(3 * 2500), share(2500)} // the pending pair
	now = upd.Created
	wantLines = append(wantLines, -share(2500), share(3*2500)) // and this change's
	var haveLines []int64
	var sum int64
	for _, l := range upd.Lines.Data {
		haveLines = append(haveLines, l.Amount)
	}
	for _, n := range wantLines {
		sum += n
	}
	slices.Sort(haveLines)
	slices.Sort(wantLines)
	if upd.BillingReason != "subscription_update" || upd.Status != stripe.InvoiceStatusPaid || !slices.Equal(haveLines, wantLines) || upd.Total != sum {
		t.Errorf("always_invoice: want a paid subscription_update invoice of the 4 prorations %v, %d; have %s %s %v %d", wantLines, sum, upd.BillingReason, upd.Status, haveLines, upd.Total)
	}
	if p := pendingProrations(t, sc, cus); len(p) != 0 {
		t.Errorf("after always_invoice: want nothing pending, have %d", len(p))
	}

	// Cancel at the period's end, then change one's mind
	// (docs.stripe.com/billing/subscriptions/cancel).
	sub, err = sc.V1Subscriptions.Update(ctx, sub.ID, &stripe.SubscriptionUpdateParams{CancelAtPeriodEnd: stripe.Bool(true)})
	payOK(t, "cancel at period end", err)
	if sub.Status != stripe.SubscriptionStatusActive || !sub.CancelAtPeriodEnd || sub.CancelAt != it.CurrentPeriodEnd || sub.CanceledAt == 0 ||
		sub.CancellationDetails == nil || sub.CancellationDetails.Reason != "cancellation_requested" {
		t.Errorf("cancel_at_period_end: want active, cancel_at %d, canceled_at, reason cancellation_requested; have %s %v %d %d %+v",
			it.CurrentPeriodEnd, sub.Status, sub.CancelAtPeriodEnd, sub.CancelAt, sub.CanceledAt, sub.CancellationDetails)
	}
	ev = latestEvent(t, sc, "customer.subscription.updated")
	for _, k := range []string{"cancel_at", "cancel_at_period_end", "canceled_at", "cancellation_details"} {
		if _, ok := ev.Data.PreviousAttributes[k]; !ok {
			t.Errorf("cancel_at_period_end's event: want %s in previous_attributes, have %v", k, ev.Data.PreviousAttributes)
		}
	}
	sub, err = sc.V1Subscriptions.Update(ctx, sub.ID, &stripe.SubscriptionUpdateParams{CancelAtPeriodEnd: stripe.Bool(false)})
	payOK(t, "keep the subscription", err)
	if sub.Status != stripe.SubscriptionStatusActive || sub.CancelAtPeriodEnd || sub.CancelAt != 0 || sub.CanceledAt != 0 ||
		sub.CancellationDetails == nil || sub.CancellationDetails.Reason != "" {
		t.Errorf("cancel_at_period_end cleared: want active, no cancel_at, canceled_at or reason; have %s %v %d %d %+v",
			sub.Status, sub.CancelAtPeriodEnd, sub.CancelAt, sub.CanceledAt, sub.CancellationDetails)
	}
	sub, err = sc.V1Subscriptions.Update(ctx, sub.ID, &stripe.SubscriptionUpdateParams{Params: stripe.Params{Metadata: map[string]string{"team": "blue"}}})
	payOK(t, "metadata", err)
	ev = latestEvent(t, sc, "customer.subscription.updated")
	if md, ok := ev.Data.PreviousAttributes["metadata"]; !ok || len(ev.Data.PreviousAttributes) != 1 {
		t.Errorf("metadata's event: want only metadata in previous_attributes, have %v (%v)", ev.Data.PreviousAttributes, md)
	}
	var o map[string]any
	if err := json.Unmarshal(ev.Data.Raw, &o); err != nil || o["id"] != sub.ID {
		t.Fatalf("event object: %v %v", err, o["id"])
	}
	if !jsonEqual(t, ev.Data.Raw, sub.LastResponse.RawJSON) {
		t.Errorf("update's event: want data.object the answer\nevent  %s\nanswer %s", ev.Data.Raw, sub.LastResponse.RawJSON)
	}

	// A retried create with its key makes one subscription.
	var first *stripe.Subscription
	for i := 0; i < 2; i++ {
		p := &stripe.SubscriptionCreateParams{Customer: stripe.String(cus), Items: []*stripe.SubscriptionCreateItemParams{{Price: stripe.String(price)}}}
		p.SetIdempotencyKey("sub-once")
		s, err := sc.V1Subscriptions.Create(ctx, p)
		payOK(t, "subscription with a key", err)
		if first == nil {
			first = s
		} else if s.ID != first.ID || s.LastResponse.Header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("subscription retried with its key: want %s replayed, have %s", first.ID, s.ID)
		}
	}
	n := 0
	for range sc.V1Subscriptions.List(ctx, &stripe.SubscriptionListParams{Customer: stripe.String(cus)}) {
		n++
	}
	if n != 2 {
		t.Errorf("subscriptions of %s: want 2, have %d", cus, n)
	}
}

// latestEvent is the session's newest event of typ.
func latestEvent(tb testing.TB, sc *stripe.Client, typ string) *stripe.Event {
	tb.Helper()
	for ev, err := range sc.V1Events.List(context.Background(), &stripe.EventListParams{Type: stripe.String(typ)}) {
		payOK(tb, "events of "+typ, err)
		return ev
	}
	tb.Fatalf("no %s event", typ)
	return nil
}

// TestStripeReviewSettled: a paid intent's amount and method no longer
// change, though its metadata does; an update that names some of a
// subscription's items changes those (quantity, deleted) and keeps the
// others.
func TestStripeReviewSettled(t *testing.T) {
	sc, _ := payClient(t, reviewTwin(t), "review-settled")
	ctx := context.Background()
	pi := paidIntent(t, sc, 2000, "", "pm_card_visa")
	_, err := sc.V1PaymentIntents.Update(ctx, pi.ID, &stripe.PaymentIntentUpdateParams{Amount: stripe.Int64(3000)})
	se := payErr(t, "change a paid intent's amount", err, 400)
	if want := "This PaymentIntent's amount could not be updated because it has a status of succeeded. You may only update the amount of a PaymentIntent with one of the following statuses: requires_payment_method, requires_confirmation, requires_action."; se.Code != "payment_intent_unexpected_state" || se.Msg != want || se.Param != "amount" {
		t.Errorf("amount of a paid intent:\nwant payment_intent_unexpected_state on amount %s\nhave %s on %s %s", want, se.Code, se.Param, se.Msg)
	}
	up, err := sc.V1PaymentIntents.Update(ctx, pi.ID, &stripe.PaymentIntentUpdateParams{Params: stripe.Params{Metadata: map[string]string{"order": "7"}}})
	payOK(t, "metadata of a paid intent", err)
	if up.Amount != 2000 || up.Metadata["order"] != "7" || up.Status != stripe.PaymentIntentStatusSucceeded {
		t.Errorf("paid intent's metadata: want 2000 succeeded with order=7, have %d %s %v", up.Amount, up.Status, up.Metadata)
	}
	open, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(2000), Currency: stripe.String("usd")})
	payOK(t, "an open intent", err)
	open, err = sc.V1PaymentIntents.Update(ctx, open.ID, &stripe.PaymentIntentUpdateParams{Amount: stripe.Int64(2500)})
	payOK(t, "change an open intent's amount", err)
	if open.Amount != 2500 {
		t.Errorf("open intent's amount: want 2500, have %d", open.Amount)
	}
	_, err = sc.V1PaymentIntents.Update(ctx, open.ID, &stripe.PaymentIntentUpdateParams{Amount: stripe.Int64(20)})
	if se := payErr(t, "an open intent's amount below the minimum", err, 400); se.Code != "amount_too_small" {
		t.Errorf("amount 20 usd on update: want amount_too_small, have %s %q", se.Code, se.Msg)
	}

	cus, price := reviewPlan(t, sc, 1000)
	_, addon := reviewPlan(t, sc, 300)
	sub, err := sc.V1Subscriptions.Create(ctx, &stripe.SubscriptionCreateParams{Customer: stripe.String(cus), Items: []*stripe.SubscriptionCreateItemParams{
		{Price: stripe.String(price), Quantity: stripe.Int64(2)}, {Price: stripe.String(addon)}, {Price: stripe.String(addon), Quantity: stripe.Int64(4)},
	}})
	payOK(t, "subscription of three items", err)
	seats, extra, kept := sub.Items.Data[0], sub.Items.Data[1], sub.Items.Data[2]
	sub, err = sc.V1Subscriptions.Update(ctx, sub.ID, &stripe.SubscriptionUpdateParams{Items: []*stripe.SubscriptionUpdateItemParams{
		{ID: stripe.String(seats.ID), Quantity: stripe.Int64(5)}, {ID: stripe.String(extra.ID), Deleted: stripe.Bool(true)},
	}})
	payOK(t, "five seats, no add-on", err)
	type item struct {
		id, price string
		qty, end  int64
	}
	var have []item
	for _, it := range sub.Items.Data {
		have = append(have, item{it.ID, it.Price.ID, it.Quantity, it.CurrentPeriodEnd})
	}
	want := []item{{seats.ID, price, 5, seats.CurrentPeriodEnd}, {kept.ID, addon, 4, kept.CurrentPeriodEnd}}
	if !reflect.DeepEqual(have, want) {
		t.Errorf("items after the update:\nwant %+v\nhave %+v", want, have)
	}
}

// TestStripeReviewPreview: the preview of a subscription's next invoice
// is its next period at its items' prices and quantities, with the
// customer's pending invoice items; it keeps nothing, and the renewal
// the clock makes bills what it showed. A customer with nothing to
// invoice is Stripe's invoice_upcoming_none.
func TestStripeReviewPreview(t *testing.T) {
	base := reviewTwin(t)
	s := newBillingSession(t, base, stripeDoc(t), "review-preview")
	sc := s.sc
	ctx := context.Background()
	cus, price := reviewPlan(t, sc, 1500)
	sub, err := sc.V1Subscriptions.Create(ctx, &stripe.SubscriptionCreateParams{
		Customer: stripe.String(cus), Items: []*stripe.SubscriptionCreateItemParams{{Price: stripe.String(price), Quantity: stripe.Int64(3)}},
	})
	billingMust(t, "subscription of 3 seats", err)
	_, err = sc.V1InvoiceItems.Create(ctx, &stripe.InvoiceItemCreateParams{Customer: stripe.String(cus), Amount: stripe.Int64(250), Currency: stripe.String("usd"), Description: stripe.String("setup")})
	billingMust(t, "a pending item", err)
	it := sub.Items.Data[0]
	pre, err := sc.V1Invoices.CreatePreview(ctx, &stripe.InvoiceCreatePreviewParams{Subscription: stripe.String(sub.ID)})
	billingMust(t, "preview", err)
	if pre.Total != 4750 || pre.AmountDue != 4750 || len(pre.Lines.Data) != 2 || pre.Status != stripe.InvoiceStatusDraft || pre.Customer.ID != cus ||
		!strings.HasPrefix(pre.ID, "upcoming_") {
		t.Fatalf("preview: want an upcoming_ draft of 4500 + 250 for %s in two lines, have %s %s %d due %d, %d lines", cus, pre.ID, pre.Status, pre.Total, pre.AmountDue, len(pre.Lines.Data))
	}
	if l := pre.Lines.Data[0]; l.Amount != 4500 || l.Quantity != 3 || l.Period.Start != it.CurrentPeriodEnd || l.Period.End <= it.CurrentPeriodEnd {
		t.Errorf("preview's line: want 3 x 1500 for the period from %d, have %d x%d %d-%d", it.CurrentPeriodEnd, l.Amount, l.Quantity, l.Period.Start, l.Period.End)
	}
	if _, err := sc.V1Invoices.Retrieve(ctx, pre.ID, nil); !isStripeError(err, 404) {
		t.Errorf("the preview's invoice: want none kept (404), have %v", err)
	}
	var pending int
	for _, err := range sc.V1InvoiceItems.List(ctx, &stripe.InvoiceItemListParams{Customer: stripe.String(cus), Pending: stripe.Bool(true)}) {
		billingMust(t, "pending items", err)
		pending++
	}
	if pending != 1 {
		t.Errorf("after a preview: want the item still pending, have %d pending", pending)
	}

	s.advance(it.CurrentPeriodEnd - billingEpoch + 60)
	sub, err = sc.V1Subscriptions.Retrieve(ctx, sub.ID, nil)
	billingMust(t, "subscription renewed", err)
	inv, err := sc.V1Invoices.Retrieve(ctx, sub.LatestInvoice.ID, nil)
	billingMust(t, "renewal's invoice", err)
	if inv.Total != pre.Total || inv.AmountPaid != pre.Total || len(inv.Lines.Data) != 2 || inv.BillingReason != "subscription_cycle" {
		t.Errorf("renewal: want the preview's %d paid in two lines, have %s %d paid %d, %d lines", pre.Total, inv.BillingReason, inv.Total, inv.AmountPaid, len(inv.Lines.Data))
	}

	other, err := sc.V1Customers.Create(ctx, &stripe.CustomerCreateParams{Email: stripe.String("none@example.com")})
	billingMust(t, "a customer with nothing to bill", err)
	_, err = sc.V1Invoices.CreatePreview(ctx, &stripe.InvoiceCreatePreviewParams{Customer: stripe.String(other.ID)})
	var se *stripe.Error
	if !errors.As(err, &se) || se.HTTPStatusCode != 400 || se.Code != "invoice_upcoming_none" {
		t.Errorf("preview with nothing to invoice: want 400 invoice_upcoming_none, have %v", err)
	}
	s.done()
}

// TestStripeReviewRefusedCreates: what Stripe refuses to make at all: an
// intent below the currency's minimum charge, a subscription of a
// one-time price, and one whose first invoice is to be charged to a
// customer with no payment method (unless default_incomplete); none of
// them is made.
func TestStripeReviewRefusedCreates(t *testing.T) {
	sc, _ := payClient(t, reviewTwin(t), "review-refused")
	ctx := context.Background()
	for _, c := range []struct {
		amount   int64
		currency string
		msg      string // "" when made
	}{
		{49, "usd", "Amount must be at least $0.50 usd"},
		{50, "usd", ""},
		{29, "gbp", "Amount must be at least £0.30 gbp"},
		{49, "jpy", "Amount must be at least ¥50 jpy"},
		{1, "xyz", ""}, // no minimum known
	} {
		_, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(c.amount), Currency: stripe.String(c.currency)})
		if c.msg == "" {
			payOK(t, "intent of the minimum", err)
			continue
		}
		if se := payErr(t, "intent below the minimum", err, 400); se.Code != "amount_too_small" || se.Param != "amount" || se.Msg != c.msg {
			t.Errorf("%d %s: want amount_too_small on amount %q, have %s on %s %q", c.amount, c.currency, c.msg, se.Code, se.Param, se.Msg)
		}
	}
	n := 0
	for range sc.V1PaymentIntents.List(ctx, nil) {
		n++
	}
	if n != 2 {
		t.Errorf("intents made: want the 2 not refused, have %d", n)
	}

	cus, err := sc.V1Customers.Create(ctx, &stripe.CustomerCreateParams{Email: stripe.String("nopm@example.com")})
	payOK(t, "customer without a payment method", err)
	monthly, err := sc.V1Prices.Create(ctx, &stripe.PriceCreateParams{Currency: stripe.String("usd"), UnitAmount: stripe.Int64(900),
		Recurring: &stripe.PriceCreateRecurringParams{Interval: stripe.String("month")}, ProductData: &stripe.PriceCreateProductDataParams{Name: stripe.String("Plan")}})
	payOK(t, "monthly price", err)
	once, err := sc.V1Prices.Create(ctx, &stripe.PriceCreateParams{Currency: stripe.String("usd"), UnitAmount: stripe.Int64(900),
		ProductData: &stripe.PriceCreateProductDataParams{Name: stripe.String("Once")}})
	payOK(t, "one-time price", err)
	_, err = sc.V1Subscriptions.Create(ctx, &stripe.SubscriptionCreateParams{Customer: stripe.String(cus.ID), PaymentBehavior: stripe.String("default_incomplete"),
		Items: []*stripe.SubscriptionCreateItemParams{{Price: stripe.String(monthly.ID)}, {Price: stripe.String(once.ID)}}})
	if se := payErr(t, "subscription of a one-time price", err, 400); se.Param != "items[1][price]" || !strings.Contains(se.Msg, "type=recurring") {
		t.Errorf("one-time price: want refused on items[1][price], have %q %q", se.Param, se.Msg)
	}
	_, err = sc.V1Subscriptions.Create(ctx, &stripe.SubscriptionCreateParams{Customer: stripe.String(cus.ID), Items: []*stripe.SubscriptionCreateItemParams{{Price: stripe.String(monthly.ID)}}})
	if se := payErr(t, "subscription charged to no payment method", err, 400); !strings.HasPrefix(se.Msg, "This customer has no attached payment source or default payment method.") {
		t.Errorf("no payment method: want Stripe's refusal, have %q", se.Msg)
	}
	sub, err := sc.V1Subscriptions.Create(ctx, &stripe.SubscriptionCreateParams{Customer: stripe.String(cus.ID), PaymentBehavior: stripe.String("default_incomplete"),
		Items: []*stripe.SubscriptionCreateItemParams{{Price: stripe.String(monthly.ID)}}})
	payOK(t, "default_incomplete without a payment method", err)
	if sub.Status != stripe.SubscriptionStatusIncomplete {
		t.Errorf("default_incomplete: want incomplete, have %s", sub.Status)
	}
	trial, err := sc.V1Subscriptions.Create(ctx, &stripe.SubscriptionCreateParams{Customer: stripe.String(cus.ID), TrialPeriodDays: stripe.Int64(7),
		Items: []*stripe.SubscriptionCreateItemParams{{Price: stripe.String(monthly.ID)}}})
	payOK(t, "a trial without a payment method", err)
	if trial.Status != stripe.SubscriptionStatusTrialing {
		t.Errorf("trial: want trialing, have %s", trial.Status)
	}
	var made []string
	for s, err := range sc.V1Subscriptions.List(ctx, &stripe.SubscriptionListParams{Customer: stripe.String(cus.ID), Status: stripe.String("all")}) {
		payOK(t, "subscriptions", err)
		made = append(made, s.ID)
	}
	if want := []string{trial.ID, sub.ID}; !reflect.DeepEqual(made, want) {
		t.Errorf("subscriptions made: want only %v, have %v", want, made)
	}
}

// TestStripeReviewCustomerDeleted: deleting a customer cancels their
// subscriptions at once, each with its customer.subscription.deleted
// before the customer.deleted.
func TestStripeReviewCustomerDeleted(t *testing.T) {
	sc, _ := payClient(t, reviewTwin(t), "review-customer-deleted")
	ctx := context.Background()
	cus, price := reviewPlan(t, sc, 800)
	var subs []string
	for i := 0; i < 2; i++ {
		sub, err := sc.V1Subscriptions.Create(ctx, &stripe.SubscriptionCreateParams{Customer: stripe.String(cus), Items: []*stripe.SubscriptionCreateItemParams{{Price: stripe.String(price)}}})
		payOK(t, "subscription", err)
		subs = append(subs, sub.ID)
	}
	_, err := sc.V1Customers.Delete(ctx, cus, nil)
	payOK(t, "delete the customer", err)
	for _, id := range subs {
		sub, err := sc.V1Subscriptions.Retrieve(ctx, id, nil)
		payOK(t, "retrieve "+id, err)
		if sub.Status != stripe.SubscriptionStatusCanceled || sub.EndedAt == 0 || sub.CanceledAt == 0 {
			t.Errorf("%s after its customer was deleted: want canceled and ended, have %s %d %d", id, sub.Status, sub.EndedAt, sub.CanceledAt)
		}
	}
	var have []string
	for ev, err := range sc.V1Events.List(ctx, &stripe.EventListParams{ListParams: stripe.ListParams{Limit: stripe.Int64(3), Single: true}}) {
		payOK(t, "events", err)
		have = append(have, string(ev.Type))
	}
	if want := []string{"customer.deleted", "customer.subscription.deleted", "customer.subscription.deleted"}; !reflect.DeepEqual(have, want) {
		t.Errorf("latest events, newest first: want %v, have %v", want, have)
	}
}

// pendingProrations are the customer's pending invoice items, newest
// first.
func pendingProrations(tb testing.TB, sc *stripe.Client, customer string) []*stripe.InvoiceItem {
	tb.Helper()
	var out []*stripe.InvoiceItem
	for ii, err := range sc.V1InvoiceItems.List(context.Background(), &stripe.InvoiceItemListParams{Customer: stripe.String(customer), Pending: stripe.Bool(true)}) {
		payOK(tb, "pending invoice items", err)
		out = append(out, ii)
	}
	return out
}
