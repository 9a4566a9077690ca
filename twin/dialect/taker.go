package dialect

// Taker is what a Handler implements when the behaviour that follows a
// write (Answered) acts on parameters that name no field of the entity
// the engine wrote: Stripe's trial_period_days on a subscription, which
// sets its trial and status but is no field of its own. The engine then
// does not report them in X-Wraith-Ignored-Params; the answer honours
// them.
type Taker interface {
	// Takes reports whether the dialect acts on the top-level parameter
	// param of route's writes.
	Takes(route, param string) bool
}
