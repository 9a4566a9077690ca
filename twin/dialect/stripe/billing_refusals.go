package stripe

import (
	"net/http"
	"strconv"

	"github.com/wraithdev/wraith/twin/dialect"
)

// What Stripe refuses of a new subscription before making it
// (docs.stripe.com/billing/subscriptions/overview, payment-methods-setting):
// an item whose price is not recurring, and, when the first invoice is to
// be charged at once (charge_automatically, payment_behavior
// allow_incomplete or error_if_incomplete, no trial, something due), a
// customer with no payment method to charge. Stripe makes no
// subscription then, so neither does the twin: the refusal comes before
// the engine's create.

// subscriptionRefused answers Stripe's 400 for a subscription it would
// not make, or declines.
func subscriptionRefused(c *dialect.Call) (dialect.Answer, bool) {
	w := c.World
	if !w.Has("price") {
		return dialect.Answer{}, false
	}
	sent, _ := c.Params["items"].([]any)
	var due int64
	for i, v := range sent {
		m := asMap(v)
		pr := load(w, "price", text(m, "price"))
		if pr == nil {
			continue // price_data, or the engine's missing reference
		}
		if pr.String("type") == "one_time" {
			return stripeError(http.StatusBadRequest, invalidRequest("", "items["+strconv.Itoa(i)+"][price]",
				"The price specified is set to `type=one_time` but this field only accepts prices with `type=recurring`.")), true
		}
		qty := int64(1)
		if q, err := strconv.ParseInt(text(m, "quantity"), 10, 64); err == nil {
			qty = q
		}
		due += integer(pr, "unit_amount") * qty
	}
	if due == 0 || param(c, "collection_method") == "send_invoice" || param(c, "payment_behavior") == "default_incomplete" ||
		param(c, "default_payment_method") != "" || param(c, "default_source") != "" || trialing(c) {
		return dialect.Answer{}, false
	}
	cus := load(w, "customer", param(c, "customer"))
	if cus == nil || idOf(mustGet(child(cus, "invoice_settings"), "default_payment_method")) != "" || idOf(mustGet(cus, "default_source")) != "" {
		return dialect.Answer{}, false
	}
	return stripeError(http.StatusBadRequest, invalidRequest("resource_missing", "",
		"This customer has no attached payment source or default payment method. Please consider adding a default payment method. "+
			"For more information, visit https://stripe.com/docs/billing/subscriptions/payment-methods-setting#payment-method-priority.")), true
}

// trialing reports whether a create asks for a trial, with nothing due
// until it ends.
func trialing(c *dialect.Call) bool {
	if d, err := strconv.ParseInt(param(c, "trial_period_days"), 10, 64); err == nil && d > 0 {
		return true
	}
	te, err := strconv.ParseInt(param(c, "trial_end"), 10, 64)
	return err == nil && te > c.Now
}
