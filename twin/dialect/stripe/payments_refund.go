package stripe

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// Refunds (docs.stripe.com/refunds): a refund names its charge, or a
// payment intent whose charge it refunds; its amount is what is left
// unrefunded unless it says less; a charge refunds in parts until
// nothing is left, and then Stripe refuses. The engine keeps the refund
// the request makes (the overlay sets its status); its charge, amount,
// balance transaction and the charge's refunded amounts follow here.

// refundTarget is the charge a refund request names, directly or by its
// payment intent, or Stripe's refusal when it names none that can be
// refunded. ok false: neither is the session's, and the engine answers
// (its missing reference).
func refundTarget(c *dialect.Call) (ch *object.Object, refusal *object.Object, ok bool) {
	w := c.World
	if id := param(c, "charge"); id != "" {
		ch = load(w, "charge", id)
		if ch == nil {
			return nil, nil, false
		}
		// Both named: they must be the one payment, or the refund would
		// be of another payment than one of them says.
		if pi := param(c, "payment_intent"); pi != "" && fieldID(ch, "payment_intent") != pi {
			return ch, invalidRequest("", "payment_intent", "Charge "+id+" is not a charge of PaymentIntent "+pi+
				": send the charge or the payment intent to refund, not both, or the intent's own charge."), true
		}
		return ch, notRefundable(ch), true
	}
	id := param(c, "payment_intent")
	pi := load(w, "payment_intent", id)
	if pi == nil {
		return nil, nil, false
	}
	ch = load(w, "charge", fieldID(pi, "latest_charge"))
	if ch == nil || pi.String("status") != "succeeded" {
		return nil, invalidRequest("", "payment_intent", "This PaymentIntent does not have a successful charge to refund."), true
	}
	return ch, nil, true
}

// notRefundable refuses a refund of ch unless it was paid and captured;
// nil when it was.
func notRefundable(ch *object.Object) *object.Object {
	if ch.String("status") == "succeeded" && captured(ch) {
		return nil
	}
	return invalidRequest("charge_not_refundable", "charge", "Charge "+ch.String("id")+" has no captured payment to refund: only a succeeded, captured charge can be refunded (cancel an uncaptured payment intent to release it).")
}

// unrefunded is what is left to refund of ch: its amount less what was
// refunded or released uncaptured.
func unrefunded(ch *object.Object) int64 {
	return integer(ch, "amount") - integer(ch, "amount_refunded")
}

// refundable refuses a refund Stripe refuses: of nothing refundable, of a
// charge already refunded, or of more than is left.
func refundable(c *dialect.Call) (dialect.Answer, bool) {
	if !c.World.Has("charge") {
		return dialect.Answer{}, false
	}
	ch, refusal, ok := refundTarget(c)
	switch {
	case !ok:
		return dialect.Answer{}, false
	case refusal != nil:
		return stripeError(http.StatusBadRequest, refusal), true
	}
	if e := tooMuch(c, ch); e != nil {
		return stripeError(http.StatusBadRequest, e), true
	}
	return dialect.Answer{}, false
}

// tooMuch refuses a refund of ch of the amount c asks (all that is left
// by default): of a charge already refunded, of less than 1, or of more
// than is left. nil when it may be made.
func tooMuch(c *dialect.Call, ch *object.Object) *object.Object {
	left := unrefunded(ch)
	if left <= 0 {
		return invalidRequest("charge_already_refunded", "", "Charge "+ch.String("id")+" has already been refunded.")
	}
	amount, sent := paramInt(c, "amount")
	if sent && amount < 1 {
		return invalidRequest("parameter_invalid_integer", "amount", "This value must be greater than or equal to 1.")
	}
	if sent && amount > left {
		cur := ch.String("currency")
		return invalidRequest("", "amount", "Refund amount ("+money(amount, cur)+") is greater than unrefunded amount on charge ("+money(left, cur)+")")
	}
	return nil
}

// refunded completes the refund the engine made: its charge and amount,
// its balance transaction, and the charge's refunded amounts.
func refunded(c *dialect.Call, _ int, body []byte) []byte {
	w := c.World
	re := decode(body)
	if re == nil {
		return nil
	}
	re = load(w, "refund", re.String("id"))
	ch, refusal, ok := refundTarget(c)
	if re == nil || !ok || refusal != nil {
		return nil
	}
	return applyRefund(c, re, ch)
}

// applyRefund makes re the refund of ch that c asks for (all that is
// left by default), with its balance transaction, and the charge's
// refunded amounts follow; it returns re as kept.
func applyRefund(c *dialect.Call, re, ch *object.Object) []byte {
	w := c.World
	amount, sent := paramInt(c, "amount")
	if !sent {
		amount = unrefunded(ch)
	}
	re.Set("amount", num(amount))
	re.Set("charge", ch.String("id"))
	re.Set("currency", ch.String("currency"))
	if v, ok := ch.Get("customer"); ok {
		re.Set("customer", v)
	}
	re.Set("destination_details", refundDestination())
	re.Set("payment_intent", fieldID(ch, "payment_intent"))
	re.Set("payment_method", fieldID(ch, "payment_method"))
	re.Set("status", "succeeded")
	// What Stripe sends only for a refund that failed or waits.
	for _, k := range []string{"failure_balance_transaction", "failure_reason", "instructions_email", "next_action", "pending_reason", "presentment_details"} {
		re.Delete(k)
	}
	re.Set("balance_transaction", refundTransaction(w, re, amount))
	body := keep(w, "refund", re)
	ch.Set("amount_refunded", num(integer(ch, "amount_refunded")+amount))
	ch.Set("refunded", unrefunded(ch) == 0)
	keep(w, "charge", ch)
	emit(w, c, "charge.refunded", ch, nil)
	emit(w, c, "refund.created", re, nil)
	return body
}

// chargeRefundRoute answers POST /v1/charges/{id}/refund, the Charges
// API's refund: a refund of the charge, which is the answer.
func chargeRefundRoute(c *dialect.Call) (dialect.Answer, bool) {
	w := c.World
	ch := decode(c.Entity("charge"))
	if ch == nil || !w.Has("refund") {
		return dialect.Answer{}, false
	}
	e := notRefundable(ch)
	if e == nil {
		e = tooMuch(c, ch)
	}
	if e != nil {
		return stripeError(http.StatusBadRequest, e), true
	}
	re := fresh(w, "refund")
	re.Set("status", "succeeded")
	mergeMetadata(re, c.Params["metadata"])
	if v := param(c, "reason"); v != "" {
		re.Set("reason", v)
	}
	applyRefund(c, re, ch)
	return dialect.Answer{Status: http.StatusOK, Body: w.Get("charge", ch.String("id")), Ignored: unacted(c, "amount", "metadata", "reason")}, true
}

// refundDestination is where a card refund goes: back to the card.
func refundDestination() *object.Object {
	card := object.New(3)
	card.Set("reference_status", "pending")
	card.Set("reference_type", "acquirer_reference_number")
	card.Set("type", "refund")
	d := object.New(2)
	d.Set("card", card)
	d.Set("type", "card")
	return d
}

// money is amount of currency as Stripe's messages write it ($50.00).
func money(amount int64, currency string) string {
	symbol := map[string]string{"usd": "$", "eur": "€", "gbp": "£", "jpy": "¥"}[currency]
	if symbol == "" {
		symbol = strings.ToUpper(currency) + " "
	}
	if zeroDecimal(currency) {
		return symbol + strconv.FormatInt(amount, 10)
	}
	sign := ""
	if amount < 0 {
		sign, amount = "-", -amount
	}
	return sign + symbol + strconv.FormatInt(amount/100, 10) + "." + strconv.FormatInt(amount%100/10, 10) + strconv.FormatInt(amount%10, 10)
}

// zeroDecimal reports a currency Stripe counts in whole units
// (docs.stripe.com/currencies#zero-decimal).
func zeroDecimal(currency string) bool {
	switch currency {
	case "bif", "clp", "djf", "gnf", "jpy", "kmf", "krw", "mga", "pyg", "rwf", "ugx", "vnd", "vuv", "xaf", "xof", "xpf":
		return true
	}
	return false
}
