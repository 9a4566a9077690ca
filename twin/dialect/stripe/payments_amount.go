package stripe

import (
	"net/http"

	"github.com/wraithdev/wraith/twin/dialect"
)

// Stripe's minimum charge amounts (docs.stripe.com/currencies#minimum-
// and-maximum-charge-amounts): a payment intent of less is refused with
// amount_too_small when it is created or its amount changed, before any
// attempt to charge it. A currency the table lacks has no minimum here.

// minimumCharge is the least amount of currency, in its smallest unit,
// that Stripe charges; ok is false for a currency not listed.
func minimumCharge(currency string) (min int64, ok bool) {
	switch currency {
	case "usd", "aud", "brl", "cad", "chf", "eur", "inr", "nzd", "sgd", "jpy":
		return 50, true
	case "gbp":
		return 30, true
	case "bgn":
		return 100, true
	case "aed", "myr", "pln", "ron":
		return 200, true
	case "dkk":
		return 250, true
	case "nok", "sek":
		return 300, true
	case "hkd":
		return 400, true
	case "mxn", "thb":
		return 1000, true
	case "czk":
		return 1500, true
	case "huf":
		return 17500, true
	}
	return 0, false
}

// tooSmall refuses a payment intent create or update whose amount is
// below Stripe's minimum for its currency (the one sent, else the
// intent's); any other goes on.
func tooSmall(c *dialect.Call) (dialect.Answer, bool) {
	amount, sent := paramInt(c, "amount")
	if !sent || !c.World.Has("charge") {
		return dialect.Answer{}, false
	}
	cur := param(c, "currency")
	if cur == "" {
		if pi := decode(c.Entity("payment_intent")); pi != nil {
			cur = pi.String("currency")
		}
	}
	min, ok := minimumCharge(cur)
	if !ok || amount >= min {
		return dialect.Answer{}, false
	}
	return stripeError(http.StatusBadRequest, invalidRequest("amount_too_small", "amount", "Amount must be at least "+money(min, cur)+" "+cur)), true
}
