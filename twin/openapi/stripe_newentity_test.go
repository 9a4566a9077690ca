package openapi_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stripe/stripe-go/v82"
)

// TestStripeNewEntities creates a customer, a payment intent, a product
// and prices with stripe-go and checks that each holds only what was
// sent, the schema's empty values and its own ids (SPEC §13): the fields
// a fixture used to leak into every new object (a customer's discount
// obj_123, currency usd and shipping; a payment intent's transfer
// destination and managed payments; another product's default_price; a
// price's unit_amount_decimal 2000 and type recurring) are the
// provider's values for a new object.
func TestStripeNewEntities(t *testing.T) {
	srv := startTwin(t, "stripe", "--unknown-entity", "not_found", "--clock", "deterministic", "--clock-epoch", "1700000000")
	ctx := context.Background()
	sc := stripeClient(srv.URL(), "new-entities")

	cus, err := sc.V1Customers.Create(ctx, &stripe.CustomerCreateParams{Email: stripe.String("ada@example.com")})
	stateful(t, "customer create", cus.LastResponse, err)
	noScaffolding(t, "customer", cus.LastResponse.RawJSON, `"usd"`)
	if cus.Discount != nil || cus.Currency != "" || cus.Shipping != nil || cus.DefaultSource != nil {
		t.Errorf("customer: want no discount, currency, shipping or default source, have %+v %q %+v %+v", cus.Discount, cus.Currency, cus.Shipping, cus.DefaultSource)
	}
	if cus.Email != "ada@example.com" || cus.Delinquent || cus.TaxExempt != stripe.CustomerTaxExemptNone || len(cus.Metadata) != 0 || cus.Balance != 0 {
		t.Errorf("customer: want the email sent, not delinquent, tax_exempt none, no metadata, balance 0; have %q %v %q %v %d", cus.Email, cus.Delinquent, cus.TaxExempt, cus.Metadata, cus.Balance)
	}
	if l := cus.Subscriptions; l == nil || len(l.Data) != 0 || l.HasMore || l.URL != "/v1/customers/"+cus.ID+"/subscriptions" {
		t.Errorf("customer: want an empty list of subscriptions at /v1/customers/%s/subscriptions, have %+v", cus.ID, l)
	}
	if !strings.HasPrefix(cus.ID, "cus_") || cus.Created != 1700000000 {
		t.Errorf("customer: want its own cus_ id and the session clock's created, have %q %d", cus.ID, cus.Created)
	}

	pi, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(1500), Currency: stripe.String("eur"), Customer: stripe.String(cus.ID)})
	stateful(t, "payment intent create", pi.LastResponse, err)
	noScaffolding(t, "payment intent", pi.LastResponse.RawJSON, `"managed_payments":{`)
	if pi.TransferData != nil || pi.LatestCharge != nil || pi.PaymentMethod != nil || pi.LastPaymentError != nil {
		t.Errorf("payment intent: want no transfer data, charge, payment method or error, have %+v %+v %+v %+v", pi.TransferData, pi.LatestCharge, pi.PaymentMethod, pi.LastPaymentError)
	}
	if pi.Amount != 1500 || pi.Currency != "eur" || pi.Customer == nil || pi.Customer.ID != cus.ID || pi.Status != stripe.PaymentIntentStatusRequiresPaymentMethod || pi.AmountReceived != 0 {
		t.Errorf("payment intent: want 1500 eur for %s, requires_payment_method, nothing received; have %d %q %+v %q %d", cus.ID, pi.Amount, pi.Currency, pi.Customer, pi.Status, pi.AmountReceived)
	}
	if !strings.HasPrefix(pi.ClientSecret, pi.ID+"_secret_") {
		t.Errorf("payment intent: want a client secret of its own id, have %q", pi.ClientSecret)
	}

	prod, err := sc.V1Products.Create(ctx, &stripe.ProductCreateParams{Name: stripe.String("Plan")})
	stateful(t, "product create", prod.LastResponse, err)
	noScaffolding(t, "product", prod.LastResponse.RawJSON)
	if prod.DefaultPrice != nil || !prod.Active || prod.Name != "Plan" || prod.Description != "" || len(prod.Images) != 0 {
		t.Errorf("product: want no default price, active, the name sent, no description or images; have %+v %v %q %q %v", prod.DefaultPrice, prod.Active, prod.Name, prod.Description, prod.Images)
	}

	tests := []struct {
		name      string
		params    *stripe.PriceCreateParams
		typ       stripe.PriceType
		amount    int64
		recurring bool
	}{
		{"one-time", &stripe.PriceCreateParams{UnitAmount: stripe.Int64(2500), Currency: stripe.String("usd"), Product: stripe.String(prod.ID)}, stripe.PriceTypeOneTime, 2500, false},
		{"recurring", &stripe.PriceCreateParams{UnitAmount: stripe.Int64(900), Currency: stripe.String("usd"), Product: stripe.String(prod.ID), Recurring: &stripe.PriceCreateRecurringParams{Interval: stripe.String("month")}}, stripe.PriceTypeRecurring, 900, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := sc.V1Prices.Create(ctx, tt.params)
			stateful(t, "price create", p.LastResponse, err)
			noScaffolding(t, "price", p.LastResponse.RawJSON)
			if p.Type != tt.typ || p.UnitAmount != tt.amount || p.UnitAmountDecimal != float64(tt.amount) || !p.Active || p.Product == nil || p.Product.ID != prod.ID {
				t.Errorf("price: want %s at %d (decimal the same), active, of %s; have %s %d %v %v %+v", tt.typ, tt.amount, prod.ID, p.Type, p.UnitAmount, p.UnitAmountDecimal, p.Active, p.Product)
			}
			if (p.Recurring != nil) != tt.recurring || (tt.recurring && (p.Recurring.Interval != "month" || p.Recurring.IntervalCount != 1 || p.Recurring.UsageType != "licensed")) {
				t.Errorf("price: want recurring %v (monthly, count 1, licensed), have %+v", tt.recurring, p.Recurring)
			}
			var raw map[string]any
			if err := json.Unmarshal(p.LastResponse.RawJSON, &raw); err != nil {
				t.Fatal(err)
			}
			if want := strconv.FormatInt(tt.amount, 10); raw["unit_amount_decimal"] != want {
				t.Errorf("price: want unit_amount_decimal the string %q, have %#v", want, raw["unit_amount_decimal"])
			}
		})
	}
}

// noScaffolding fails when an answer holds what only a fixture or an
// example could have put there: a "$ref" member, a placeholder id of
// stripe-mock's fixtures (obj_123), or any of also.
func noScaffolding(tb testing.TB, what string, body []byte, also ...string) {
	tb.Helper()
	for _, bad := range append([]string{`"$ref"`, `obj_123`}, also...) {
		if strings.Contains(string(body), bad) {
			tb.Errorf("%s: the answer holds %s, which the request never sent: %s", what, bad, body)
		}
	}
}
