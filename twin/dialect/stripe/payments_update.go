package stripe

import (
	"net/http"
	"slices"
	"strings"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// An update of a payment intent (docs.stripe.com/api/payment_intents/
// update): what is to be paid, and how, can change only until the intent
// is paid or held. Once it succeeded, waits for capture, is processing
// or was canceled, Stripe refuses a change of its amount, currency or
// payment method; its metadata, description, receipt_email, shipping
// and the like can still change.

// settledFields are the fields an update may not change on an intent in
// a status outside updatable, in the order a refusal names them.
func settledFields() []string {
	return []string{"amount", "currency", "payment_method", "payment_method_types", "capture_method", "setup_future_usage"}
}

// updatable are the statuses in which an intent's amount and method may
// change, in the order Stripe's refusal lists them.
func updatable() []string {
	return []string{"requires_payment_method", "requires_confirmation", "requires_action"}
}

// intentUpdatable refuses an update that changes what a settled intent
// is paid with or how much, as Stripe does; any other update is the
// engine's.
func intentUpdatable(c *dialect.Call) (dialect.Answer, bool) {
	if !c.World.Has("charge") {
		return dialect.Answer{}, false // as confirmRoute: the twin's own rules
	}
	pi := decode(c.Entity("payment_intent"))
	if pi == nil || slices.Contains(updatable(), pi.String("status")) {
		return dialect.Answer{}, false
	}
	for _, f := range settledFields() {
		if _, sent := c.Params[f]; !sent {
			continue
		}
		e := object.New(6)
		e.Set("code", "payment_intent_unexpected_state")
		e.Set("doc_url", docURL("payment_intent_unexpected_state"))
		e.Set("message", "This PaymentIntent's "+f+" could not be updated because it has a status of "+pi.String("status")+
			". You may only update the "+f+" of a PaymentIntent with one of the following statuses: "+strings.Join(updatable(), ", ")+".")
		e.Set("param", f)
		e.Set("payment_intent", pi)
		e.Set("type", "invalid_request_error")
		return stripeError(http.StatusBadRequest, e), true
	}
	return dialect.Answer{}, false
}
