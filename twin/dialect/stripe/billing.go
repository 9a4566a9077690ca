package stripe

import "github.com/wraithdev/wraith/twin/dialect"

// Billing (SPEC §14, Stripe core): products and prices, invoices and
// their totals, subscriptions, and what the session's clock makes of them.

// billing adds the billing routes' behaviour.
func (b behaviours) billing() {}

// renew runs the billing work that falls due between from and to
// (renewals, trial ends), in order.
func renew(w dialect.World, from, to int64) {}
