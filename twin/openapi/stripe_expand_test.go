package openapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stripe/stripe-go/v82"
	"github.com/stripe/stripe-go/v82/customer"
)

// conformingTransport puts every request in one session and checks every
// answer against the operation's response in Stripe's description.
type conformingTransport struct {
	tb      testing.TB
	doc     *openapi3.T
	paths   []string // doc's, for specPath
	session string
	mu      sync.Mutex
	checked int
}

func (c *conformingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.tb.Helper()
	a, err := sendChecked(c.doc, c.paths, c.session, r)
	if err != nil {
		return nil, err
	}
	if a.problem != "" {
		c.tb.Errorf("%s %s: %s", r.Method, r.URL.RequestURI(), a.problem)
		return a.resp, nil
	}
	c.mu.Lock()
	c.checked++
	c.mu.Unlock()
	return a.resp, nil
}

// conformingStripe is stripe-go against srvURL in one session, every
// answer checked against Stripe's description, and its backend for the
// clients of the per-resource packages.
func conformingStripe(tb testing.TB, srvURL, session string) (*stripe.Client, stripe.Backend, *conformingTransport) {
	tb.Helper()
	doc := stripeDoc(tb)
	ct := &conformingTransport{tb: tb, doc: doc, paths: doc.Paths.Keys(), session: session}
	b := stripe.GetBackendWithConfig(stripe.APIBackend, &stripe.BackendConfig{
		URL:               stripe.String(srvURL),
		HTTPClient:        &http.Client{Transport: ct},
		MaxNetworkRetries: stripe.Int64(0),
		LeveledLogger:     &stripe.LeveledLogger{Level: stripe.LevelNull},
	})
	return stripe.NewClient("sk_test_wraith", stripe.WithBackends(&stripe.Backends{API: b, Connect: b, Uploads: b})), b, ct
}

// rawField is the JSON of field in an answer's raw body.
func rawField(tb testing.TB, r *stripe.APIResponse, field string) string {
	tb.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(r.RawJSON, &m); err != nil {
		tb.Fatalf("answer is no JSON object: %v: %s", err, r.RawJSON)
	}
	return string(m[field])
}

// stripeMessage is the message of a Stripe error, or the error's text.
func stripeMessage(err error) string {
	var se *stripe.Error
	if errors.As(err, &se) {
		return se.Msg
	}
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestStripeExpand drives expand[] through stripe-go as docs.stripe.com/expand
// describes it: on create, retrieve and list (data.x), nested paths, and
// Stripe's refusals; a later plain read still answers the id.
func TestStripeExpand(t *testing.T) {
	srv := startTwin(t, "stripe", "--unknown-entity", "not_found", "--clock", "deterministic", "--clock-epoch", "1700000000")
	sc, _, ct := conformingStripe(t, srv.URL(), "expand")
	ctx := context.Background()

	cus, err := sc.V1Customers.Create(ctx, &stripe.CustomerCreateParams{Email: stripe.String("jenny@example.com")})
	stateful(t, "customer create", cus.LastResponse, err)
	create := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(2000), Currency: stripe.String("usd"), Customer: stripe.String(cus.ID)}
	create.AddExpand("customer")
	pi, err := sc.V1PaymentIntents.Create(ctx, create)
	stateful(t, "payment intent create with expand[]=customer", pi.LastResponse, err)
	if pi.Customer == nil || pi.Customer.ID != cus.ID || pi.Customer.Email != "jenny@example.com" {
		t.Errorf("create with expand[]=customer: want customer %s with its email, have %+v", cus.ID, pi.Customer)
	}

	get := &stripe.PaymentIntentRetrieveParams{}
	get.AddExpand("customer")
	got, err := sc.V1PaymentIntents.Retrieve(ctx, pi.ID, get)
	stateful(t, "retrieve with expand[]=customer", got.LastResponse, err)
	if got.Customer == nil || got.Customer.Email != "jenny@example.com" {
		t.Errorf("retrieve with expand[]=customer: want the customer, have %+v", got.Customer)
	}
	plain, err := sc.V1PaymentIntents.Retrieve(ctx, pi.ID, nil)
	stateful(t, "plain retrieve", plain.LastResponse, err)
	if have := rawField(t, plain.LastResponse, "customer"); have != `"`+cus.ID+`"` {
		t.Errorf("a plain read after expanded ones: want the stored id %q, have %s", cus.ID, have)
	}

	// A customer's default payment method, three levels from the intent.
	pm, err := sc.V1PaymentMethods.Create(ctx, &stripe.PaymentMethodCreateParams{Type: stripe.String("card")})
	stateful(t, "payment method create", pm.LastResponse, err)
	_, err = sc.V1Customers.Update(ctx, cus.ID, &stripe.CustomerUpdateParams{InvoiceSettings: &stripe.CustomerUpdateInvoiceSettingsParams{DefaultPaymentMethod: stripe.String(pm.ID)}})
	if err != nil {
		t.Fatalf("customer update: %v", err)
	}
	nested := &stripe.PaymentIntentRetrieveParams{}
	nested.AddExpand("customer.invoice_settings.default_payment_method")
	got, err = sc.V1PaymentIntents.Retrieve(ctx, pi.ID, nested)
	stateful(t, "retrieve with a nested path", got.LastResponse, err)
	if got.Customer == nil || got.Customer.InvoiceSettings == nil || got.Customer.InvoiceSettings.DefaultPaymentMethod == nil || got.Customer.InvoiceSettings.DefaultPaymentMethod.Type != "card" {
		t.Errorf("expand[]=customer.invoice_settings.default_payment_method: want the card payment method %s, have %+v", pm.ID, got.Customer)
	}
	stored, err := sc.V1Customers.Retrieve(ctx, cus.ID, nil)
	stateful(t, "customer retrieve", stored.LastResponse, err)
	if have := rawField(t, stored.LastResponse, "invoice_settings"); !strings.Contains(have, `"default_payment_method":"`+pm.ID+`"`) {
		t.Errorf("the customer as stored after a nested expansion: want default_payment_method %q, have %s", pm.ID, have)
	}

	list := &stripe.PaymentIntentListParams{Customer: stripe.String(cus.ID)}
	list.AddExpand("data.customer")
	n := 0
	for p, err := range sc.V1PaymentIntents.List(ctx, list) {
		if err != nil {
			t.Fatalf("list with expand[]=data.customer: %v", err)
		}
		n++
		if p.Customer == nil || p.Customer.Email != "jenny@example.com" {
			t.Errorf("listed %s: want its customer expanded, have %+v", p.ID, p.Customer)
		}
	}
	if n != 1 {
		t.Errorf("list filtered by customer: want 1 intent, have %d", n)
	}

	for _, tc := range []struct {
		name   string
		expand string
		list   bool
		want   string
	}{
		{"a field that holds no id", "metadata", false, "This property cannot be expanded (metadata)."},
		{"no such field", "favourite_colour", false, "This property cannot be expanded (favourite_colour)."},
		{"a list's path without data", "customer", true, "This property cannot be expanded (customer). You may want to try expanding 'data.customer' instead."},
		{"past four levels", "customer.invoice_settings.default_payment_method.customer.x", false, "You cannot expand more than 4 levels of a property."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.list {
				p := &stripe.PaymentIntentListParams{}
				p.AddExpand(tc.expand)
				for _, err = range sc.V1PaymentIntents.List(ctx, p) {
					break
				}
			} else {
				p := &stripe.PaymentIntentRetrieveParams{}
				p.AddExpand(tc.expand)
				_, err = sc.V1PaymentIntents.Retrieve(ctx, pi.ID, p)
			}
			if have := stripeMessage(err); have != tc.want {
				t.Errorf("expand[]=%s: want %q, have %q", tc.expand, tc.want, have)
			}
			var se *stripe.Error
			if errors.As(err, &se) && (se.HTTPStatusCode != http.StatusBadRequest || se.Type != stripe.ErrorTypeInvalidRequest) {
				t.Errorf("want a 400 invalid_request_error, have %d %s", se.HTTPStatusCode, se.Type)
			}
			if se != nil && strings.HasPrefix(tc.want, "This property cannot be expanded") && se.Param != "" {
				t.Errorf("want no param, as Stripe's refusal of an expansion names none, have %q", se.Param)
			}
		})
	}

	// A write whose expansion is refused makes nothing.
	bad := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(500), Currency: stripe.String("usd"), Customer: stripe.String(cus.ID)}
	bad.AddExpand("amount")
	if _, err := sc.V1PaymentIntents.Create(ctx, bad); stripeMessage(err) != "This property cannot be expanded (amount)." {
		t.Errorf("create with expand[]=amount: want Stripe's refusal, have %v", err)
	}
	n = 0
	for _, err := range sc.V1PaymentIntents.List(ctx, &stripe.PaymentIntentListParams{Customer: stripe.String(cus.ID)}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 1 {
		t.Errorf("after a create refused for its expand: want 1 intent, have %d", n)
	}

	// A paid intent's charge and its balance transaction, in one answer
	// (the documented example: expand[]=latest_charge.balance_transaction).
	paid := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(3000), Currency: stripe.String("usd"), Customer: stripe.String(cus.ID), PaymentMethod: stripe.String("pm_card_visa"), Confirm: stripe.Bool(true)}
	paid.AddExpand("latest_charge.balance_transaction")
	paid.AddExpand("latest_charge.customer")
	pi, err = sc.V1PaymentIntents.Create(ctx, paid)
	stateful(t, "confirmed create expanding latest_charge.balance_transaction", pi.LastResponse, err)
	switch ch := pi.LatestCharge; {
	case ch == nil || ch.Amount != 3000:
		t.Errorf("latest_charge: want the 3000 charge, have %+v", ch)
	case ch.BalanceTransaction == nil || ch.BalanceTransaction.Amount != 3000 || ch.BalanceTransaction.Fee == 0:
		t.Errorf("latest_charge.balance_transaction: want the charge's balance transaction of 3000 with its fee, have %+v", ch.BalanceTransaction)
	case ch.Customer == nil || ch.Customer.Email != "jenny@example.com":
		t.Errorf("latest_charge.customer: want the customer, have %+v", ch.Customer)
	}
	charge, err := sc.V1Charges.Retrieve(ctx, pi.LatestCharge.ID, nil)
	stateful(t, "plain charge retrieve", charge.LastResponse, err)
	if have := rawField(t, charge.LastResponse, "balance_transaction"); !strings.HasPrefix(have, `"txn_`) {
		t.Errorf("the charge as stored: want its balance transaction's id, have %s", have)
	}

	// A charge's refunds, which Stripe includes only when expanded.
	re, err := sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{PaymentIntent: stripe.String(pi.ID), Amount: stripe.Int64(1000)})
	stateful(t, "refund create", re.LastResponse, err)
	cget := &stripe.ChargeRetrieveParams{}
	cget.AddExpand("refunds")
	charge, err = sc.V1Charges.Retrieve(ctx, pi.LatestCharge.ID, cget)
	stateful(t, "charge retrieve with expand[]=refunds", charge.LastResponse, err)
	if charge.Refunds == nil || len(charge.Refunds.Data) != 1 || charge.Refunds.Data[0].ID != re.ID || charge.Refunds.URL != "/v1/charges/"+charge.ID+"/refunds" {
		t.Errorf("expand[]=refunds: want the list of %s at /v1/charges/%s/refunds, have %+v", re.ID, charge.ID, charge.Refunds)
	}
	charge, err = sc.V1Charges.Retrieve(ctx, charge.ID, nil)
	stateful(t, "plain charge retrieve", charge.LastResponse, err)
	if have := rawField(t, charge.LastResponse, "refunds"); have != "null" {
		t.Errorf("a charge read without expansion: want refunds null, as Stripe answers since 2022-11-15, have %s", have)
	}
	if ct.checked == 0 {
		t.Fatal("no answer was checked against the description")
	}
}

// TestStripeListFilters: the documented filters of the core lists, from
// the session's entities (docs.stripe.com/api: each list's parameters).
func TestStripeListFilters(t *testing.T) {
	srv := startTwin(t, "stripe", "--unknown-entity", "not_found", "--clock", "deterministic", "--clock-epoch", "1700000000")
	sc, _, _ := conformingStripe(t, srv.URL(), "filters")
	ctx := context.Background()

	var customers []*stripe.Customer
	for _, email := range []string{"a@example.com", "b@example.com", "c@example.com"} {
		c, err := sc.V1Customers.Create(ctx, &stripe.CustomerCreateParams{Email: stripe.String(email)})
		stateful(t, "customer create", c.LastResponse, err)
		customers = append(customers, c)
	}
	if customers[0].Created >= customers[2].Created {
		t.Fatalf("the deterministic clock: want later creates later, have %d then %d", customers[0].Created, customers[2].Created)
	}
	listCustomers := func(p *stripe.CustomerListParams) []string {
		t.Helper()
		var ids []string
		for c, err := range sc.V1Customers.List(ctx, p) {
			if err != nil {
				t.Fatalf("list customers: %v", err)
			}
			ids = append(ids, c.ID)
		}
		return ids
	}
	ids := func(cs ...*stripe.Customer) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		p    *stripe.CustomerListParams
		want []string
	}{
		{"created[gte]", &stripe.CustomerListParams{CreatedRange: &stripe.RangeQueryParams{GreaterThanOrEqual: customers[1].Created}}, ids(customers[2], customers[1])},
		{"created[gt]", &stripe.CustomerListParams{CreatedRange: &stripe.RangeQueryParams{GreaterThan: customers[1].Created}}, ids(customers[2])},
		{"created[lt] and [gte]", &stripe.CustomerListParams{CreatedRange: &stripe.RangeQueryParams{LesserThan: customers[2].Created, GreaterThanOrEqual: customers[0].Created}}, ids(customers[1], customers[0])},
		{"created[lte]", &stripe.CustomerListParams{CreatedRange: &stripe.RangeQueryParams{LesserThanOrEqual: customers[0].Created}}, ids(customers[0])},
		{"created", &stripe.CustomerListParams{Created: stripe.Int64(customers[1].Created)}, ids(customers[1])},
		{"email", &stripe.CustomerListParams{Email: stripe.String("b@example.com")}, ids(customers[1])},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if have := listCustomers(tc.p); !slices.Equal(have, tc.want) {
				t.Errorf("want %v, have %v", tc.want, have)
			}
		})
	}

	// Subscriptions: without status, those not canceled; all; canceled.
	prod, err := sc.V1Products.Create(ctx, &stripe.ProductCreateParams{Name: stripe.String("Plan")})
	stateful(t, "product create", prod.LastResponse, err)
	price, err := sc.V1Prices.Create(ctx, &stripe.PriceCreateParams{Product: stripe.String(prod.ID), UnitAmount: stripe.Int64(900), Currency: stripe.String("usd"), Recurring: &stripe.PriceCreateRecurringParams{Interval: stripe.String("month")}})
	stateful(t, "price create", price.LastResponse, err)
	var subs []string
	for _, c := range customers[:2] {
		// No payment method: default_incomplete, as Stripe asks of one.
		s, err := sc.V1Subscriptions.Create(ctx, &stripe.SubscriptionCreateParams{Customer: stripe.String(c.ID), PaymentBehavior: stripe.String("default_incomplete"),
			Items: []*stripe.SubscriptionCreateItemParams{{Price: stripe.String(price.ID)}}})
		stateful(t, "subscription create", s.LastResponse, err)
		subs = append(subs, s.ID)
	}
	cancel := &stripe.SubscriptionCancelParams{}
	cancel.AddExpand("latest_invoice")
	canceled, err := sc.V1Subscriptions.Cancel(ctx, subs[0], cancel)
	stateful(t, "cancel (DELETE) with expand[]=latest_invoice", canceled.LastResponse, err)
	if canceled.LatestInvoice == nil || canceled.LatestInvoice.Object != "invoice" {
		t.Errorf("DELETE with expand[]=latest_invoice: want the invoice, have %+v", canceled.LatestInvoice)
	}
	listSubs := func(p *stripe.SubscriptionListParams) []string {
		t.Helper()
		var out []string
		for s, err := range sc.V1Subscriptions.List(ctx, p) {
			if err != nil {
				t.Fatalf("list subscriptions: %v", err)
			}
			out = append(out, s.ID)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		p    *stripe.SubscriptionListParams
		want []string
	}{
		{"no status: not canceled", &stripe.SubscriptionListParams{}, []string{subs[1]}},
		{"status=all", &stripe.SubscriptionListParams{Status: stripe.String("all")}, []string{subs[1], subs[0]}},
		{"status=canceled", &stripe.SubscriptionListParams{Status: stripe.String("canceled")}, []string{subs[0]}},
		{"status=ended", &stripe.SubscriptionListParams{Status: stripe.String("ended")}, []string{subs[0]}},
		{"customer, all", &stripe.SubscriptionListParams{Customer: stripe.String(customers[0].ID), Status: stripe.String("all")}, []string{subs[0]}},
		{"price", &stripe.SubscriptionListParams{Price: stripe.String(price.ID)}, []string{subs[1]}},
		{"another price", &stripe.SubscriptionListParams{Price: stripe.String("price_none")}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if have := listSubs(tc.p); !slices.Equal(have, tc.want) {
				t.Errorf("want %v, have %v", tc.want, have)
			}
		})
	}

	// A subscription's item's price's product, four levels down; its
	// invoices by subscription.
	sget := &stripe.SubscriptionRetrieveParams{}
	sget.AddExpand("items.data.price.product")
	sget.AddExpand("latest_invoice")
	sub, err := sc.V1Subscriptions.Retrieve(ctx, subs[1], sget)
	stateful(t, "subscription retrieve expanding items.data.price.product", sub.LastResponse, err)
	if len(sub.Items.Data) != 1 || sub.Items.Data[0].Price == nil || sub.Items.Data[0].Price.Product == nil || sub.Items.Data[0].Price.Product.Name != "Plan" {
		t.Errorf("items.data.price.product: want the product Plan, have %+v", sub.Items)
	}
	if sub.LatestInvoice == nil || sub.LatestInvoice.Object != "invoice" {
		t.Fatalf("latest_invoice: want the subscription's first invoice, have %+v", sub.LatestInvoice)
	}
	var invoices []string
	for in, err := range sc.V1Invoices.List(ctx, &stripe.InvoiceListParams{Subscription: stripe.String(subs[1])}) {
		if err != nil {
			t.Fatal(err)
		}
		invoices = append(invoices, in.ID)
	}
	if !slices.Equal(invoices, []string{sub.LatestInvoice.ID}) {
		t.Errorf("invoices of %s: want %s, have %v", subs[1], sub.LatestInvoice.ID, invoices)
	}
	var byStatus []string
	for in, err := range sc.V1Invoices.List(ctx, &stripe.InvoiceListParams{Customer: stripe.String(customers[1].ID), Status: stripe.String(string(sub.LatestInvoice.Status))}) {
		if err != nil {
			t.Fatal(err)
		}
		byStatus = append(byStatus, in.ID)
	}
	if !slices.Equal(byStatus, invoices) {
		t.Errorf("invoices of %s with status %s: want %v, have %v", customers[1].ID, sub.LatestInvoice.Status, invoices, byStatus)
	}

	// Charges and refunds by the payment intent they belong to.
	var intents []*stripe.PaymentIntent
	for _, amount := range []int64{1000, 2500} {
		pi, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(amount), Currency: stripe.String("usd"), Customer: stripe.String(customers[2].ID), PaymentMethod: stripe.String("pm_card_visa"), Confirm: stripe.Bool(true)})
		stateful(t, "confirmed payment intent", pi.LastResponse, err)
		if pi.LatestCharge == nil {
			t.Fatalf("a confirmed intent: want its charge, have none")
		}
		intents = append(intents, pi)
	}
	for _, pi := range intents {
		re, err := sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{PaymentIntent: stripe.String(pi.ID), Amount: stripe.Int64(100)})
		stateful(t, "refund create", re.LastResponse, err)
	}
	for _, pi := range intents {
		var charges, refunds []string
		for ch, err := range sc.V1Charges.List(ctx, &stripe.ChargeListParams{PaymentIntent: stripe.String(pi.ID)}) {
			if err != nil {
				t.Fatal(err)
			}
			charges = append(charges, ch.ID)
		}
		if !slices.Equal(charges, []string{pi.LatestCharge.ID}) {
			t.Errorf("charges of %s: want %s, have %v", pi.ID, pi.LatestCharge.ID, charges)
		}
		for re, err := range sc.V1Refunds.List(ctx, &stripe.RefundListParams{PaymentIntent: stripe.String(pi.ID)}) {
			if err != nil {
				t.Fatal(err)
			}
			if re.PaymentIntent == nil || re.PaymentIntent.ID != pi.ID {
				t.Errorf("refunds of %s: listed one of %+v", pi.ID, re.PaymentIntent)
			}
			refunds = append(refunds, re.ID)
		}
		if len(refunds) != 1 {
			t.Errorf("refunds of %s: want 1, have %v", pi.ID, refunds)
		}
		var byCharge []string
		for re, err := range sc.V1Refunds.List(ctx, &stripe.RefundListParams{Charge: stripe.String(pi.LatestCharge.ID)}) {
			if err != nil {
				t.Fatal(err)
			}
			byCharge = append(byCharge, re.ID)
		}
		if !slices.Equal(byCharge, refunds) {
			t.Errorf("refunds of charge %s: want %v, have %v", pi.LatestCharge.ID, refunds, byCharge)
		}
	}
	n := 0
	for _, err := range sc.V1Charges.List(ctx, &stripe.ChargeListParams{Customer: stripe.String(customers[2].ID)}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 2 {
		t.Errorf("charges of %s: want 2, have %d", customers[2].ID, n)
	}

	// Prices by a nested field, products by ids[].
	once, err := sc.V1Prices.Create(ctx, &stripe.PriceCreateParams{Product: stripe.String(prod.ID), UnitAmount: stripe.Int64(500), Currency: stripe.String("usd")})
	stateful(t, "one-time price create", once.LastResponse, err)
	var monthly []string
	for p, err := range sc.V1Prices.List(ctx, &stripe.PriceListParams{Recurring: &stripe.PriceListRecurringParams{Interval: stripe.String("month")}}) {
		if err != nil {
			t.Fatal(err)
		}
		monthly = append(monthly, p.ID)
	}
	if !slices.Equal(monthly, []string{price.ID}) {
		t.Errorf("prices with recurring[interval]=month: want %s, have %v", price.ID, monthly)
	}
	var oneTime []string
	for p, err := range sc.V1Prices.List(ctx, &stripe.PriceListParams{Type: stripe.String("one_time"), Product: stripe.String(prod.ID)}) {
		if err != nil {
			t.Fatal(err)
		}
		oneTime = append(oneTime, p.ID)
	}
	if !slices.Equal(oneTime, []string{once.ID}) {
		t.Errorf("prices with type=one_time: want %s, have %v", once.ID, oneTime)
	}
	other, err := sc.V1Products.Create(ctx, &stripe.ProductCreateParams{Name: stripe.String("Other")})
	stateful(t, "product create", other.LastResponse, err)
	var named []string
	for p, err := range sc.V1Products.List(ctx, &stripe.ProductListParams{IDs: []*string{stripe.String(prod.ID)}}) {
		if err != nil {
			t.Fatal(err)
		}
		named = append(named, p.ID)
	}
	if !slices.Equal(named, []string{prod.ID}) {
		t.Errorf("products with ids[]=%s: want it alone, have %v", prod.ID, named)
	}
}

// TestStripeSearch: searches of the session's entities in Stripe's query
// language, with total_count when expanded (docs.stripe.com/search).
func TestStripeSearch(t *testing.T) {
	srv := startTwin(t, "stripe", "--unknown-entity", "not_found", "--clock", "deterministic", "--clock-epoch", "1700000000")
	sc, backend, _ := conformingStripe(t, srv.URL(), "search")
	ctx := context.Background()
	for i, email := range []string{"jenny@example.com", "bob@example.com", "jenny.rosen@example.com"} {
		p := &stripe.CustomerCreateParams{Email: stripe.String(email)}
		p.AddMetadata("order", []string{"6735", "1", "6735"}[i])
		c, err := sc.V1Customers.Create(ctx, p)
		stateful(t, "customer create", c.LastResponse, err)
	}
	cc := customer.Client{B: backend, Key: "sk_test_wraith"}
	for _, tc := range []struct {
		query string
		want  []string // the emails matched, newest first
	}{
		{"email:'jenny@example.com'", []string{"jenny@example.com"}},
		{"metadata['order']:'6735'", []string{"jenny.rosen@example.com", "jenny@example.com"}},
		{"email~'jenny' AND metadata['order']:'6735'", []string{"jenny.rosen@example.com", "jenny@example.com"}},
		{"email:'bob@example.com' OR email:'jenny@example.com'", []string{"bob@example.com", "jenny@example.com"}},
		{"-metadata['order']:'6735'", []string{"bob@example.com"}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			p := &stripe.CustomerSearchParams{SearchParams: stripe.SearchParams{Query: tc.query}}
			p.AddExpand("total_count")
			it := cc.Search(p)
			var have []string
			for it.Next() {
				have = append(have, it.Customer().Email)
			}
			if err := it.Err(); err != nil {
				t.Fatalf("search: %v", err)
			}
			if !slices.Equal(have, tc.want) {
				t.Errorf("want %v, have %v", tc.want, have)
			}
			res := it.CustomerSearchResult()
			if res.TotalCount == nil || int(*res.TotalCount) != len(tc.want) {
				t.Errorf("expand[]=total_count: want %d, have %v", len(tc.want), res.TotalCount)
			}
		})
	}
	// Payment intents and charges, by status, amount, currency and card
	// (the documented examples), the search's data expanded.
	for _, p := range []struct {
		amount   int64
		currency string
		pm       string
	}{{500, "usd", "pm_card_visa"}, {2500, "eur", "pm_card_mastercard"}, {4000, "usd", ""}} {
		params := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(p.amount), Currency: stripe.String(p.currency)}
		if p.pm != "" {
			params.PaymentMethod, params.Confirm = stripe.String(p.pm), stripe.Bool(true)
		}
		pi, err := sc.V1PaymentIntents.Create(ctx, params)
		stateful(t, "payment intent create", pi.LastResponse, err)
	}
	for _, tc := range []struct {
		query string
		want  []int64 // the amounts matched, newest first
	}{
		{"status:'succeeded' AND amount>1000", []int64{2500}},
		{"-currency:'usd'", []int64{2500}},
		{"status:'requires_payment_method' OR currency:'eur'", []int64{4000, 2500}},
		{"amount>=500 amount<=2500", []int64{2500, 500}},
	} {
		var have []int64
		p := &stripe.PaymentIntentSearchParams{SearchParams: stripe.SearchParams{Query: tc.query}}
		p.AddExpand("data.latest_charge")
		for pi, err := range sc.V1PaymentIntents.Search(ctx, p) {
			if err != nil {
				t.Fatalf("payment intent search %s: %v", tc.query, err)
			}
			if pi.Status == stripe.PaymentIntentStatusSucceeded && (pi.LatestCharge == nil || pi.LatestCharge.Amount != pi.Amount) {
				t.Errorf("search %s with expand[]=data.latest_charge: want %s's charge, have %+v", tc.query, pi.ID, pi.LatestCharge)
			}
			have = append(have, pi.Amount)
		}
		if !slices.Equal(have, tc.want) {
			t.Errorf("payment intents %s: want %v, have %v", tc.query, tc.want, have)
		}
	}
	var cards []int64
	for ch, err := range sc.V1Charges.Search(ctx, &stripe.ChargeSearchParams{SearchParams: stripe.SearchParams{Query: "payment_method_details.card.last4:4444"}}) {
		if err != nil {
			t.Fatalf("charge search: %v", err)
		}
		cards = append(cards, ch.Amount)
	}
	if !slices.Equal(cards, []int64{2500}) {
		t.Errorf("charges by last4 4444 (the mastercard): want [2500], have %v", cards)
	}

	it := cc.Search(&stripe.CustomerSearchParams{SearchParams: stripe.SearchParams{Query: "email:'bob@example.com'"}})
	for it.Next() {
	}
	if res := it.CustomerSearchResult(); it.Err() != nil || res.TotalCount != nil {
		t.Errorf("a search that does not expand total_count: want none, have %v (%v)", res.TotalCount, it.Err())
	}
}
