package openapi_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stripe/stripe-go/v82"
)

// TestStripeTwinDeclines confirms a payment intent of the stripe twin
// with each of Stripe's declining test payment methods (SPEC §8) through
// stripe-go: a 402 card_error with Stripe's code, decline code, message,
// doc_url and the updated intent; the intent left requires_payment_method
// with last_payment_error; then pm_card_visa succeeds.
func TestStripeTwinDeclines(t *testing.T) {
	srv := startTwin(t, "stripe", "--unknown-entity", "not_found", "--clock", "deterministic", "--clock-epoch", "1700000000")
	ctx := context.Background()
	for _, c := range []struct {
		pm, code, decline, message string
	}{
		{"pm_card_chargeDeclined", "card_declined", "generic_decline", "Your card was declined."},
		{"pm_card_visa_chargeDeclined", "card_declined", "generic_decline", "Your card was declined."},
		{"pm_card_visa_chargeDeclinedInsufficientFunds", "card_declined", "insufficient_funds", "Your card has insufficient funds."},
		{"pm_card_visa_chargeDeclinedLostCard", "card_declined", "lost_card", "Your card was declined."},
		{"pm_card_visa_chargeDeclinedStolenCard", "card_declined", "stolen_card", "Your card was declined."},
		{"pm_card_chargeDeclinedExpiredCard", "expired_card", "", "Your card has expired."},
		{"pm_card_chargeDeclinedIncorrectCvc", "incorrect_cvc", "", "Your card's security code is incorrect."},
		{"pm_card_chargeDeclinedProcessingError", "processing_error", "", "An error occurred while processing your card. Try again in a little bit."},
	} {
		t.Run(c.pm, func(t *testing.T) {
			sc := stripeClient(srv.URL(), "decline-"+c.pm)
			pi, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(2000), Currency: stripe.String("usd")})
			stateful(t, "payment intent create", pi.LastResponse, err)
			_, err = sc.V1PaymentIntents.Confirm(ctx, pi.ID, &stripe.PaymentIntentConfirmParams{PaymentMethod: stripe.String(c.pm)})
			var se *stripe.Error
			if !errors.As(err, &se) {
				t.Fatalf("confirm: want a *stripe.Error, have %v", err)
			}
			if se.HTTPStatusCode != 402 || se.Type != stripe.ErrorTypeCard || string(se.Code) != c.code || string(se.DeclineCode) != c.decline || se.Msg != c.message {
				t.Errorf("want 402 card_error %s/%s %q, have %d %s %s/%s %q", c.code, c.decline, c.message, se.HTTPStatusCode, se.Type, se.Code, se.DeclineCode, se.Msg)
			}
			if want := "https://stripe.com/docs/error-codes/" + strings.ReplaceAll(c.code, "_", "-"); se.DocURL != want {
				t.Errorf("doc_url: want %s, have %s", want, se.DocURL)
			}
			if se.PaymentIntent == nil || se.PaymentIntent.ID != pi.ID || se.PaymentIntent.Status != stripe.PaymentIntentStatusRequiresPaymentMethod {
				t.Errorf("error.payment_intent: want %s requires_payment_method, have %+v", pi.ID, se.PaymentIntent)
			}
			got, err := sc.V1PaymentIntents.Retrieve(ctx, pi.ID, nil)
			stateful(t, "payment intent retrieve", got.LastResponse, err)
			if got.Status != stripe.PaymentIntentStatusRequiresPaymentMethod || got.LastPaymentError == nil || string(got.LastPaymentError.Code) != c.code || string(got.LastPaymentError.DeclineCode) != c.decline {
				t.Errorf("after the decline: want requires_payment_method with last_payment_error %s, have %s %+v", c.code, got.Status, got.LastPaymentError)
			}
			ok, err := sc.V1PaymentIntents.Confirm(ctx, pi.ID, &stripe.PaymentIntentConfirmParams{PaymentMethod: stripe.String("pm_card_visa")})
			stateful(t, "confirm with pm_card_visa", ok.LastResponse, err)
			if ok.Status != stripe.PaymentIntentStatusSucceeded || ok.LastPaymentError != nil || ok.AmountReceived != 2000 {
				t.Errorf("confirm with pm_card_visa after the decline: want succeeded, 2000 received, no last_payment_error; have %s %d %+v", ok.Status, ok.AmountReceived, ok.LastPaymentError)
			}
		})
	}
}
