package stripe

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"time"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// Stripe's test payment methods (docs.stripe.com/testing): what each
// card is (brand, last four digits, funding, country) and what a payment
// with it does. A test token (pm_card_visa) names a card; a payment
// method the session made from a card number is known by its last four
// digits, as Stripe's test numbers are.

// authentication is what a card asks of a payment before it is charged.
type authentication int

const (
	noAuthentication authentication = iota
	// alwaysAuthenticate: 3-D Secure on every payment, on session or
	// off (4000 0027 6000 3184, 4000 0000 0000 3220).
	alwaysAuthenticate
	// authenticateOnSession: 3-D Secure on session; off session it
	// succeeds, as a card set up for future payments does (4000 0025
	// 0000 3155, 4000 0038 0000 0446).
	authenticateOnSession
)

// testCard is one of Stripe's test cards.
type testCard struct {
	brand, last4, funding, country string
	auth                           authentication
	// declined is the decline of a charge on the card (after the
	// authentication, when it asks one); nil when it is paid.
	declined *decline
}

// Declines, in Stripe's words (docs.stripe.com/declines/codes). Each
// is made anew, so that no caller can change another's.
func genericDecline() *decline {
	return &decline{Code: "card_declined", DeclineCode: "generic_decline", Message: "Your card was declined."}
}

func cardDeclined(declineCode, message string) *decline {
	return &decline{Code: "card_declined", DeclineCode: declineCode, Message: message}
}

func authenticationRequired() *decline {
	return &decline{Code: "authentication_required", DeclineCode: "authentication_required", Message: "Your card was declined. This transaction requires authentication."}
}

// testCards returns Stripe's test payment methods by token. It is a
// function, not a package variable, so that no caller can change the
// table another request reads.
func testCards() map[string]testCard {
	visa := func(last4 string, d *decline) testCard {
		return testCard{brand: "visa", last4: last4, funding: "credit", country: "US", declined: d}
	}
	return map[string]testCard{
		"pm_card_visa":               visa("4242", nil),
		"pm_card_visa_debit":         {brand: "visa", last4: "5556", funding: "debit", country: "US"},
		"pm_card_mastercard":         {brand: "mastercard", last4: "4444", funding: "credit", country: "US"},
		"pm_card_mastercard_debit":   {brand: "mastercard", last4: "8210", funding: "debit", country: "US"},
		"pm_card_mastercard_prepaid": {brand: "mastercard", last4: "5100", funding: "prepaid", country: "US"},
		"pm_card_amex":               {brand: "amex", last4: "8431", funding: "credit", country: "US"},
		"pm_card_discover":           {brand: "discover", last4: "1117", funding: "credit", country: "US"},
		"pm_card_diners":             {brand: "diners", last4: "5904", funding: "credit", country: "US"},
		"pm_card_jcb":                {brand: "jcb", last4: "0505", funding: "credit", country: "JP"},
		"pm_card_unionpay":           {brand: "unionpay", last4: "0005", funding: "credit", country: "CN"},

		"pm_card_chargeDeclined":                       visa("0002", genericDecline()),
		"pm_card_visa_chargeDeclined":                  visa("0002", genericDecline()),
		"pm_card_visa_chargeDeclinedInsufficientFunds": visa("9995", cardDeclined("insufficient_funds", "Your card has insufficient funds.")),
		"pm_card_visa_chargeDeclinedLostCard":          visa("9987", cardDeclined("lost_card", "Your card was declined.")),
		"pm_card_visa_chargeDeclinedStolenCard":        visa("9979", cardDeclined("stolen_card", "Your card was declined.")),
		"pm_card_chargeDeclinedExpiredCard":            visa("0069", &decline{Code: "expired_card", Message: "Your card has expired."}),
		"pm_card_chargeDeclinedIncorrectCvc":           visa("0127", &decline{Code: "incorrect_cvc", Message: "Your card's security code is incorrect."}),
		"pm_card_chargeDeclinedProcessingError":        visa("0119", &decline{Code: "processing_error", Message: "An error occurred while processing your card. Try again in a little bit."}),
		// Attaching it to a customer succeeds; charging it fails.
		"pm_card_chargeCustomerFail": visa("0341", genericDecline()),

		"pm_card_authenticationRequired":                                {brand: "visa", last4: "3184", funding: "credit", country: "DE", auth: alwaysAuthenticate},
		"pm_card_threeDSecure2Required":                                 {brand: "visa", last4: "3220", funding: "credit", country: "US", auth: alwaysAuthenticate},
		"pm_card_threeDSecureRequired":                                  {brand: "visa", last4: "3063", funding: "credit", country: "US", auth: alwaysAuthenticate},
		"pm_card_authenticationRequiredOnSetup":                         {brand: "visa", last4: "3155", funding: "credit", country: "IE", auth: authenticateOnSession},
		"pm_card_authenticationRequiredSetupForOffSession":              {brand: "visa", last4: "0446", funding: "credit", country: "IE", auth: authenticateOnSession},
		"pm_card_authenticationRequiredChargeDeclinedInsufficientFunds": {brand: "visa", last4: "3178", funding: "credit", country: "IE", auth: alwaysAuthenticate, declined: cardDeclined("insufficient_funds", "Your card has insufficient funds.")},
		"pm_card_threeDSecureRequiredChargeDeclined":                    {brand: "visa", last4: "1629", funding: "credit", country: "US", auth: alwaysAuthenticate, declined: genericDecline()},
		"pm_card_threeDSecureOptional":                                  visa("3055", nil),
	}
}

// cardByLast4 finds the test card a session's payment method was made
// from by its last four digits; ok false for a number not in the table.
func cardByLast4(last4 string) (testCard, bool) {
	for _, tc := range testCards() {
		if tc.last4 == last4 && (tc.declined != nil || tc.auth != noAuthentication) {
			return tc, true
		}
	}
	return testCard{}, false
}

// method is the payment method a confirm charges: its id as the intent
// and charge name it, its type ("card" unless it says otherwise), the
// card it is, and its entity when the session keeps one. A method of
// another type is paid at once, as a card is.
type method struct {
	id   string
	typ  string
	card testCard
	pm   *object.Object
}

// resolveMethod reads ref, a payment method parameter: a test token
// becomes a payment method of the session (as Stripe makes one from
// it), a session's payment method is read as it is. An id the session
// does not hold is charged as an ordinary Visa card.
func resolveMethod(w dialect.World, ref string) method {
	if tc, ok := testCards()[ref]; ok {
		// A test token the session attached to a customer is that
		// customer's method: the same id on every payment.
		if pm := load(w, "payment_method", ref); pm != nil {
			if cardOf(pm).String("last4") == "" {
				onlyType(pm, "card")
				pm.Set("card", cardObject(w, tc, ref))
				keep(w, "payment_method", pm)
			}
			return method{id: ref, card: tc, pm: pm}
		}
		pm := cardMethod(w, tc, ref)
		if pm == nil {
			return method{id: ref, card: tc}
		}
		return method{id: pm.String("id"), card: tc, pm: pm}
	}
	pm := load(w, "payment_method", ref)
	tc := testCards()["pm_card_visa"]
	if pm != nil && pm.String("type") != "card" && pm.String("type") != "" {
		return method{id: ref, typ: pm.String("type"), pm: pm}
	}
	co := cardOf(pm)
	if known, ok := cardByLast4(co.String("last4")); ok {
		tc = known
	} else if b, l := co.String("brand"), co.String("last4"); b != "" && l != "" {
		tc.brand, tc.last4 = b, l
	}
	return method{id: ref, card: tc, pm: pm}
}

// attachTestMethod answers POST /v1/payment_methods/{id}/attach for a
// test token (pm_card_visa): as Stripe does, it attaches a new payment
// method of the session made from it, whose id the answer gives.
func attachTestMethod(c *dialect.Call) (dialect.Answer, bool) {
	w := c.World
	tok := c.Path("id")
	tc, ok := testCards()[tok]
	cus := param(c, "customer")
	if !ok || load(w, "payment_method", tok) != nil || load(w, "customer", cus) == nil {
		return dialect.Answer{}, false // the engine's attach, or its missing reference
	}
	pm := cardMethod(w, tc, tok)
	if pm == nil {
		return dialect.Answer{}, false
	}
	pm.Set("customer", cus)
	body := keep(w, "payment_method", pm)
	emit(w, c, "payment_method.attached", pm, nil)
	return dialect.Answer{Status: http.StatusOK, Body: body, Ignored: unacted(c, "customer")}, true
}

// cardOf is pm's card details; an empty object when it has none.
func cardOf(pm *object.Object) *object.Object {
	if pm != nil {
		if v, ok := pm.Get("card"); ok {
			if co, ok := v.(*object.Object); ok {
				return co
			}
		}
	}
	return object.New(0)
}

// cardMethod keeps a new card payment method of the session for test
// token tok; nil when the twin declares no payment methods.
func cardMethod(w dialect.World, tc testCard, tok string) *object.Object {
	pm := fresh(w, "payment_method")
	if pm == nil {
		return nil
	}
	onlyType(pm, "card")
	pm.Set("card", cardObject(w, tc, tok))
	keep(w, "payment_method", pm)
	return pm
}

// cardObject is a payment method's card details for test card tc.
func cardObject(w dialect.World, tc testCard, tok string) *object.Object {
	card := object.New(14)
	card.Set("brand", tc.brand)
	checks := object.New(3)
	checks.Set("address_line1_check", nil)
	checks.Set("address_postal_code_check", nil)
	checks.Set("cvc_check", "unchecked")
	card.Set("checks", checks)
	card.Set("country", tc.country)
	card.Set("display_brand", tc.brand)
	month, year := expiry(w.Now())
	card.Set("exp_month", num(month))
	card.Set("exp_year", num(year))
	card.Set("fingerprint", fingerprint(tok))
	card.Set("funding", tc.funding)
	card.Set("generated_from", nil)
	card.Set("last4", tc.last4)
	networks := object.New(2)
	networks.Set("available", []any{tc.brand})
	networks.Set("preferred", nil)
	card.Set("networks", networks)
	card.Set("regulated_status", "unregulated")
	tds := object.New(1)
	tds.Set("supported", true)
	card.Set("three_d_secure_usage", tds)
	card.Set("wallet", nil)
	return card
}

// expiry is the month and year a test card expires: a year from the
// session's time t (unix seconds), so that it is never expired.
func expiry(t int64) (month, year int64) {
	d := time.Unix(t, 0).UTC()
	return int64(d.Month()), int64(d.Year() + 1)
}

// fingerprint is a card's fingerprint: the same card, the same 16
// characters, in every session.
func fingerprint(tok string) string {
	sum := sha256.Sum256([]byte("wraith card " + tok))
	return strings.ToUpper(hex.EncodeToString(sum[:]))[:16]
}

// noBillingDetails is the billing details of a payment method no one
// filled in: every field null, as Stripe answers them.
func noBillingDetails() *object.Object {
	addr := object.New(6)
	for _, k := range []string{"city", "country", "line1", "line2", "postal_code", "state"} {
		addr.Set(k, nil)
	}
	b := object.New(5)
	b.Set("address", addr)
	for _, k := range []string{"email", "name", "phone", "tax_id"} {
		b.Set(k, nil)
	}
	return b
}

// dataMethod keeps the payment method of type typ that a confirm's
// payment_method_data makes; a method with a fresh id and no entity when
// the twin declares no payment methods.
func dataMethod(w dialect.World, typ string) method {
	pm := fresh(w, "payment_method")
	if pm == nil {
		return method{id: w.NewID("pm_"), typ: typ}
	}
	onlyType(pm, typ)
	keep(w, "payment_method", pm)
	return method{id: pm.String("id"), typ: typ, pm: pm}
}

// onlyType makes pm, a payment method from the skeleton (which holds
// every type's details), a method of type typ: its own details only, and
// billing details with every field, null where no one filled it in.
func onlyType(pm *object.Object, typ string) {
	for _, k := range append([]string(nil), pm.Keys()...) {
		if v, _ := pm.Get(k); k != typ && k != "billing_details" && k != "metadata" && k != "radar_options" {
			if _, ok := v.(*object.Object); ok {
				pm.Delete(k)
			}
		}
	}
	bd := noBillingDetails()
	if v, ok := pm.Get("billing_details"); ok {
		if set, ok := v.(*object.Object); ok {
			for _, k := range set.Keys() {
				x, _ := set.Get(k)
				bd.Set(k, x)
			}
		}
	}
	pm.Set("billing_details", bd)
	pm.Set("type", typ)
}
