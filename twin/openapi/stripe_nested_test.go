package openapi_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/stripe/stripe-go/v82"
)

// TestStripeGoCustomerTaxIDs: a customer's tax id, created with stripe-go
// under one of two customers, is listed and read under that customer only;
// under the other it is Stripe's 404, and at /v1/tax_ids/{id} it is the
// same object.
func TestStripeGoCustomerTaxIDs(t *testing.T) {
	srv := startTwin(t, "stripe", "--unknown-entity", "not_found", "--clock", "deterministic", "--clock-epoch", "1700000000")
	ctx := context.Background()
	sc := stripeClient(srv.URL(), "tax-ids")

	ada, err := sc.V1Customers.Create(ctx, &stripe.CustomerCreateParams{Email: stripe.String("ada@example.com")})
	stateful(t, "customer ada", ada.LastResponse, err)
	bob, err := sc.V1Customers.Create(ctx, &stripe.CustomerCreateParams{Email: stripe.String("bob@example.com")})
	stateful(t, "customer bob", bob.LastResponse, err)

	tx, err := sc.V1TaxIDs.Create(ctx, &stripe.TaxIDCreateParams{Customer: stripe.String(ada.ID), Type: stripe.String("eu_vat"), Value: stripe.String("DE123456789")})
	stateful(t, "tax id create under ada", tx.LastResponse, err)
	if tx.ID == "" || tx.Value != "DE123456789" || tx.Type != "eu_vat" {
		t.Fatalf("tax id: want an id, eu_vat DE123456789, have %q %q %q", tx.ID, tx.Type, tx.Value)
	}

	list := func(customer string) []string {
		var ids []string
		for x, err := range sc.V1TaxIDs.List(ctx, &stripe.TaxIDListParams{Customer: stripe.String(customer)}) {
			if err != nil {
				t.Fatalf("list under %s: %v", customer, err)
			}
			ids = append(ids, x.ID)
		}
		return ids
	}
	if have := list(ada.ID); len(have) != 1 || have[0] != tx.ID {
		t.Errorf("list under ada: want [%s], have %v", tx.ID, have)
	}
	if have := list(bob.ID); len(have) != 0 {
		t.Errorf("list under bob: want none, have %v", have)
	}

	got, err := sc.V1TaxIDs.Retrieve(ctx, tx.ID, &stripe.TaxIDRetrieveParams{Customer: stripe.String(ada.ID)})
	stateful(t, "retrieve under ada", got.LastResponse, err)
	if got.Value != tx.Value {
		t.Errorf("retrieve under ada: want value %q, have %q", tx.Value, got.Value)
	}
	_, err = sc.V1TaxIDs.Retrieve(ctx, tx.ID, &stripe.TaxIDRetrieveParams{Customer: stripe.String(bob.ID)})
	var serr *stripe.Error
	if !errors.As(err, &serr) || serr.HTTPStatusCode != http.StatusNotFound || serr.Code != stripe.ErrorCodeResourceMissing {
		t.Errorf("retrieve under bob: want Stripe's 404 resource_missing, have %v", err)
	}
	top, err := sc.V1TaxIDs.Retrieve(ctx, tx.ID, nil)
	stateful(t, "retrieve at /v1/tax_ids", top.LastResponse, err)
	if top.ID != tx.ID {
		t.Errorf("retrieve at /v1/tax_ids: want %s, have %s", tx.ID, top.ID)
	}

	// Another session sees none of it.
	other := stripeClient(srv.URL(), "tax-ids-other")
	for x, err := range other.V1TaxIDs.List(ctx, &stripe.TaxIDListParams{Customer: stripe.String(ada.ID)}) {
		t.Errorf("other session: want no tax ids, have %v %v", x, err)
	}
}
