package stripe

// Payments (SPEC §14, Stripe core): payment intents with their charges and
// balance transactions, capture, cancel, 3-D Secure test methods, refunds.

// payments adds the payment routes' behaviour.
func (b behaviours) payments() {}
