package stripe

import (
	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// Payments (SPEC §14, Stripe core): payment intents with their charges and
// balance transactions, capture, cancel, 3-D Secure test methods, refunds.
// The files payments_*.go hold each part: confirm, capture and cancel,
// refunds, balance transactions, the test payment methods, errors.

// payments adds the payment routes' behaviour.
func (b behaviours) payments() {
	// A create with confirm=true is confirmed once the engine made the
	// intent from the request.
	b["POST /v1/payment_intents"] = behaviour{before: tooSmall, after: intentCreated, takes: append(confirmTakes(), "confirm")}
	b["POST /v1/payment_intents/{id}"] = behaviour{before: func(c *dialect.Call) (dialect.Answer, bool) {
		if a, ok := intentUpdatable(c); ok {
			return a, true
		}
		return tooSmall(c)
	}}
	b["POST /v1/payment_intents/{id}/confirm"] = behaviour{before: confirmRoute}
	b["POST /v1/payment_intents/{id}/capture"] = behaviour{before: captureRoute}
	b["POST /v1/payment_intents/{id}/cancel"] = behaviour{before: cancelRoute, after: canceled}
	b["POST /v1/refunds"] = behaviour{before: refundable, after: refunded}
	// A test token attached is a new method of the session.
	b["POST /v1/payment_methods/{id}/attach"] = behaviour{before: attachTestMethod}
	// The Charges API's capture and refund, on a charge an intent made.
	b["POST /v1/charges/{id}/capture"] = behaviour{before: chargeCaptureRoute}
	b["POST /v1/charges/{id}/refund"] = behaviour{before: chargeRefundRoute}
}

// intentCreated follows the engine's create of a payment intent: its
// event, and the confirm that confirm=true asks for.
func intentCreated(c *dialect.Call, _ int, body []byte) []byte {
	w := c.World
	pi := decode(body)
	if pi == nil {
		return nil
	}
	if pi = load(w, "payment_intent", pi.String("id")); pi == nil {
		return nil
	}
	emit(w, c, "payment_intent.created", pi, nil)
	if param(c, "confirm") != "true" || !w.Has("charge") {
		return nil // a twin without charges confirms by its own rules only
	}
	// The intent stays made, as Stripe keeps it; a decline or a missing
	// payment method is the answer's error all the same (Restate).
	ans, _ := answerAttempt(c, confirmIntent(w, c, pi, optsOf(c)))
	return ans.Body
}

// payment is an amount to collect from a customer's payment method, as an
// invoice's payment collects it.
type payment struct {
	Amount        int64
	Currency      string
	Customer      string
	PaymentMethod string
	Description   string
}

// decline is why a payment failed, in Stripe's words (a card_error's
// code, decline_code and message).
type decline struct {
	Code, DeclineCode, Message string
}

// collect makes and confirms a payment intent for p off-session: it
// succeeds with its charge and balance transaction, or ends in
// requires_payment_method with a failed charge and the decline (nil when
// it succeeded). It returns the payment intent as kept; nil when the twin
// declares no payment intents.
func collect(w dialect.World, c *dialect.Call, p payment) (pi *object.Object, declined *decline) {
	pi = fresh(w, "payment_intent")
	if pi == nil {
		return nil, nil
	}
	pi.Set("amount", num(p.Amount))
	pi.Set("client_secret", dialect.DerivedSecret(pi.String("id")))
	pi.Set("currency", p.Currency)
	if p.Customer != "" {
		pi.Set("customer", p.Customer)
	}
	if p.Description != "" {
		pi.Set("description", p.Description)
	}
	pi.Set("payment_method_types", []any{"card"})
	status := "requires_payment_method"
	if p.PaymentMethod != "" {
		pi.Set("payment_method", p.PaymentMethod)
		status = "requires_confirmation"
	}
	pi.Set("status", status)
	keep(w, "payment_intent", pi)
	emit(w, c, "payment_intent.created", pi, nil)
	a := confirmIntent(w, c, pi, confirmOpts{offSession: true})
	if a.missing {
		return pi, &decline{Code: "payment_intent_unexpected_state", Message: "The customer has no payment method to charge: attach one and make it the default (invoice_settings.default_payment_method)."}
	}
	return a.pi, a.declined
}
