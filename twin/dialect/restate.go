package dialect

// Restater is what a Handler implements when the behaviour that follows
// a write (Answered) may turn the engine's 2xx into the provider's error:
// Stripe's create of a payment intent with confirm=true keeps the intent
// the engine made, but when its card declines the answer is Stripe's 402
// carrying it. The engine asks it of each body Answered returns.
type Restater interface {
	// Restate is the status of body, a body Answered returned, or 0 to
	// keep the engine's.
	Restate(body []byte) int
}
