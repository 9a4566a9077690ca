package openapi_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/stripe/stripe-go/v82"
)

// sessionTransport puts every request of a stripe-go client in one session.
type sessionTransport struct{ session string }

func (t sessionTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Wraith-Session", t.session)
	return http.DefaultTransport.RoundTrip(r)
}

func stripeClient(url, session string) *stripe.Client {
	backends := stripe.NewBackendsWithConfig(&stripe.BackendConfig{
		URL:               stripe.String(url),
		HTTPClient:        &http.Client{Transport: sessionTransport{session}},
		MaxNetworkRetries: stripe.Int64(0),
		LeveledLogger:     &stripe.LeveledLogger{Level: stripe.LevelNull},
	})
	return stripe.NewClient("sk_test_wraith", stripe.WithBackends(backends))
}

// stateful fails unless the answer came from the session's state.
func stateful(tb testing.TB, step string, r *stripe.APIResponse, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatalf("%s: %v", step, err)
	}
	if p := r.Header.Get("X-Wraith-Provenance"); p != "handler" && p != "fixture" {
		tb.Fatalf("%s: want provenance handler or fixture, have %q", step, p)
	}
}

// TestStripeGoAgainstStripeTwin runs the official client through flows
// off the recorded twins' path: setup intents, refunds, subscription
// cancel by DELETE, coupons, the invoice lifecycle.
func TestStripeGoAgainstStripeTwin(t *testing.T) {
	srv := startTwin(t, "stripe", "--unknown-entity", "not_found", "--clock", "deterministic", "--clock-epoch", "1700000000")
	ctx := context.Background()
	sc := stripeClient(srv.URL(), "agent-a")

	cus, err := sc.V1Customers.Create(ctx, &stripe.CustomerCreateParams{Email: stripe.String("ada@example.com")})
	stateful(t, "customer create", cus.LastResponse, err)
	si, err := sc.V1SetupIntents.Create(ctx, &stripe.SetupIntentCreateParams{Customer: stripe.String(cus.ID)})
	stateful(t, "setup intent create", si.LastResponse, err)
	if si.ClientSecret == "" || si.Status != stripe.SetupIntentStatusRequiresPaymentMethod {
		t.Errorf("setup intent: want a client secret and requires_payment_method, have %q %q", si.ClientSecret, si.Status)
	}
	si, err = sc.V1SetupIntents.Confirm(ctx, si.ID, &stripe.SetupIntentConfirmParams{PaymentMethod: stripe.String("pm_card_visa")})
	stateful(t, "setup intent confirm", si.LastResponse, err)
	if si.Status != stripe.SetupIntentStatusSucceeded {
		t.Errorf("setup intent confirm: want succeeded, have %q", si.Status)
	}
	pm, err := sc.V1PaymentMethods.Attach(ctx, "pm_card_visa", &stripe.PaymentMethodAttachParams{Customer: stripe.String(cus.ID)})
	if err != nil {
		// under not_found an unseen test payment method is unknown: create one
		pm, err = sc.V1PaymentMethods.Create(ctx, &stripe.PaymentMethodCreateParams{Type: stripe.String("card")})
		stateful(t, "payment method create", pm.LastResponse, err)
		pm, err = sc.V1PaymentMethods.Attach(ctx, pm.ID, &stripe.PaymentMethodAttachParams{Customer: stripe.String(cus.ID)})
	}
	stateful(t, "payment method attach", pm.LastResponse, err)
	if pm.Customer == nil || pm.Customer.ID != cus.ID {
		t.Errorf("attach: want customer %s, have %+v", cus.ID, pm.Customer)
	}
	pi, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(2000), Currency: stripe.String("usd"), Customer: stripe.String(cus.ID)})
	stateful(t, "payment intent create", pi.LastResponse, err)
	if len(pi.ClientSecret) < len(pi.ID)+9 || pi.ClientSecret[:len(pi.ID)+8] != pi.ID+"_secret_" {
		t.Errorf("payment intent: want client_secret %s_secret_..., have %q", pi.ID, pi.ClientSecret)
	}
	pi, err = sc.V1PaymentIntents.Confirm(ctx, pi.ID, &stripe.PaymentIntentConfirmParams{PaymentMethod: stripe.String(pm.ID)})
	stateful(t, "payment intent confirm", pi.LastResponse, err)
	if pi.Status != stripe.PaymentIntentStatusSucceeded || pi.AmountReceived != 2000 {
		t.Errorf("confirm: want succeeded with 2000 received, have %q %d", pi.Status, pi.AmountReceived)
	}
	re, err := sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{PaymentIntent: stripe.String(pi.ID)})
	stateful(t, "refund create", re.LastResponse, err)
	if re.Status != stripe.RefundStatusSucceeded || re.PaymentIntent == nil || re.PaymentIntent.ID != pi.ID {
		t.Errorf("refund: want succeeded for %s, have %q %+v", pi.ID, re.Status, re.PaymentIntent)
	}
	n := 0
	for r, err := range sc.V1Refunds.List(ctx, &stripe.RefundListParams{}) {
		if err != nil {
			t.Fatalf("refund list: %v", err)
		}
		if r.ID == re.ID {
			n++
		}
	}
	if n != 1 {
		t.Errorf("refund list: want the refund once, have %d", n)
	}

	prod, err := sc.V1Products.Create(ctx, &stripe.ProductCreateParams{Name: stripe.String("Plan")})
	stateful(t, "product create", prod.LastResponse, err)
	price, err := sc.V1Prices.Create(ctx, &stripe.PriceCreateParams{Product: stripe.String(prod.ID), UnitAmount: stripe.Int64(900), Currency: stripe.String("usd"), Recurring: &stripe.PriceCreateRecurringParams{Interval: stripe.String("month")}})
	stateful(t, "price create", price.LastResponse, err)
	// The customer has no payment method: Stripe makes the subscription
	// only with payment_behavior=default_incomplete (allow_incomplete,
	// the default, is its 400).
	sub, err := sc.V1Subscriptions.Create(ctx, &stripe.SubscriptionCreateParams{Customer: stripe.String(cus.ID), PaymentBehavior: stripe.String("default_incomplete"),
		Items: []*stripe.SubscriptionCreateItemParams{{Price: stripe.String(price.ID), Quantity: stripe.Int64(2)}}})
	stateful(t, "subscription create", sub.LastResponse, err)
	if sub.Items == nil || len(sub.Items.Data) != 1 {
		t.Fatalf("subscription create: want one item, have %+v", sub.Items)
	}
	if it := sub.Items.Data[0]; !strings.HasPrefix(it.ID, "si_") || it.Subscription != sub.ID || it.Quantity != 2 || it.Price == nil || it.Price.ID != price.ID || it.Price.UnitAmount != 900 || it.Price.Recurring == nil || it.Price.Recurring.Interval != "month" {
		t.Errorf("subscription item: want an si_ item of %s, quantity 2, with the price object %s (900, monthly), have %+v (price %+v)", sub.ID, price.ID, it, it.Price)
	}
	sub, err = sc.V1Subscriptions.Cancel(ctx, sub.ID, nil)
	stateful(t, "subscription cancel (DELETE)", sub.LastResponse, err)
	if sub.Status != stripe.SubscriptionStatusCanceled || sub.CanceledAt == 0 {
		t.Errorf("cancel: want status canceled with canceled_at, have %q %d", sub.Status, sub.CanceledAt)
	}

	cp, err := sc.V1Coupons.Create(ctx, &stripe.CouponCreateParams{PercentOff: stripe.Float64(25), Duration: stripe.String("once")})
	stateful(t, "coupon create", cp.LastResponse, err)
	got, err := sc.V1Coupons.Retrieve(ctx, cp.ID, nil)
	stateful(t, "coupon retrieve", got.LastResponse, err)
	if got.PercentOff != 25 {
		t.Errorf("coupon: want 25%% off, have %v", got.PercentOff)
	}
	del, err := sc.V1Coupons.Delete(ctx, cp.ID, nil)
	stateful(t, "coupon delete", del.LastResponse, err)
	if !del.Deleted {
		t.Errorf("coupon delete: want deleted, have %+v", del)
	}

	inv, err := sc.V1Invoices.Create(ctx, &stripe.InvoiceCreateParams{Customer: stripe.String(cus.ID)})
	stateful(t, "invoice create", inv.LastResponse, err)
	inv, err = sc.V1Invoices.FinalizeInvoice(ctx, inv.ID, nil)
	stateful(t, "invoice finalize", inv.LastResponse, err)
	inv, err = sc.V1Invoices.Pay(ctx, inv.ID, nil)
	stateful(t, "invoice pay", inv.LastResponse, err)
	if inv.Status != stripe.InvoiceStatusPaid {
		t.Errorf("pay: want paid, have %q", inv.Status)
	}
	other, err := sc.V1Invoices.Create(ctx, &stripe.InvoiceCreateParams{Customer: stripe.String(cus.ID)})
	stateful(t, "second invoice create", other.LastResponse, err)
	if _, err := sc.V1Invoices.VoidInvoice(ctx, other.ID, nil); err == nil {
		t.Errorf("void of a draft: want Stripe's 400, have success")
	}
	other, err = sc.V1Invoices.FinalizeInvoice(ctx, other.ID, nil)
	stateful(t, "second invoice finalize", other.LastResponse, err)
	other, err = sc.V1Invoices.VoidInvoice(ctx, other.ID, nil)
	stateful(t, "invoice void", other.LastResponse, err)
	if other.Status != stripe.InvoiceStatusVoid {
		t.Errorf("void: want void, have %q", other.Status)
	}

	// Another session sees none of it.
	sb := stripeClient(srv.URL(), "agent-b")
	_, err = sb.V1Customers.Retrieve(ctx, cus.ID, nil)
	var se *stripe.Error
	if !errors.As(err, &se) || se.HTTPStatusCode != 404 || se.Code != stripe.ErrorCodeResourceMissing {
		t.Errorf("agent-b reading agent-a's customer: want Stripe's 404 resource_missing, have %v", err)
	}
	for r, err := range sb.V1Refunds.List(ctx, &stripe.RefundListParams{}) {
		if err != nil {
			t.Fatalf("agent-b refund list: %v", err)
		}
		if r.ID == re.ID {
			t.Errorf("agent-b lists agent-a's refund %s", re.ID)
		}
	}
}
