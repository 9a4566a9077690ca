package stripe

import (
	"net/http"
	"slices"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// Capturing and canceling an intent confirmed with capture_method=manual
// (docs.stripe.com/payments/place-a-hold-on-a-payment-method): capture
// takes amount_to_capture (all that is capturable by default) and
// releases the rest, which the charge shows as refunded; cancel releases
// it all.

// captureRoute answers POST /v1/payment_intents/{id}/capture itself: a
// capture past what is capturable is Stripe's 400, which only the
// intent's state tells.
func captureRoute(c *dialect.Call) (dialect.Answer, bool) {
	w := c.World
	if !w.Has("charge") {
		return dialect.Answer{}, false // as confirmRoute: the twin's own capture
	}
	pi := decode(c.Entity("payment_intent"))
	if pi == nil {
		return dialect.Answer{}, false // the engine's 404
	}
	if a, refused := wrongState(pi, "captured"); refused {
		return a, true
	}
	capturable := integer(pi, "amount_capturable")
	amount, sent := paramInt(c, "amount_to_capture")
	if !sent {
		amount = capturable
	}
	if amount > capturable {
		return stripeError(http.StatusBadRequest, invalidRequest("amount_too_large", "amount_to_capture",
			"The payment could not be captured because the requested capture amount is greater than the amount you can capture for this charge.")), true
	}
	for _, k := range []string{"statement_descriptor", "statement_descriptor_suffix"} {
		if v := param(c, k); v != "" {
			pi.Set(k, v)
		}
	}
	if fee, sent := paramInt(c, "application_fee_amount"); sent {
		pi.Set("application_fee_amount", num(fee))
	}
	mergeMetadata(pi, c.Params["metadata"])
	return dialect.Answer{Status: http.StatusOK, Body: captureIntent(c, pi, amount),
		Ignored: unacted(c, "amount_to_capture", "application_fee_amount", "metadata", "statement_descriptor", "statement_descriptor_suffix")}, true
}

// captureIntent captures amount of pi, a requires_capture intent, and
// its charge, releasing the rest; it returns the intent as kept.
func captureIntent(c *dialect.Call, pi *object.Object, amount int64) []byte {
	w := c.World
	ch := load(w, "charge", fieldID(pi, "latest_charge"))
	if ch != nil {
		ch.Set("captured", true)
		ch.Set("amount_captured", num(amount))
		// What is not captured is released: Stripe shows it refunded.
		ch.Set("amount_refunded", num(integer(ch, "amount")-amount))
		ch.Set("refunded", amount == 0)
		ch.Set("balance_transaction", chargeTransaction(w, ch, amount))
		keep(w, "charge", ch)
	}
	pi.Set("amount_capturable", num(0))
	pi.Set("amount_received", num(amount))
	pi.Set("status", "succeeded")
	body := keep(w, "payment_intent", pi)
	if ch != nil {
		emit(w, c, "charge.captured", ch, nil)
	}
	emit(w, c, "payment_intent.succeeded", pi, nil)
	return body
}

// chargeCaptureRoute answers POST /v1/charges/{id}/capture, the Charges
// API's capture, for a charge a held payment intent made: the intent is
// captured (amount, default all of it), and the answer is the charge.
func chargeCaptureRoute(c *dialect.Call) (dialect.Answer, bool) {
	w := c.World
	ch := decode(c.Entity("charge"))
	if ch == nil {
		return dialect.Answer{}, false
	}
	if captured(ch) {
		return stripeError(http.StatusBadRequest, invalidRequest("charge_already_captured", "", "Charge "+ch.String("id")+" has already been captured.")), true
	}
	pi := load(w, "payment_intent", fieldID(ch, "payment_intent"))
	if pi == nil || pi.String("status") != "requires_capture" || ch.String("status") != "succeeded" {
		return dialect.Answer{}, false // a charge of the Charges API: the engine's
	}
	capturable := integer(pi, "amount_capturable")
	amount, sent := paramInt(c, "amount")
	if !sent {
		amount = capturable
	}
	if amount > capturable {
		return stripeError(http.StatusBadRequest, invalidRequest("amount_too_large", "amount",
			"The payment could not be captured because the requested capture amount is greater than the amount you can capture for this charge.")), true
	}
	captureIntent(c, pi, amount)
	return dialect.Answer{Status: http.StatusOK, Body: w.Get("charge", ch.String("id")), Ignored: unacted(c, "amount")}, true
}

// mergeMetadata sets the metadata keys sent (a map of strings) on o's
// metadata; a key sent empty is removed, as Stripe removes it.
func mergeMetadata(o *object.Object, sent any) {
	m, ok := sent.(map[string]any)
	if !ok {
		return
	}
	md := object.New(len(m))
	if cur, ok := o.Get("metadata"); ok {
		if co, ok := cur.(*object.Object); ok {
			md = co.Clone()
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys) // new keys in a stable order
	for _, k := range keys {
		if v, _ := m[k].(string); v == "" {
			md.Delete(k)
		} else {
			md.Set(k, v)
		}
	}
	o.Set("metadata", md)
}

// cancelRoute refuses the cancel of an intent in a status Stripe does
// not cancel from, with Stripe's error carrying the intent; any other
// cancel is the engine's (the overlay's cancel action).
func cancelRoute(c *dialect.Call) (dialect.Answer, bool) {
	if !c.World.Has("charge") {
		return dialect.Answer{}, false // as confirmRoute: the twin's own cancel
	}
	pi := decode(c.Entity("payment_intent"))
	if pi == nil {
		return dialect.Answer{}, false // the engine's 404
	}
	return wrongState(pi, "canceled")
}

// canceled follows the engine's cancel of an intent (the overlay's
// cancel action sets its status): an uncaptured charge is released, as
// a refund of all of it.
func canceled(c *dialect.Call, _ int, body []byte) []byte {
	w := c.World
	pi := decode(body)
	if pi == nil || pi.String("status") != "canceled" {
		return nil
	}
	pi = load(w, "payment_intent", pi.String("id"))
	if pi == nil {
		return nil
	}
	ch := load(w, "charge", fieldID(pi, "latest_charge"))
	released := ch != nil && ch.String("status") == "succeeded" && !captured(ch)
	if released {
		ch.Set("amount_refunded", num(integer(ch, "amount")))
		ch.Set("refunded", true)
		keep(w, "charge", ch)
	}
	pi.Set("amount_capturable", num(0))
	body = keep(w, "payment_intent", pi)
	if released {
		emit(w, c, "charge.refunded", ch, nil)
	}
	emit(w, c, "payment_intent.canceled", pi, nil)
	return body
}

// captured reports whether ch was captured.
func captured(ch *object.Object) bool {
	v, _ := ch.Get("captured")
	b, _ := v.(bool)
	return b
}
