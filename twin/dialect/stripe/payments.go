package stripe

import (
	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// Payments (SPEC §14, Stripe core): payment intents with their charges and
// balance transactions, capture, cancel, 3-D Secure test methods, refunds.

// payments adds the payment routes' behaviour.
func (b behaviours) payments() {}

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
	return nil, nil
}
