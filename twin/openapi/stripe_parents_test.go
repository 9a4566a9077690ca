package openapi_test

import (
	"context"
	"testing"

	"github.com/stripe/stripe-go/v82"
)

// TestStripeNestedSayTheirParent drives the official client through the
// objects Stripe keeps under a parent: each says the parent its path
// names, as Stripe answers it (a fee refund its fee, a transfer reversal
// its transfer, a customer's tax id its customer), whether it was
// created, read back or updated, and a list under one parent holds only
// its own. A fee refund and a transfer reversal, whose collection the
// description names otherwise than their item (/v1/application_fees/{id}
// /refunds beside /v1/application_fees/{fee}/refunds/{id}), are kept.
func TestStripeNestedSayTheirParent(t *testing.T) {
	ctx := context.Background()

	t.Run("synthesized", func(t *testing.T) {
		sc := stripeClient(startTwin(t, "stripe").URL(), "synth")
		fr, err := sc.V1FeeRefunds.Retrieve(ctx, "fr_123", &stripe.FeeRefundRetrieveParams{Fee: stripe.String("fee_123")})
		if err != nil {
			t.Fatalf("fee refund retrieve: %v", err)
		}
		if fr.ID != "fr_123" || fr.Fee == nil || fr.Fee.ID != "fee_123" {
			t.Fatalf("fee refund read at fee_123/fr_123: want that id and fee, have %q and %+v", fr.ID, fr.Fee)
		}
		fr, err = sc.V1FeeRefunds.Update(ctx, fr.ID, &stripe.FeeRefundUpdateParams{Fee: stripe.String(fr.Fee.ID), Metadata: map[string]string{"k": "v"}})
		if err != nil || fr.Metadata["k"] != "v" || fr.Fee.ID != "fee_123" {
			t.Fatalf("fee refund saved at its own URL: want metadata k=v under fee_123, have %+v, %v", fr, err)
		}
		tr, err := sc.V1TransferReversals.Retrieve(ctx, "trr_1", &stripe.TransferReversalRetrieveParams{ID: stripe.String("tr_1")})
		if err != nil || tr.ID != "trr_1" || tr.Transfer == nil || tr.Transfer.ID != "tr_1" {
			t.Fatalf("transfer reversal read at tr_1/trr_1: have %+v, %v", tr, err)
		}
	})

	t.Run("created", func(t *testing.T) {
		sc := stripeClient(startTwin(t, "stripe", "--unknown-entity", "not_found").URL(), "made")
		cus, err := sc.V1Customers.Create(ctx, &stripe.CustomerCreateParams{Email: stripe.String("ada@example.com")})
		stateful(t, "customer create", cus.LastResponse, err)
		txi, err := sc.V1TaxIDs.Create(ctx, &stripe.TaxIDCreateParams{Customer: stripe.String(cus.ID), Type: stripe.String("eu_vat"), Value: stripe.String("DE123456789")})
		stateful(t, "tax id create", txi.LastResponse, err)
		if txi.Customer == nil || txi.Customer.ID != cus.ID {
			t.Fatalf("tax id created under %s: want its customer, have %+v", cus.ID, txi.Customer)
		}
		got, err := sc.V1TaxIDs.Retrieve(ctx, txi.ID, &stripe.TaxIDRetrieveParams{})
		stateful(t, "tax id read at /v1/tax_ids", got.LastResponse, err)
		if got.Customer == nil || got.Customer.ID != cus.ID {
			t.Fatalf("tax id read where the path names no customer: want it to keep %s, have %+v", cus.ID, got.Customer)
		}

		fr, err := sc.V1FeeRefunds.Create(ctx, &stripe.FeeRefundCreateParams{ID: stripe.String("fee_1"), Amount: stripe.Int64(50)})
		stateful(t, "fee refund create", fr.LastResponse, err)
		if fr.Fee == nil || fr.Fee.ID != "fee_1" || fr.Amount != 50 || fr.ID == "" {
			t.Fatalf("fee refund created under fee_1: have %+v", fr)
		}
		back, err := sc.V1FeeRefunds.Retrieve(ctx, fr.ID, &stripe.FeeRefundRetrieveParams{Fee: stripe.String("fee_1")})
		stateful(t, "fee refund read back", back.LastResponse, err)
		if back.Amount != 50 {
			t.Fatalf("fee refund read back: want amount 50, have %d", back.Amount)
		}
		if _, err := sc.V1FeeRefunds.Retrieve(ctx, fr.ID, &stripe.FeeRefundRetrieveParams{Fee: stripe.String("fee_2")}); err == nil {
			t.Fatalf("fee refund of fee_1 read under fee_2: want Stripe's not-found")
		}
		n := 0
		for r, err := range sc.V1FeeRefunds.List(ctx, &stripe.FeeRefundListParams{ID: stripe.String("fee_2")}) {
			if err != nil {
				t.Fatalf("fee refunds of fee_2: %v", err)
			}
			t.Errorf("fee refunds of fee_2 list %s of fee_1", r.ID)
			n++
		}
		for r, err := range sc.V1FeeRefunds.List(ctx, &stripe.FeeRefundListParams{ID: stripe.String("fee_1")}) {
			if err != nil || r.ID != fr.ID {
				t.Fatalf("fee refunds of fee_1: want %s, have %v, %v", fr.ID, r, err)
			}
			n++
		}
		if n != 1 {
			t.Fatalf("fee refunds listed: want 1, have %d", n)
		}
	})
}

// TestStripeSubscriptionOfUnknownPrices: under the synthesize policy a
// subscription naming prices the session never made is answered (stripe-go's
// own TestSubscriptionNew), where billing its first invoice panicked on
// the price it could not read.
func TestStripeSubscriptionOfUnknownPrices(t *testing.T) {
	sc := stripeClient(startTwin(t, "stripe").URL(), "subs")
	sub, err := sc.V1Subscriptions.Create(context.Background(), &stripe.SubscriptionCreateParams{
		Customer:         stripe.String("cus_123"),
		CollectionMethod: stripe.String("charge_automatically"),
		Items: []*stripe.SubscriptionCreateItemParams{
			{Price: stripe.String("price_ABC"), Quantity: stripe.Int64(10)},
			{PriceData: &stripe.SubscriptionCreateItemPriceDataParams{
				Currency: stripe.String("usd"), Product: stripe.String("prod_ABC"), UnitAmount: stripe.Int64(1000),
				Recurring: &stripe.SubscriptionCreateItemPriceDataRecurringParams{Interval: stripe.String("month"), IntervalCount: stripe.Int64(6)},
			}},
		},
		AddInvoiceItems: []*stripe.SubscriptionCreateAddInvoiceItemParams{{Price: stripe.String("price_123"), Quantity: stripe.Int64(2)}},
	})
	if err != nil {
		t.Fatalf("subscription of unknown prices: %v", err)
	}
	if sub.ID == "" || sub.Items == nil || len(sub.Items.Data) != 2 {
		t.Fatalf("subscription: want an id and its two items, have %+v", sub)
	}
}
