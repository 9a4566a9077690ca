package stripe

import (
	"net/http"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// Confirming a payment intent (docs.stripe.com/payments/paymentintents/
// lifecycle): with a payment method it is charged, and the intent
// succeeds (or waits for capture) with its charge and balance
// transaction; a test card that declines leaves a failed charge and the
// intent back in requires_payment_method; a card that asks for 3-D
// Secure leaves the intent in requires_action with next_action and no
// charge. Confirming an intent in requires_action again completes the
// authentication, as a customer who passed the challenge does: it is
// then charged as any other.

// confirmOpts is what a confirm is asked beyond the intent itself.
type confirmOpts struct {
	method        string // the payment method sent; "" for the intent's own
	offSession    bool   // the customer is not there to authenticate
	errorOnAction bool   // error_on_requires_action: fail rather than ask
	returnURL     string // where a redirect_to_url next action returns
	dataType      string // the type payment_method_data makes a method of
}

// attempt is what one confirm made.
type attempt struct {
	pi       *object.Object
	charge   *object.Object // nil when no charge was made
	declined *decline       // nil unless the charge failed
	missing  bool           // no payment method to confirm with
}

// confirmIntent confirms pi, keeping it and what the confirm made in w,
// and records the events Stripe sends for it, in Stripe's order.
func confirmIntent(w dialect.World, c *dialect.Call, pi *object.Object, o confirmOpts) attempt {
	ref := o.method
	if ref == "" {
		ref = fieldID(pi, "payment_method")
	}
	if ref == "" && o.dataType == "" {
		return attempt{pi: pi, missing: true}
	}
	// Confirming again, with the method that asked for authentication,
	// completes it.
	authenticated := pi.String("status") == "requires_action" && (o.method == "" || o.method == fieldID(pi, "payment_method"))
	var m method
	if o.method == "" && o.dataType != "" {
		m = dataMethod(w, o.dataType)
	} else {
		m = resolveMethod(w, ref)
	}
	pi.Set("payment_method", m.id)
	pi.Set("next_action", nil)
	if v, _ := pi.Get("payment_method_types"); len(asList(v)) == 0 {
		typ := m.typ
		if typ == "" {
			typ = "card"
		}
		pi.Set("payment_method_types", []any{typ}) // what the payment was confirmed with
	}
	asks := m.card.auth == alwaysAuthenticate || (m.card.auth == authenticateOnSession && !o.offSession)
	if asks && !authenticated {
		if !o.offSession && !o.errorOnAction {
			requireAction(pi, o.returnURL)
			keep(w, "payment_intent", pi)
			emit(w, c, "payment_intent.requires_action", pi, nil)
			return attempt{pi: pi}
		}
		return failCharge(w, c, pi, m, authenticationRequired())
	}
	if m.card.declined != nil {
		return failCharge(w, c, pi, m, m.card.declined)
	}
	manual := pi.String("capture_method") == "manual"
	amount := integer(pi, "amount")
	ch := newCharge(w, pi, m, "succeeded")
	if ch != nil {
		ch.Set("captured", !manual)
		if !manual {
			ch.Set("amount_captured", num(amount))
			ch.Set("balance_transaction", chargeTransaction(w, ch, amount))
		}
		keep(w, "charge", ch)
		pi.Set("latest_charge", ch.String("id"))
	}
	pi.Set("last_payment_error", nil)
	saveForCustomer(w, pi, m)
	if manual {
		pi.Set("status", "requires_capture")
		pi.Set("amount_capturable", num(amount))
	} else {
		pi.Set("status", "succeeded")
		pi.Set("amount_received", num(amount))
		pi.Set("amount_capturable", num(0))
	}
	keep(w, "payment_intent", pi)
	if ch != nil {
		emit(w, c, "charge.succeeded", ch, nil)
	}
	if manual {
		emit(w, c, "payment_intent.amount_capturable_updated", pi, nil)
	} else {
		emit(w, c, "payment_intent.succeeded", pi, nil)
	}
	return attempt{pi: pi, charge: ch}
}

// saveForCustomer attaches m to pi's customer when pi was confirmed with
// setup_future_usage, as Stripe saves the method for later payments.
func saveForCustomer(w dialect.World, pi *object.Object, m method) {
	cus := fieldID(pi, "customer")
	if m.pm == nil || cus == "" || fieldID(m.pm, "customer") != "" {
		return
	}
	if v, _ := pi.Get("setup_future_usage"); v == nil || v == "" {
		return
	}
	m.pm.Set("customer", cus)
	keep(w, "payment_method", m.pm)
}

// requireAction leaves pi waiting for the customer's 3-D Secure
// authentication: Stripe.js handles use_stripe_sdk; with a return_url the
// customer is redirected instead.
func requireAction(pi *object.Object, returnURL string) {
	pi.Set("status", "requires_action")
	na := object.New(2)
	secret := pi.String("client_secret")
	if returnURL != "" {
		r := object.New(2)
		r.Set("return_url", returnURL)
		r.Set("url", "https://hooks.stripe.com/3d_secure_2/hosted?merchant=acct_wraith&payment_intent="+pi.String("id")+"&payment_intent_client_secret="+secret)
		na.Set("redirect_to_url", r)
		na.Set("type", "redirect_to_url")
	} else {
		na.Set("type", "use_stripe_sdk")
		sdk := object.New(2)
		sdk.Set("stripe_js", "https://hooks.stripe.com/3d_secure_2/hosted?merchant=acct_wraith&payment_intent="+pi.String("id"))
		sdk.Set("type", "stripe_3ds2_fingerprint")
		na.Set("use_stripe_sdk", sdk)
	}
	pi.Set("next_action", na)
}

// failCharge records a declined charge of pi with m and returns pi to
// requires_payment_method with the decline as last_payment_error, as
// Stripe does after a failed attempt.
func failCharge(w dialect.World, c *dialect.Call, pi *object.Object, m method, d *decline) attempt {
	ch := newCharge(w, pi, m, "failed")
	if ch != nil {
		ch.Set("captured", false)
		ch.Set("paid", false)
		ch.Set("failure_code", d.Code)
		ch.Set("failure_message", d.Message)
		ch.Set("outcome", declinedOutcome(d))
		keep(w, "charge", ch)
		pi.Set("latest_charge", ch.String("id"))
	}
	lpe := object.New(8)
	if ch != nil {
		lpe.Set("charge", ch.String("id"))
	}
	lpe.Set("code", d.Code)
	if d.DeclineCode != "" {
		lpe.Set("decline_code", d.DeclineCode)
	}
	lpe.Set("doc_url", docURL(d.Code))
	lpe.Set("message", d.Message)
	if m.pm != nil {
		lpe.Set("payment_method", m.pm)
	}
	lpe.Set("type", "card_error")
	pi.Set("last_payment_error", lpe)
	pi.Set("payment_method", nil)
	pi.Set("status", "requires_payment_method")
	keep(w, "payment_intent", pi)
	if ch != nil {
		emit(w, c, "charge.failed", ch, nil)
	}
	emit(w, c, "payment_intent.payment_failed", pi, nil)
	return attempt{pi: pi, charge: ch, declined: d}
}

// newCharge is a charge of pi's amount with m, not yet kept; nil when
// the twin declares no charges.
func newCharge(w dialect.World, pi *object.Object, m method, status string) *object.Object {
	ch := fresh(w, "charge")
	if ch == nil {
		return nil
	}
	amount := integer(pi, "amount")
	ch.Set("amount", num(amount))
	ch.Set("amount_captured", num(0))
	ch.Set("amount_refunded", num(0))
	bd := noBillingDetails()
	if m.pm != nil {
		if v, ok := m.pm.Get("billing_details"); ok {
			if o, ok := v.(*object.Object); ok && o.Len() > 0 {
				bd = o
			}
		}
	}
	ch.Set("billing_details", bd)
	ch.Set("calculated_statement_descriptor", "WRAITH")
	ch.Set("currency", pi.String("currency"))
	if cus := fieldID(pi, "customer"); cus != "" {
		ch.Set("customer", cus)
	}
	if v, ok := pi.Get("description"); ok {
		ch.Set("description", v)
	}
	ch.Set("outcome", paidOutcome())
	ch.Set("paid", status == "succeeded")
	ch.Set("payment_intent", pi.String("id"))
	ch.Set("payment_method", m.id)
	ch.Set("payment_method_details", methodDetails(m, amount))
	if v, ok := pi.Get("receipt_email"); ok {
		ch.Set("receipt_email", v)
	}
	ch.Delete("presentment_details")
	ch.Set("status", status)
	return ch
}

// paidOutcome is the outcome of an authorized test charge.
func paidOutcome() *object.Object {
	o := object.New(9)
	o.Set("advice_code", nil)
	o.Set("network_advice_code", nil)
	o.Set("network_decline_code", nil)
	o.Set("network_status", "approved_by_network")
	o.Set("reason", nil)
	o.Set("risk_level", "normal")
	o.Set("risk_score", num(32))
	o.Set("seller_message", "Payment complete.")
	o.Set("type", "authorized")
	return o
}

// declinedOutcome is the outcome of a charge the issuer declined.
func declinedOutcome(d *decline) *object.Object {
	o := paidOutcome()
	reason := d.DeclineCode
	if reason == "" {
		reason = d.Code
	}
	o.Set("network_status", "declined_by_network")
	o.Set("reason", reason)
	o.Set("seller_message", "The bank did not return any further details with this decline.")
	o.Set("type", "issuer_declined")
	return o
}

// methodDetails is a charge's payment_method_details for m: a card's
// details, or for a method of another type its type's (as its payment
// method holds them).
func methodDetails(m method, amount int64) *object.Object {
	if m.typ == "" || m.typ == "card" {
		return cardDetails(m, amount)
	}
	var own any = object.New(0)
	if m.pm != nil {
		if v, ok := m.pm.Get(m.typ); ok {
			own = object.CloneValue(v)
		}
	}
	d := object.New(2)
	if m.typ < "type" { // Stripe's order: by name
		d.Set(m.typ, own)
		d.Set("type", m.typ)
	} else {
		d.Set("type", m.typ)
		d.Set(m.typ, own)
	}
	return d
}

// cardDetails is a charge's payment_method_details for m's card.
func cardDetails(m method, amount int64) *object.Object {
	card := object.New(24)
	card.Set("amount_authorized", num(amount))
	card.Set("authorization_code", nil)
	card.Set("brand", m.card.brand)
	checks := object.New(3)
	checks.Set("address_line1_check", nil)
	checks.Set("address_postal_code_check", nil)
	checks.Set("cvc_check", nil)
	card.Set("checks", checks)
	card.Set("country", m.card.country)
	month, year := int64(12), int64(2034)
	fp := fingerprint(m.id)
	if m.pm != nil {
		if co, ok := m.pm.Get("card"); ok {
			if co, ok := co.(*object.Object); ok {
				month, year, fp = integer(co, "exp_month"), integer(co, "exp_year"), co.String("fingerprint")
			}
		}
	}
	card.Set("exp_month", num(month))
	card.Set("exp_year", num(year))
	card.Set("fingerprint", fp)
	card.Set("funding", m.card.funding)
	card.Set("installments", nil)
	card.Set("last4", m.card.last4)
	card.Set("mandate", nil)
	card.Set("network", m.card.brand)
	card.Set("network_token", nil)
	card.Set("network_transaction_id", nil)
	card.Set("regulated_status", "unregulated")
	card.Set("three_d_secure", nil)
	card.Set("wallet", nil)
	d := object.New(2)
	d.Set("card", card)
	d.Set("type", "card")
	return d
}

// fieldID is o's field k as an id: the string, or an expanded object's id.
func fieldID(o *object.Object, k string) string {
	v, _ := o.Get(k)
	switch x := v.(type) {
	case string:
		return x
	case *object.Object:
		return x.String("id")
	}
	return ""
}

// confirmRoute answers POST /v1/payment_intents/{id}/confirm itself: its
// answer is a decline's 402 or a missing method's 400 as often as the
// intent, which an answer the engine made cannot become.
func confirmRoute(c *dialect.Call) (dialect.Answer, bool) {
	// A twin without charges (checkout, recorded) keeps its own confirm:
	// its recorded rules and error shapes.
	if !c.World.Has("charge") {
		return dialect.Answer{}, false
	}
	pi := decode(c.Entity("payment_intent"))
	if pi == nil {
		return dialect.Answer{}, false // the engine's 404
	}
	if a, refused := wrongState(pi, "confirmed"); refused {
		return a, true
	}
	for _, k := range []string{"receipt_email", "setup_future_usage", "capture_method"} {
		if v := param(c, k); v != "" {
			pi.Set(k, v)
		}
	}
	if types, ok := c.Params["payment_method_types"].([]any); ok {
		pi.Set("payment_method_types", types)
	}
	a, ok := answerAttempt(c, confirmIntent(c.World, c, pi, optsOf(c)))
	a.Ignored = unacted(c, confirmTakes()...)
	return a, ok
}

// confirmTakes are the parameters of a confirm its behaviour acts on.
func confirmTakes() []string {
	return []string{"capture_method", "error_on_requires_action", "off_session", "payment_method", "payment_method_data",
		"payment_method_types", "receipt_email", "return_url", "setup_future_usage", "use_stripe_sdk"}
}

// optsOf reads a confirm's options from c's parameters.
func optsOf(c *dialect.Call) confirmOpts {
	o := confirmOpts{
		method:        param(c, "payment_method"),
		offSession:    param(c, "off_session") == "true" || param(c, "off_session") == "one_off" || param(c, "off_session") == "recurring",
		errorOnAction: param(c, "error_on_requires_action") == "true",
		returnURL:     param(c, "return_url"),
	}
	if param(c, "use_stripe_sdk") == "true" {
		o.returnURL = "" // the SDK handles the action, whatever the return
	}
	if o.method == "" {
		o.dataType = methodData(c)
	}
	return o
}

// methodData is the type of the payment method payment_method_data
// describes, "" when none was sent (Stripe's description takes no card
// there: cards come as payment_method).
func methodData(c *dialect.Call) string {
	data, _ := c.Params["payment_method_data"].(map[string]any)
	typ, _ := data["type"].(string)
	return typ
}

// answerAttempt is the answer of a confirm: the intent, Stripe's 400 when
// it has no payment method, or the 402 card_error of a decline.
func answerAttempt(c *dialect.Call, a attempt) (dialect.Answer, bool) {
	switch {
	case a.missing:
		e := object.New(5)
		e.Set("code", "payment_intent_unexpected_state")
		e.Set("doc_url", docURL("payment_intent_unexpected_state"))
		e.Set("message", "You cannot confirm this PaymentIntent because it's missing a payment method. You can either update the PaymentIntent with a payment method and then confirm it again, or confirm it again directly with a payment method or ConfirmationToken.")
		e.Set("payment_intent", a.pi)
		e.Set("type", "invalid_request_error")
		return stripeError(http.StatusBadRequest, e), true
	case a.declined != nil:
		return stripeError(http.StatusPaymentRequired, cardError(a)), true
	}
	return dialect.Answer{Status: http.StatusOK, Body: a.pi.AppendJSON(nil)}, true
}

// cardError is the error of a's decline, as Stripe answers it.
func cardError(a attempt) *object.Object {
	d := a.declined
	e := object.New(9)
	if a.charge != nil {
		e.Set("charge", a.charge.String("id"))
	}
	e.Set("code", d.Code)
	if d.DeclineCode != "" {
		e.Set("decline_code", d.DeclineCode)
	}
	e.Set("doc_url", docURL(d.Code))
	e.Set("message", d.Message)
	e.Set("payment_intent", a.pi)
	if lpe, ok := a.pi.Get("last_payment_error"); ok {
		if lpe, ok := lpe.(*object.Object); ok {
			if pm, ok := lpe.Get("payment_method"); ok {
				e.Set("payment_method", pm)
			}
		}
	}
	e.Set("type", "card_error")
	return e
}

// asList is v as a JSON list, nil when it is none.
func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
