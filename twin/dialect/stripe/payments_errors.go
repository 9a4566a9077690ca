package stripe

import (
	"bytes"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// Stripe's errors on the payment routes, which carry what only the
// session's state knows (the intent as it is after a decline, the amount
// left to refund): built here as Stripe answers them, {"error": {...}}
// with its fields in Stripe's order.

// stripeError is an answer of status carrying e as Stripe's error.
func stripeError(status int, e *object.Object) dialect.Answer {
	env := object.New(1)
	env.Set("error", e)
	return dialect.Answer{Status: status, Body: env.AppendJSON(nil)}
}

// invalidRequest is Stripe's invalid_request_error with code (none when
// ""), about param (none when ""), saying message.
func invalidRequest(code, param, message string) *object.Object {
	e := object.New(5)
	if code != "" {
		e.Set("code", code)
		e.Set("doc_url", docURL(code))
	}
	e.Set("message", message)
	if param != "" {
		e.Set("param", param)
	}
	e.Set("type", "invalid_request_error")
	return e
}

// docURL is the page of Stripe's error codes that explains code.
func docURL(code string) string {
	return "https://stripe.com/docs/error-codes/" + strings.ReplaceAll(code, "_", "-")
}

// paramInt is the request's whole-number parameter name, and whether it
// was sent as one (request validation has checked its shape).
func paramInt(c *dialect.Call, name string) (int64, bool) {
	n, err := strconv.ParseInt(param(c, name), 10, 64)
	return n, err == nil
}

// Restate is the status of an error an after returned in place of the
// engine's 2xx (a create with confirm=true whose card declines): Stripe's
// status for the error's type. Any other body keeps the engine's status.
func (Dialect) Restate(body []byte) int {
	if !bytes.HasPrefix(body, []byte(`{"error":`)) {
		return 0
	}
	env := decode(body)
	if env == nil {
		return 0
	}
	e, _ := env.Get("error")
	eo, _ := e.(*object.Object)
	if eo == nil {
		return 0
	}
	switch eo.String("type") {
	case "card_error":
		return http.StatusPaymentRequired
	case "invalid_request_error":
		return http.StatusBadRequest
	}
	return 0
}

var _ dialect.Restater = Dialect{}

// unacted are c's top-level parameters outside acted (and expand, which
// the engine reads), sorted: what a handled answer reports ignored.
func unacted(c *dialect.Call, acted ...string) []string {
	var out []string
	for k := range c.Params {
		if k != "expand" && !slices.Contains(acted, k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// intentStatuses are the statuses a payment intent may be done (confirmed,
// captured, canceled) from, in the order Stripe's refusal lists them.
func intentStatuses(done string) []string {
	switch done {
	case "confirmed":
		return []string{"requires_confirmation", "requires_payment_method", "requires_action"}
	case "captured":
		return []string{"requires_capture"}
	}
	return []string{"requires_payment_method", "requires_capture", "requires_confirmation", "requires_action", "processing"}
}

// wrongState is Stripe's refusal of an action on pi in a status it may
// not be done from (docs.stripe.com/error-codes/payment-intent-unexpected-
// state): the message names the status and those that would do, and the
// error carries the intent. ok is false when pi's status allows it.
func wrongState(pi *object.Object, done string) (a dialect.Answer, ok bool) {
	allowed := intentStatuses(done)
	status := pi.String("status")
	if slices.Contains(allowed, status) {
		return dialect.Answer{}, false
	}
	var msg string
	switch {
	case done == "confirmed" && status == "succeeded":
		msg = "You cannot confirm this PaymentIntent because it has already succeeded after being previously confirmed."
	case done == "captured":
		msg = "This PaymentIntent could not be captured because it has a status of " + status + ". Only a PaymentIntent with one of the following statuses may be captured: " + strings.Join(allowed, ", ") + "."
	default:
		verb := strings.TrimSuffix(done, "ed")
		if done == "canceled" {
			verb = "cancel"
		}
		msg = "You cannot " + verb + " this PaymentIntent because it has a status of " + status + ". Only a PaymentIntent with one of the following statuses may be " + done + ": " + strings.Join(allowed, ", ") + "."
	}
	e := object.New(5)
	e.Set("code", "payment_intent_unexpected_state")
	e.Set("doc_url", docURL("payment_intent_unexpected_state"))
	e.Set("message", msg)
	e.Set("payment_intent", pi)
	e.Set("type", "invalid_request_error")
	return stripeError(http.StatusBadRequest, e), true
}
