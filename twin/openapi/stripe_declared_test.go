package openapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stripe/stripe-go/v82"
)

// TestStripeDeclaredEvents drives, with stripe-go, writes whose events the
// stripe twin declares as data ([resources.events], written by the
// importer from Stripe's list of event types) beside writes whose route
// emits its own events in Go (a product with default_price_data, a price
// with product_data): /v1/events holds each event once, oldest first, in
// the order the writes were made, every answer conforming to Stripe's
// description. An update's event names what it changed; a delete's
// carries the object as it was, not the deleted confirmation.
func TestStripeDeclaredEvents(t *testing.T) {
	srv := startTwin(t, "stripe", "--unknown-entity", "not_found", "--clock", "fixed")
	sc, _, ct := conformingStripe(t, srv.URL(), "declared")
	ctx := t.Context()
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	prod, err := sc.V1Products.Create(ctx, &stripe.ProductCreateParams{Name: stripe.String("Gold")})
	must("product", err)
	price, err := sc.V1Prices.Create(ctx, &stripe.PriceCreateParams{Product: stripe.String(prod.ID), UnitAmount: stripe.Int64(1500), Currency: stripe.String("usd")})
	must("price", err)
	_, err = sc.V1Products.Update(ctx, prod.ID, &stripe.ProductUpdateParams{Name: stripe.String("Platinum")})
	must("product update", err)
	coupon, err := sc.V1Coupons.Create(ctx, &stripe.CouponCreateParams{PercentOff: stripe.Float64(10), Duration: stripe.String("once")})
	must("coupon", err)
	_, err = sc.V1Coupons.Delete(ctx, coupon.ID, nil)
	must("coupon delete", err)
	// Routes whose behaviour emits these types itself, in its own order.
	withPrice, err := sc.V1Products.Create(ctx, &stripe.ProductCreateParams{Name: stripe.String("Silver"),
		DefaultPriceData: &stripe.ProductCreateDefaultPriceDataParams{UnitAmount: stripe.Int64(900), Currency: stripe.String("usd")}})
	must("product with default_price_data", err)
	inline, err := sc.V1Prices.Create(ctx, &stripe.PriceCreateParams{UnitAmount: stripe.Int64(300), Currency: stripe.String("usd"),
		ProductData: &stripe.PriceCreateProductDataParams{Name: stripe.String("Bronze")}})
	must("price with product_data", err)
	cus, err := sc.V1Customers.Create(ctx, &stripe.CustomerCreateParams{Email: stripe.String("d@example.com")})
	must("customer", err)
	_, err = sc.V1Customers.Delete(ctx, cus.ID, nil)
	must("customer delete", err)

	type seen struct{ typ, id string }
	var have []seen
	events := map[string]*stripe.Event{}
	for ev, err := range sc.V1Events.List(ctx, &stripe.EventListParams{ListParams: stripe.ListParams{Limit: stripe.Int64(100)}}) {
		must("events", err)
		var obj struct{ ID string }
		if err := json.Unmarshal(ev.Data.Raw, &obj); err != nil {
			t.Fatalf("event %s: data.object: %v", ev.ID, err)
		}
		have = append(have, seen{string(ev.Type), obj.ID})
		events[string(ev.Type)+" "+obj.ID] = ev
	}
	for i, j := 0, len(have)-1; i < j; i, j = i+1, j-1 {
		have[i], have[j] = have[j], have[i]
	}
	want := []seen{
		{"product.created", prod.ID},
		{"price.created", price.ID},
		{"product.updated", prod.ID},
		{"coupon.created", coupon.ID},
		{"coupon.deleted", coupon.ID},
		{"product.created", withPrice.ID},
		{"price.created", withPrice.DefaultPrice.ID},
		{"product.created", inline.Product.ID},
		{"price.created", inline.ID},
		{"customer.created", cus.ID},
		{"customer.deleted", cus.ID},
	}
	if len(have) != len(want) {
		t.Fatalf("events, oldest first:\nwant %v\nhave %v", want, have)
	}
	for i := range want {
		if have[i] != want[i] {
			t.Errorf("event %d: want %v, have %v", i, want[i], have[i])
		}
	}

	if ev := events["product.updated "+prod.ID]; ev != nil {
		if name := ev.Data.PreviousAttributes["name"]; name != "Gold" {
			t.Errorf("product.updated: want previous_attributes.name Gold, have %v (%v)", name, ev.Data.PreviousAttributes)
		}
		if name := ev.Data.Object["name"]; name != "Platinum" {
			t.Errorf("product.updated: want the product as updated, name Platinum; have %v", name)
		}
	}
	for _, key := range []string{"coupon.deleted " + coupon.ID, "customer.deleted " + cus.ID} {
		ev := events[key]
		if ev == nil {
			continue
		}
		if ev.Data.Object["deleted"] != nil || ev.Data.Object["object"] != strings.Fields(strings.ReplaceAll(key, ".", " "))[0] {
			t.Errorf("%s: want the object as it was, not the deleted confirmation; have %s", key, ev.Data.Raw)
		}
	}
	if ev := events["coupon.deleted "+coupon.ID]; ev != nil && ev.Data.Object["percent_off"] != 10.0 {
		t.Errorf("coupon.deleted: want the coupon with percent_off 10, have %s", ev.Data.Raw)
	}
	if ct.checked < 10 {
		t.Errorf("want every answer checked against the description, have %d", ct.checked)
	}
}
