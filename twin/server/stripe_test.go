package server

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/stripe/stripe-go/v82"
)

// sessionTransport puts every request of a stripe-go client in one
// Wraith session.
type sessionTransport struct {
	session string
	base    http.RoundTripper
}

func (t sessionTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Wraith-Session", t.session)
	return t.base.RoundTrip(r)
}

// stripeClient is the official client pointed at a twin, in one session.
func stripeClient(url, session string) *stripe.Client {
	httpClient := &http.Client{Transport: sessionTransport{session: session, base: http.DefaultTransport}}
	backends := stripe.NewBackendsWithConfig(&stripe.BackendConfig{
		URL:               stripe.String(url),
		HTTPClient:        httpClient,
		MaxNetworkRetries: stripe.Int64(0),
		LeveledLogger:     &stripe.LeveledLogger{Level: stripe.LevelNull},
	})
	return stripe.NewClient("sk_test_wraith", stripe.WithBackends(backends))
}

// TestStripeDecodesRecorded decodes recorded answers of every checkout
// resource with stripe-go's types.
func TestStripeDecodesRecorded(t *testing.T) {
	srv := startServer(t, "checkout")
	sc := stripeClient(srv.URL(), "decode")
	ctx := context.Background()

	cus, err := sc.V1Customers.Retrieve(ctx, "cus_123", nil)
	if err != nil {
		t.Fatalf("retrieve cus_123: %v", err)
	}
	if cus.ID != "cus_123" || cus.Currency != "usd" || cus.InvoiceSettings == nil {
		t.Errorf("cus_123 decoded as %+v", cus)
	}
	if have := cus.LastResponse.Header.Get("X-Wraith-Provenance"); have != "recorded" {
		t.Errorf("provenance: want recorded, have %q", have)
	}
	n := 0
	for c, err := range sc.V1Customers.List(ctx, &stripe.CustomerListParams{ListParams: stripe.ListParams{Limit: stripe.Int64(2)}}) {
		if err != nil {
			t.Fatalf("list customers: %v", err)
		}
		if c.ID == "" || c.Object != "customer" {
			t.Errorf("listed customer decoded as %+v", c)
		}
		n++
	}
	if n < 3 {
		t.Errorf("auto-pagination over 2-item pages: want at least 3 customers, have %d", n)
	}
	for p, err := range sc.V1Products.List(ctx, nil) {
		if err != nil {
			t.Fatalf("list products: %v", err)
		}
		if p.ID == "" || p.Name == "" {
			t.Errorf("product decoded as %+v", p)
		}
	}
	for p, err := range sc.V1Prices.List(ctx, nil) {
		if err != nil {
			t.Fatalf("list prices: %v", err)
		}
		if p.ID == "" || p.Currency == "" {
			t.Errorf("price decoded as %+v", p)
		}
	}
	for pi, err := range sc.V1PaymentIntents.List(ctx, nil) {
		if err != nil {
			t.Fatalf("list payment intents: %v", err)
		}
		if pi.ID == "" || pi.Status == "" || pi.Amount == 0 {
			t.Errorf("payment intent decoded as %+v", pi)
		}
	}
	for cs, err := range sc.V1CheckoutSessions.List(ctx, nil) {
		if err != nil {
			t.Fatalf("list checkout sessions: %v", err)
		}
		if cs.ID == "" || cs.Mode == "" {
			t.Errorf("checkout session decoded as %+v", cs)
		}
	}

	tmpl, err := sc.V1Customers.Retrieve(ctx, "cus_neverseen", nil)
	if err != nil {
		t.Fatalf("retrieve unknown under synthesize: %v", err)
	}
	if tmpl.ID != "cus_neverseen" || tmpl.LastResponse.Header.Get("X-Wraith-Provenance") != "template" {
		t.Errorf("unknown customer under synthesize: want a template answer for cus_neverseen, have %s (%s)", tmpl.ID, tmpl.LastResponse.Header.Get("X-Wraith-Provenance"))
	}
}

// TestStripeClientLifecycle drives customers and payment intents through
// the official client in one session, as an agent would.
func TestStripeClientLifecycle(t *testing.T) {
	srv := startServer(t, "checkout", "--unknown-entity", "not_found", "--seed", "7", "--clock", "deterministic", "--clock-epoch", "1700000000")
	sc := stripeClient(srv.URL(), "stripe-agent")
	other := stripeClient(srv.URL(), "someone-else")
	ctx := context.Background()

	params := &stripe.CustomerCreateParams{Email: stripe.String("jenny@example.com"), Name: stripe.String("Jenny Rosen")}
	params.AddMetadata("order", "42")
	params.SetIdempotencyKey("create-jenny")
	cus, err := sc.V1Customers.Create(ctx, params)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if cus.Metadata["order"] != "42" || cus.Created != 1700000000 || cus.Email == "" {
		t.Errorf("created customer: %+v", cus)
	}
	retry := &stripe.CustomerCreateParams{Email: stripe.String("jenny@example.com"), Name: stripe.String("Jenny Rosen")}
	retry.AddMetadata("order", "42")
	retry.SetIdempotencyKey("create-jenny")
	again, err := sc.V1Customers.Create(ctx, retry)
	if err != nil {
		t.Fatalf("idempotent retry: %v", err)
	}
	if again.ID != cus.ID || again.LastResponse.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("idempotent retry: want id %s replayed, have %s (replayed=%q)", cus.ID, again.ID, again.LastResponse.Header.Get("Idempotent-Replayed"))
	}

	got, err := sc.V1Customers.Retrieve(ctx, cus.ID, nil)
	if err != nil || got.ID != cus.ID || got.Email != cus.Email {
		t.Fatalf("retrieve: want %s, have %+v, %v", cus.ID, got, err)
	}
	if _, err := other.V1Customers.Retrieve(ctx, cus.ID, nil); err == nil {
		t.Errorf("another session retrieved %s; sessions must not see each other's entities", cus.ID)
	}

	up := &stripe.CustomerUpdateParams{Description: stripe.String("VIP")}
	up.AddMetadata("tier", "gold")
	updated, err := sc.V1Customers.Update(ctx, cus.ID, up)
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if updated.Description != "VIP" || updated.Metadata["tier"] != "gold" || updated.Metadata["order"] != "42" {
		t.Errorf("updated customer: %+v", updated)
	}

	found := false
	for c, err := range sc.V1Customers.List(ctx, &stripe.CustomerListParams{}) {
		if err != nil {
			t.Fatalf("list: %v", err)
		}
		if c.ID == cus.ID {
			found = c.Description == "VIP"
		}
	}
	if !found {
		t.Errorf("list: the updated customer %s is missing or stale", cus.ID)
	}

	del, err := sc.V1Customers.Delete(ctx, cus.ID, nil)
	if err != nil || !del.Deleted {
		t.Fatalf("delete: want deleted, have %+v, %v", del, err)
	}
	after, err := sc.V1Customers.Retrieve(ctx, cus.ID, nil)
	if err != nil || !after.Deleted {
		t.Errorf("retrieve after delete: want Stripe's tombstone, have %+v, %v", after, err)
	}

	piParams := &stripe.PaymentIntentCreateParams{
		Amount:        stripe.Int64(2000),
		Currency:      stripe.String(stripe.CurrencyUSD),
		CaptureMethod: stripe.String(string(stripe.PaymentIntentCaptureMethodManual)),
	}
	piParams.SetIdempotencyKey("pi-1")
	pi, err := sc.V1PaymentIntents.Create(ctx, piParams)
	if err != nil {
		t.Fatalf("create payment intent: %v", err)
	}
	if pi.Status != stripe.PaymentIntentStatusRequiresPaymentMethod || pi.Amount != 2000 {
		t.Errorf("created payment intent: %+v", pi)
	}
	piRetry := &stripe.PaymentIntentCreateParams{
		Amount:        stripe.Int64(2000),
		Currency:      stripe.String(stripe.CurrencyUSD),
		CaptureMethod: stripe.String(string(stripe.PaymentIntentCaptureMethodManual)),
	}
	piRetry.SetIdempotencyKey("pi-1")
	if again, err := sc.V1PaymentIntents.Create(ctx, piRetry); err != nil || again.ID != pi.ID {
		t.Errorf("idempotent payment intent retry: want %s, have %+v, %v", pi.ID, again, err)
	}
	confirmed, err := sc.V1PaymentIntents.Confirm(ctx, pi.ID, &stripe.PaymentIntentConfirmParams{PaymentMethod: stripe.String("pm_card_visa")})
	if err != nil {
		t.Fatalf("confirm: %v", err)
	}
	if confirmed.Status != stripe.PaymentIntentStatusRequiresCapture || confirmed.AmountCapturable != 2000 {
		t.Errorf("confirmed: %+v", confirmed)
	}
	captured, err := sc.V1PaymentIntents.Capture(ctx, pi.ID, nil)
	if err != nil {
		t.Fatalf("capture: %v", err)
	}
	if captured.Status != stripe.PaymentIntentStatusSucceeded || captured.AmountReceived != 2000 {
		t.Errorf("captured: %+v", captured)
	}
	_, err = sc.V1PaymentIntents.Cancel(ctx, pi.ID, nil)
	var se *stripe.Error
	if !errors.As(err, &se) || se.HTTPStatusCode != http.StatusBadRequest || se.Code != "payment_intent_unexpected_state" {
		t.Errorf("cancel after capture: want a 400 payment_intent_unexpected_state, have %v", err)
	}
	_, err = sc.V1Customers.Retrieve(ctx, "cus_neverseen", nil)
	if !errors.As(err, &se) || se.HTTPStatusCode != http.StatusNotFound || se.Code != stripe.ErrorCodeResourceMissing {
		t.Errorf("unknown customer under not_found: want Stripe's 404 resource_missing, have %v", err)
	}
}
