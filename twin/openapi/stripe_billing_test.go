package openapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stripe/stripe-go/v82"
)

// Stripe's billing flows, as Stripe's docs write them, driven by stripe-go
// against the embedded stripe twin with the session's clock moved through
// the control plane: every answer is checked against Stripe's description
// and must name no ignored parameter, and two sessions running the same
// flows answer byte for byte alike.

const billingEpoch = 1700000000 // 2023-11-14T22:13:20Z

// billingSession is one session's client, whose every answer is checked
// and kept in a transcript.
type billingSession struct {
	tb      testing.TB
	base    string
	session string
	sc      *stripe.Client
	doc     *openapi3.T
	paths   []string

	mu         sync.Mutex
	sent       int // POSTs so far, for their idempotency keys
	transcript bytes.Buffer
	problems   []string
}

func newBillingSession(tb testing.TB, base string, doc *openapi3.T, session string) *billingSession {
	tb.Helper()
	s := &billingSession{tb: tb, base: base, session: session, doc: doc, paths: doc.Paths.Keys()}
	billingControl(tb, base+"/__wraith/session", fmt.Sprintf(`{"session":%q,"seed":23,"clock":{"mode":"deterministic","base_epoch":%d}}`, session, billingEpoch))
	backends := stripe.NewBackendsWithConfig(&stripe.BackendConfig{
		URL:               stripe.String(base),
		HTTPClient:        &http.Client{Transport: s},
		MaxNetworkRetries: stripe.Int64(0),
		LeveledLogger:     &stripe.LeveledLogger{Level: stripe.LevelNull},
	})
	s.sc = stripe.NewClient("sk_test_wraith", stripe.WithBackends(backends))
	return s
}

// RoundTrip sends r in the session and checks its answer.
func (s *billingSession) RoundTrip(r *http.Request) (*http.Response, error) {
	if k := r.Header.Get("Idempotency-Key"); k != "" && !strings.HasPrefix(k, "keep-") {
		// stripe-go draws a random key for every POST; events name it, and
		// the sessions' answers are compared byte for byte. A flow's own
		// keys (keep-...) go as they are.
		s.mu.Lock()
		s.sent++
		r = r.Clone(r.Context())
		r.Header.Set("Idempotency-Key", fmt.Sprintf("billing-%d", s.sent))
		s.mu.Unlock()
	}
	a, err := sendChecked(s.doc, s.paths, s.session, r)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	what := r.Method + " " + r.URL.Path
	fmt.Fprintf(&s.transcript, "%s %d\n%s\n", what, a.resp.StatusCode, a.body)
	if a.ignored != "" {
		s.problems = append(s.problems, what+": ignored parameters "+a.ignored)
	}
	if a.problem != "" {
		s.problems = append(s.problems, what+" "+a.problem)
	}
	return a.resp, nil
}

// advance moves the session's clock by secs through the control plane.
func (s *billingSession) advance(secs int64) {
	s.tb.Helper()
	billingControl(s.tb, s.base+"/__wraith/session/"+s.session+"/clock", fmt.Sprintf(`{"advance_secs":%d}`, secs))
}

// digest is the session's world's digest (sessionDigest).
func (s *billingSession) digest() string {
	s.tb.Helper()
	return sessionDigest(s.tb, s.base, s.session)
}

// done fails the test for every answer that did not conform.
func (s *billingSession) done() string {
	s.tb.Helper()
	for _, p := range s.problems {
		s.tb.Errorf("session %s: %s", s.session, p)
	}
	return s.transcript.String()
}

func billingControl(tb testing.TB, url, body string) {
	tb.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		tb.Fatalf("POST %s %s: want 2xx, have %d %s", url, body, resp.StatusCode, b)
	}
}

// billingMust fails the test at step unless err is nil.
func billingMust(tb testing.TB, step string, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatalf("%s: %v", step, err)
	}
}

// TestStripeBilling runs the billing flows in two sessions, concurrently,
// and wants their transcripts byte for byte alike.
func TestStripeBilling(t *testing.T) {
	doc := stripeDoc(t)
	srv := startTwin(t, "stripe")
	flows := []struct {
		name string
		run  func(t *testing.T, s *billingSession)
	}{
		{"TrialRenewalsAndDecline", trialRenewalsAndDecline},
		{"InvoiceOfThreeItems", invoiceOfThreeItems},
		{"TestClockAdvance", testClockAdvance},
	}
	for _, f := range flows {
		t.Run(f.name, func(t *testing.T) {
			var wg sync.WaitGroup
			sessions := []*billingSession{
				newBillingSession(t, srv.URL(), doc, "billing-a-"+f.name),
				newBillingSession(t, srv.URL(), doc, "billing-b-"+f.name),
			}
			ok := make([]bool, len(sessions))
			for i, s := range sessions {
				wg.Add(1)
				go func() {
					defer wg.Done()
					// t.Fatal is for the test's goroutine: a subtest per session
					// runs the flow there and reports here.
					ok[i] = t.Run(s.session, func(t *testing.T) { s.tb = t; f.run(t, s) })
				}()
			}
			wg.Wait()
			if !ok[0] || !ok[1] {
				return
			}
			a, b := sessions[0].done(), sessions[1].done()
			if a != b {
				t.Errorf("two sessions running the same flow: want byte-identical answers, have\n%s\nand\n%s", firstDiff(a, b), firstDiff(b, a))
			}
			if da, db := sessions[0].digest(), sessions[1].digest(); da != db {
				t.Errorf("two sessions running the same flow: want one digest of their worlds, have %s and %s", da, db)
			}
		})
	}
}

// firstDiff is a's text around the first byte where it differs from b.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from, to := max(0, i-120), min(len(a), i+120)
	return a[from:to]
}

// trialRenewalsAndDecline: a subscription with a 14-day trial renews as
// the clock moves a month at a time; the second renewal is declined (a
// card that attaches but fails its charges) and the subscription is
// past_due until its invoice is paid with the updated payment method.
// (docs.stripe.com/billing/subscriptions/trials, /billing/testing)
func trialRenewalsAndDecline(t *testing.T, s *billingSession) {
	ctx := context.Background()
	sc := s.sc
	cus, err := sc.V1Customers.Create(ctx, &stripe.CustomerCreateParams{Email: stripe.String("ada@example.com")})
	billingMust(t, "customer create", err)
	if cus.InvoicePrefix == "" {
		t.Errorf("customer: want an invoice_prefix, have none")
	}
	prod, err := sc.V1Products.Create(ctx, &stripe.ProductCreateParams{
		Name: stripe.String("Gold"),
		DefaultPriceData: &stripe.ProductCreateDefaultPriceDataParams{
			Currency: stripe.String("usd"), UnitAmount: stripe.Int64(2000),
			Recurring: &stripe.ProductCreateDefaultPriceDataRecurringParams{Interval: stripe.String("month")},
		},
	})
	billingMust(t, "product create", err)
	if prod.DefaultPrice == nil || prod.DefaultPrice.ID == "" {
		t.Fatalf("product with default_price_data: want a default_price, have %+v", prod.DefaultPrice)
	}
	price, err := sc.V1Prices.Retrieve(ctx, prod.DefaultPrice.ID, nil)
	billingMust(t, "price retrieve", err)
	if price.Type != stripe.PriceTypeRecurring || price.UnitAmount != 2000 || price.UnitAmountDecimal != 2000 || price.Recurring == nil || price.Recurring.Interval != "month" || price.Product.ID != prod.ID {
		t.Errorf("default price: want recurring 2000 a month of %s, have %s %d %v %+v %s", prod.ID, price.Type, price.UnitAmount, price.UnitAmountDecimal, price.Recurring, price.Product.ID)
	}
	setDefaultCard(t, s, cus.ID, "pm_card_visa")

	sub, err := sc.V1Subscriptions.Create(ctx, &stripe.SubscriptionCreateParams{
		Customer:        stripe.String(cus.ID),
		Items:           []*stripe.SubscriptionCreateItemParams{{Price: stripe.String(price.ID)}},
		TrialPeriodDays: stripe.Int64(14),
	})
	billingMust(t, "subscription create", err)
	start := sub.StartDate
	trialEnd := start + 14*86400
	if sub.Status != stripe.SubscriptionStatusTrialing || sub.TrialStart != start || sub.TrialEnd != trialEnd {
		t.Errorf("subscription with trial_period_days=14: want trialing from %d to %d, have %s %d %d", start, trialEnd, sub.Status, sub.TrialStart, sub.TrialEnd)
	}
	if it := sub.Items.Data[0]; it.CurrentPeriodStart != start || it.CurrentPeriodEnd != trialEnd || it.Price.ID != price.ID {
		t.Errorf("trialing item: want the period %d to %d of %s, have %d %d %s", start, trialEnd, price.ID, it.CurrentPeriodStart, it.CurrentPeriodEnd, it.Price.ID)
	}
	first := billingInvoice(t, s, sub.LatestInvoice.ID)
	if first.Status != stripe.InvoiceStatusPaid || first.Total != 0 || first.BillingReason != "subscription_create" || len(first.Lines.Data) != 1 {
		t.Errorf("trial's invoice: want a paid invoice of 0 for subscription_create with one line, have %s %d %s %d lines", first.Status, first.Total, first.BillingReason, len(first.Lines.Data))
	}
	if first.Number != cus.InvoicePrefix+"-0001" {
		t.Errorf("first invoice: want number %s-0001, have %q", cus.InvoicePrefix, first.Number)
	}

	// A month on: the trial ended and the first period was charged.
	s.advance(30 * 86400)
	sub, err = sc.V1Subscriptions.Retrieve(ctx, sub.ID, nil)
	billingMust(t, "subscription after the trial", err)
	periodEnd := time.Unix(trialEnd, 0).UTC().AddDate(0, 1, 0).Unix() // Nov 28 to Dec 28: a calendar month
	if it := sub.Items.Data[0]; sub.Status != stripe.SubscriptionStatusActive || it.CurrentPeriodStart != trialEnd || it.CurrentPeriodEnd != periodEnd {
		t.Errorf("after the trial: want active from %d to %d, have %s from %d to %d", trialEnd, periodEnd, sub.Status, it.CurrentPeriodStart, it.CurrentPeriodEnd)
	}
	cycle := billingInvoice(t, s, sub.LatestInvoice.ID)
	wantPaidCycle(t, "trial end", cycle, 2000)
	if cycle.Number != cus.InvoicePrefix+"-0002" {
		t.Errorf("trial end's invoice: want number %s-0002, have %q", cus.InvoicePrefix, cycle.Number)
	}
	if l := cycle.Lines.Data[0]; l.Period.Start != trialEnd || l.Period.End != sub.Items.Data[0].CurrentPeriodEnd {
		t.Errorf("trial end's line: want the new period %d to %d, have %d to %d", trialEnd, sub.Items.Data[0].CurrentPeriodEnd, l.Period.Start, l.Period.End)
	}

	// Another month: the first renewal, paid.
	s.advance(30 * 86400)
	sub, err = sc.V1Subscriptions.Retrieve(ctx, sub.ID, nil)
	billingMust(t, "subscription after the first renewal", err)
	renewal := billingInvoice(t, s, sub.LatestInvoice.ID)
	wantPaidCycle(t, "first renewal", renewal, 2000)
	if sub.Status != stripe.SubscriptionStatusActive || renewal.ID == cycle.ID {
		t.Errorf("first renewal: want active with a new invoice, have %s %s", sub.Status, renewal.ID)
	}

	// The card now fails its charges: the second renewal is declined.
	setDefaultCard(t, s, cus.ID, "pm_card_chargeCustomerFail")
	s.advance(30 * 86400)
	sub, err = sc.V1Subscriptions.Retrieve(ctx, sub.ID, nil)
	billingMust(t, "subscription after the declined renewal", err)
	failed := billingInvoice(t, s, sub.LatestInvoice.ID)
	if sub.Status != stripe.SubscriptionStatusPastDue {
		t.Errorf("declined renewal: want past_due, have %s", sub.Status)
	}
	if failed.Status != stripe.InvoiceStatusOpen || failed.AttemptCount != 1 || !failed.Attempted || failed.AmountRemaining != 2000 || failed.AmountPaid != 0 {
		t.Errorf("declined renewal's invoice: want open, one attempt, 2000 remaining; have %s %d %v %d %d", failed.Status, failed.AttemptCount, failed.Attempted, failed.AmountRemaining, failed.AmountPaid)
	}

	// The customer updates the card and the invoice is paid.
	setDefaultCard(t, s, cus.ID, "pm_card_visa")
	paid, err := sc.V1Invoices.Pay(ctx, failed.ID, nil)
	billingMust(t, "pay the declined invoice", err)
	if paid.Status != stripe.InvoiceStatusPaid || paid.AmountPaid != 2000 || paid.AmountRemaining != 0 || paid.StatusTransitions.PaidAt == 0 {
		t.Errorf("paid after the update: want paid 2000, nothing remaining, paid_at; have %s %d %d %d", paid.Status, paid.AmountPaid, paid.AmountRemaining, paid.StatusTransitions.PaidAt)
	}
	sub, err = sc.V1Subscriptions.Retrieve(ctx, sub.ID, nil)
	billingMust(t, "subscription after paying", err)
	if sub.Status != stripe.SubscriptionStatusActive {
		t.Errorf("after paying the invoice: want active, have %s", sub.Status)
	}

	// Canceled at the period's end, when the clock passes it.
	sub, err = sc.V1Subscriptions.Update(ctx, sub.ID, &stripe.SubscriptionUpdateParams{CancelAtPeriodEnd: stripe.Bool(true)})
	billingMust(t, "cancel at period end", err)
	end := sub.Items.Data[0].CurrentPeriodEnd
	if sub.Status != stripe.SubscriptionStatusActive || !sub.CancelAtPeriodEnd || sub.CancelAt != end {
		t.Errorf("cancel_at_period_end: want active until cancel_at %d, have %s %v %d", end, sub.Status, sub.CancelAtPeriodEnd, sub.CancelAt)
	}
	s.advance(31 * 86400)
	sub, err = sc.V1Subscriptions.Retrieve(ctx, sub.ID, nil)
	billingMust(t, "subscription after its period's end", err)
	if sub.Status != stripe.SubscriptionStatusCanceled || sub.EndedAt != end {
		t.Errorf("past the period's end: want canceled, ended at %d; have %s %d", end, sub.Status, sub.EndedAt)
	}
	wantEvents(t, s, []string{
		"customer.subscription.created", "invoice.created", "invoice.finalized", "invoice.paid",
		"customer.subscription.trial_will_end",
		"customer.subscription.updated", "invoice.created", "invoice.finalized", "invoice.paid", "invoice.payment_succeeded",
		"customer.subscription.updated", "invoice.created", "invoice.finalized", "invoice.paid", "invoice.payment_succeeded",
		"customer.subscription.updated", "invoice.created", "invoice.finalized", "invoice.payment_failed", "customer.subscription.updated",
		"invoice.paid", "invoice.payment_succeeded", "customer.subscription.updated",
		"customer.subscription.updated", "customer.subscription.deleted",
	})
}

// setDefaultCard attaches a test card to the customer and makes it the
// invoices' default payment method.
func setDefaultCard(tb testing.TB, s *billingSession, customer, card string) {
	tb.Helper()
	ctx := context.Background()
	pm, err := s.sc.V1PaymentMethods.Attach(ctx, card, &stripe.PaymentMethodAttachParams{Customer: stripe.String(customer)})
	billingMust(tb, "attach "+card, err)
	cus, err := s.sc.V1Customers.Update(ctx, customer, &stripe.CustomerUpdateParams{
		InvoiceSettings: &stripe.CustomerUpdateInvoiceSettingsParams{DefaultPaymentMethod: stripe.String(pm.ID)},
	})
	billingMust(tb, "default payment method "+card, err)
	if cus.InvoiceSettings.DefaultPaymentMethod == nil || cus.InvoiceSettings.DefaultPaymentMethod.ID != pm.ID {
		tb.Errorf("customer: want default payment method %s, have %+v", pm.ID, cus.InvoiceSettings.DefaultPaymentMethod)
	}
}

func billingInvoice(tb testing.TB, s *billingSession, id string) *stripe.Invoice {
	tb.Helper()
	inv, err := s.sc.V1Invoices.Retrieve(context.Background(), id, nil)
	billingMust(tb, "invoice "+id, err)
	return inv
}

// wantPaidCycle wants inv a paid subscription_cycle invoice of amount.
func wantPaidCycle(tb testing.TB, what string, inv *stripe.Invoice, amount int64) {
	tb.Helper()
	if inv.Status != stripe.InvoiceStatusPaid || inv.BillingReason != "subscription_cycle" || inv.Total != amount || inv.AmountPaid != amount || inv.AmountRemaining != 0 || inv.AttemptCount != 1 {
		tb.Errorf("%s's invoice: want a paid subscription_cycle invoice of %d, one attempt; have %s %s total %d paid %d remaining %d attempts %d",
			what, amount, inv.Status, inv.BillingReason, inv.Total, inv.AmountPaid, inv.AmountRemaining, inv.AttemptCount)
	}
}

// wantEvents wants the session's billing events, oldest first, to be
// want (other events, of payments, may come between).
func wantEvents(tb testing.TB, s *billingSession, want []string) {
	tb.Helper()
	var have []string
	for ev, err := range s.sc.V1Events.List(context.Background(), &stripe.EventListParams{ListParams: stripe.ListParams{Limit: stripe.Int64(100)}}) {
		billingMust(tb, "events", err)
		if strings.HasPrefix(string(ev.Type), "invoice.") || strings.HasPrefix(string(ev.Type), "customer.subscription.") {
			have = append(have, string(ev.Type))
		}
	}
	for i, j := 0, len(have)-1; i < j; i, j = i+1, j-1 {
		have[i], have[j] = have[j], have[i]
	}
	if strings.Join(have, " ") != strings.Join(want, " ") {
		tb.Errorf("billing events, oldest first:\nwant %v\nhave %v", want, have)
	}
}

// invoiceOfThreeItems: an invoice whose three items' totals add up,
// finalized with a number and paid; a paid invoice cannot be voided; an
// invoice sent to the customer is due days_until_due after and can be
// paid out of band. (docs.stripe.com/invoicing/integration)
func invoiceOfThreeItems(t *testing.T, s *billingSession) {
	ctx := context.Background()
	sc := s.sc
	cus, err := sc.V1Customers.Create(ctx, &stripe.CustomerCreateParams{Email: stripe.String("grace@example.com")})
	billingMust(t, "customer create", err)
	setDefaultCard(t, s, cus.ID, "pm_card_visa")
	price, err := sc.V1Prices.Create(ctx, &stripe.PriceCreateParams{
		Currency: stripe.String("usd"), UnitAmount: stripe.Int64(500),
		ProductData: &stripe.PriceCreateProductDataParams{Name: stripe.String("Sticker")},
	})
	billingMust(t, "price create", err)
	if price.Type != stripe.PriceTypeOneTime || price.Product == nil || price.Product.ID == "" {
		t.Errorf("price with product_data: want one_time of a new product, have %s %+v", price.Type, price.Product)
	}
	inv, err := sc.V1Invoices.Create(ctx, &stripe.InvoiceCreateParams{Customer: stripe.String(cus.ID)})
	billingMust(t, "invoice create", err)
	if inv.Status != stripe.InvoiceStatusDraft || inv.Total != 0 || inv.CustomerEmail != "grace@example.com" {
		t.Errorf("new invoice: want a draft of 0 to grace@example.com, have %s %d %q", inv.Status, inv.Total, inv.CustomerEmail)
	}
	itemsSent := []*stripe.InvoiceItemCreateParams{
		{Customer: stripe.String(cus.ID), Invoice: stripe.String(inv.ID), Amount: stripe.Int64(2500), Currency: stripe.String("usd"), Description: stripe.String("Setup")},
		{Customer: stripe.String(cus.ID), Invoice: stripe.String(inv.ID), UnitAmountDecimal: stripe.Float64(500), Quantity: stripe.Int64(2), Currency: stripe.String("usd")},
		{Customer: stripe.String(cus.ID), Invoice: stripe.String(inv.ID), Pricing: &stripe.InvoiceItemCreatePricingParams{Price: stripe.String(price.ID)}},
	}
	wantAmounts := []int64{2500, 1000, 500}
	itemsSent[0].SetIdempotencyKey("keep-setup-item")
	for i, p := range append(itemsSent, itemsSent[0]) { // the first again: replayed, not added
		i %= len(wantAmounts)
		ii, err := sc.V1InvoiceItems.Create(ctx, p)
		billingMust(t, "invoice item create", err)
		if ii.Amount != wantAmounts[i] || ii.Invoice == nil || ii.Invoice.ID != inv.ID || ii.Currency != "usd" {
			t.Errorf("invoice item %d: want %d usd on %s, have %d %s %+v", i, wantAmounts[i], inv.ID, ii.Amount, ii.Currency, ii.Invoice)
		}
	}
	inv = billingInvoice(t, s, inv.ID)
	if len(inv.Lines.Data) != 3 || inv.Subtotal != 4000 || inv.Total != 4000 || inv.AmountDue != 4000 || inv.AmountRemaining != 4000 || inv.AmountPaid != 0 {
		t.Errorf("invoice of 2500+1000+500: want 3 lines, subtotal, total, due and remaining 4000; have %d lines %d %d %d %d paid %d",
			len(inv.Lines.Data), inv.Subtotal, inv.Total, inv.AmountDue, inv.AmountRemaining, inv.AmountPaid)
	}
	if _, err := sc.V1Invoices.Pay(ctx, inv.ID, nil); !isStripeError(err, 400) {
		t.Errorf("pay a draft: want Stripe's 400, have %v", err)
	}
	inv, err = sc.V1Invoices.FinalizeInvoice(ctx, inv.ID, nil)
	billingMust(t, "finalize", err)
	if inv.Status != stripe.InvoiceStatusOpen || inv.Number != cus.InvoicePrefix+"-0001" || inv.StatusTransitions.FinalizedAt == 0 {
		t.Errorf("finalized: want open, numbered %s-0001, finalized_at; have %s %q %d", cus.InvoicePrefix, inv.Status, inv.Number, inv.StatusTransitions.FinalizedAt)
	}
	inv, err = sc.V1Invoices.Pay(ctx, inv.ID, nil)
	billingMust(t, "pay", err)
	if inv.Status != stripe.InvoiceStatusPaid || inv.AmountPaid != 4000 || inv.AmountRemaining != 0 || inv.StatusTransitions.PaidAt == 0 || inv.AttemptCount != 1 {
		t.Errorf("paid: want paid 4000, nothing remaining, paid_at, one attempt; have %s %d %d %d %d", inv.Status, inv.AmountPaid, inv.AmountRemaining, inv.StatusTransitions.PaidAt, inv.AttemptCount)
	}
	if inv.Payments == nil || len(inv.Payments.Data) != 1 || inv.Payments.Data[0].Payment.PaymentIntent == nil {
		t.Fatalf("paid: want the payment intent among the invoice's payments, have %+v", inv.Payments)
	}
	pi, err := sc.V1PaymentIntents.Retrieve(ctx, inv.Payments.Data[0].Payment.PaymentIntent.ID, nil)
	billingMust(t, "the invoice's payment intent", err)
	if pi.Status != stripe.PaymentIntentStatusSucceeded || pi.Amount != 4000 || pi.Customer == nil || pi.Customer.ID != cus.ID {
		t.Errorf("the invoice's payment: want a succeeded intent of 4000 for %s, have %s %d %+v", cus.ID, pi.Status, pi.Amount, pi.Customer)
	}
	ip, err := sc.V1InvoicePayments.Retrieve(ctx, inv.Payments.Data[0].ID, nil)
	billingMust(t, "invoice payment retrieve", err)
	if ip.Status != "paid" || ip.AmountPaid != 4000 || ip.Invoice == nil || ip.Invoice.ID != inv.ID {
		t.Errorf("invoice payment: want paid 4000 of %s, have %s %d %+v", inv.ID, ip.Status, ip.AmountPaid, ip.Invoice)
	}
	if _, err := sc.V1Invoices.VoidInvoice(ctx, inv.ID, nil); !isStripeError(err, 400) || !strings.Contains(err.Error(), "You can only pass in open invoices") {
		t.Errorf("void a paid invoice: want Stripe's 400 (only open invoices), have %v", err)
	}

	sent, err := sc.V1Invoices.Create(ctx, &stripe.InvoiceCreateParams{Customer: stripe.String(cus.ID), CollectionMethod: stripe.String("send_invoice"), DaysUntilDue: stripe.Int64(30)})
	billingMust(t, "invoice sent to the customer", err)
	if sent.DueDate != sent.Created+30*86400 {
		t.Errorf("send_invoice with days_until_due=30: want due_date %d, have %d", sent.Created+30*86400, sent.DueDate)
	}
	_, err = sc.V1InvoiceItems.Create(ctx, &stripe.InvoiceItemCreateParams{Customer: stripe.String(cus.ID), Invoice: stripe.String(sent.ID), Amount: stripe.Int64(700), Currency: stripe.String("usd")})
	billingMust(t, "item of the sent invoice", err)
	sent, err = sc.V1Invoices.FinalizeInvoice(ctx, sent.ID, nil)
	billingMust(t, "finalize the sent invoice", err)
	if sent.Number != cus.InvoicePrefix+"-0002" {
		t.Errorf("second invoice: want number %s-0002, have %q", cus.InvoicePrefix, sent.Number)
	}
	sent, err = sc.V1Invoices.Pay(ctx, sent.ID, &stripe.InvoicePayParams{PaidOutOfBand: stripe.Bool(true)})
	billingMust(t, "pay out of band", err)
	var off struct {
		AmountPaidOffStripe int64 `json:"amount_paid_off_stripe"` // newer than stripe-go v82
	}
	billingMust(t, "decode the invoice paid out of band", json.Unmarshal(sent.LastResponse.RawJSON, &off))
	if sent.Status != stripe.InvoiceStatusPaid || sent.AmountPaid != 700 || off.AmountPaidOffStripe != 700 || sent.AttemptCount != 0 {
		t.Errorf("paid out of band: want paid 700 off Stripe with no attempt, have %s %d %d %d", sent.Status, sent.AmountPaid, off.AmountPaidOffStripe, sent.AttemptCount)
	}

	third, err := sc.V1Invoices.Create(ctx, &stripe.InvoiceCreateParams{Customer: stripe.String(cus.ID)})
	billingMust(t, "third invoice", err)
	_, err = sc.V1InvoiceItems.Create(ctx, &stripe.InvoiceItemCreateParams{Customer: stripe.String(cus.ID), Invoice: stripe.String(third.ID), Amount: stripe.Int64(300), Currency: stripe.String("usd")})
	billingMust(t, "item of the third invoice", err)
	_, err = sc.V1Invoices.FinalizeInvoice(ctx, third.ID, nil)
	billingMust(t, "finalize the third invoice", err)
	third, err = sc.V1Invoices.MarkUncollectible(ctx, third.ID, nil)
	billingMust(t, "mark uncollectible", err)
	if third.Status != stripe.InvoiceStatusUncollectible || third.StatusTransitions.MarkedUncollectibleAt == 0 {
		t.Errorf("marked uncollectible: want uncollectible with its time, have %s %d", third.Status, third.StatusTransitions.MarkedUncollectibleAt)
	}
	third, err = sc.V1Invoices.VoidInvoice(ctx, third.ID, nil)
	billingMust(t, "void the uncollectible invoice", err)
	if third.Status != stripe.InvoiceStatusVoid || third.StatusTransitions.VoidedAt == 0 {
		t.Errorf("voided: want void with its time, have %s %d", third.Status, third.StatusTransitions.VoidedAt)
	}

	// auto_advance: the draft is finalized an hour on, and charged.
	auto, err := sc.V1Invoices.Create(ctx, &stripe.InvoiceCreateParams{Customer: stripe.String(cus.ID), AutoAdvance: stripe.Bool(true)})
	billingMust(t, "invoice with auto_advance", err)
	if auto.AutomaticallyFinalizesAt != auto.Created+3600 {
		t.Errorf("auto_advance draft: want automatically_finalizes_at %d, have %d", auto.Created+3600, auto.AutomaticallyFinalizesAt)
	}
	_, err = sc.V1InvoiceItems.Create(ctx, &stripe.InvoiceItemCreateParams{Customer: stripe.String(cus.ID), Invoice: stripe.String(auto.ID), Amount: stripe.Int64(900), Currency: stripe.String("usd")})
	billingMust(t, "item of the auto_advance invoice", err)
	s.advance(2 * 3600)
	auto = billingInvoice(t, s, auto.ID)
	if auto.Status != stripe.InvoiceStatusPaid || auto.AmountPaid != 900 || auto.StatusTransitions.FinalizedAt != auto.Created+3600 || auto.Number != cus.InvoicePrefix+"-0004" {
		t.Errorf("auto_advance an hour on: want finalized at %d as %s-0004 and paid 900, have %s finalized %d %q paid %d",
			auto.Created+3600, cus.InvoicePrefix, auto.Status, auto.StatusTransitions.FinalizedAt, auto.Number, auto.AmountPaid)
	}
}

// isStripeError reports whether err is Stripe's error answer of status.
func isStripeError(err error, status int) bool {
	var se *stripe.Error
	return errors.As(err, &se) && se.HTTPStatusCode == status
}

// testClockAdvance: a customer on a test clock, a monthly subscription,
// and an advance past its period's end, which renews it; a clock cannot
// go back. (docs.stripe.com/billing/testing/test-clocks)
func testClockAdvance(t *testing.T, s *billingSession) {
	ctx := context.Background()
	sc := s.sc
	tc, err := sc.V1TestHelpersTestClocks.Create(ctx, &stripe.TestHelpersTestClockCreateParams{FrozenTime: stripe.Int64(billingEpoch), Name: stripe.String("renewal")})
	billingMust(t, "test clock create", err)
	if tc.Status != stripe.TestHelpersTestClockStatusReady || tc.FrozenTime != billingEpoch {
		t.Errorf("new test clock: want ready at %d, have %s %d", billingEpoch, tc.Status, tc.FrozenTime)
	}
	cus, err := sc.V1Customers.Create(ctx, &stripe.CustomerCreateParams{Email: stripe.String("lin@example.com"), TestClock: stripe.String(tc.ID)})
	billingMust(t, "customer on the clock", err)
	if cus.TestClock == nil || cus.TestClock.ID != tc.ID {
		t.Errorf("customer: want test_clock %s, have %+v", tc.ID, cus.TestClock)
	}
	setDefaultCard(t, s, cus.ID, "pm_card_visa")
	price, err := sc.V1Prices.Create(ctx, &stripe.PriceCreateParams{
		Currency: stripe.String("usd"), UnitAmount: stripe.Int64(1200),
		Recurring:   &stripe.PriceCreateRecurringParams{Interval: stripe.String("month")},
		ProductData: &stripe.PriceCreateProductDataParams{Name: stripe.String("Basic")},
	})
	billingMust(t, "price create", err)
	setup, err := sc.V1Prices.Create(ctx, &stripe.PriceCreateParams{
		Currency: stripe.String("usd"), UnitAmount: stripe.Int64(300),
		ProductData: &stripe.PriceCreateProductDataParams{Name: stripe.String("Setup fee")},
	})
	billingMust(t, "one-time price create", err)
	sub, err := sc.V1Subscriptions.Create(ctx, &stripe.SubscriptionCreateParams{
		Customer:        stripe.String(cus.ID),
		Items:           []*stripe.SubscriptionCreateItemParams{{Price: stripe.String(price.ID), Quantity: stripe.Int64(2)}},
		AddInvoiceItems: []*stripe.SubscriptionCreateAddInvoiceItemParams{{Price: stripe.String(setup.ID)}},
	})
	billingMust(t, "subscription create", err)
	if sub.Status != stripe.SubscriptionStatusActive || sub.TestClock == nil || sub.TestClock.ID != tc.ID {
		t.Errorf("subscription: want active on %s, have %s %+v", tc.ID, sub.Status, sub.TestClock)
	}
	first := billingInvoice(t, s, sub.LatestInvoice.ID)
	if first.Status != stripe.InvoiceStatusPaid || first.AmountPaid != 2700 || first.BillingReason != "subscription_create" || len(first.Lines.Data) != 2 {
		t.Errorf("first invoice with add_invoice_items: want paid 2400+300 in two lines for subscription_create, have %s %d %s %d lines", first.Status, first.AmountPaid, first.BillingReason, len(first.Lines.Data))
	}
	end := sub.Items.Data[0].CurrentPeriodEnd
	to := end + 86400
	tc, err = sc.V1TestHelpersTestClocks.Advance(ctx, tc.ID, &stripe.TestHelpersTestClockAdvanceParams{FrozenTime: stripe.Int64(to)})
	billingMust(t, "advance", err)
	if tc.Status != stripe.TestHelpersTestClockStatusAdvancing || tc.FrozenTime != to {
		t.Errorf("advance: want advancing to %d, have %s %d", to, tc.Status, tc.FrozenTime)
	}
	tc, err = sc.V1TestHelpersTestClocks.Retrieve(ctx, tc.ID, nil)
	billingMust(t, "test clock retrieve", err)
	if tc.Status != stripe.TestHelpersTestClockStatusReady || tc.FrozenTime != to {
		t.Errorf("after the advance: want ready at %d, have %s %d", to, tc.Status, tc.FrozenTime)
	}
	sub, err = sc.V1Subscriptions.Retrieve(ctx, sub.ID, nil)
	billingMust(t, "subscription after the advance", err)
	if sub.Items.Data[0].CurrentPeriodStart != end || sub.LatestInvoice.ID == first.ID {
		t.Errorf("after the advance: want the period from %d with a new invoice, have %d %s", end, sub.Items.Data[0].CurrentPeriodStart, sub.LatestInvoice.ID)
	}
	wantPaidCycle(t, "renewal", billingInvoice(t, s, sub.LatestInvoice.ID), 2400)
	if _, err := sc.V1TestHelpersTestClocks.Advance(ctx, tc.ID, &stripe.TestHelpersTestClockAdvanceParams{FrozenTime: stripe.Int64(to - 10)}); !isStripeError(err, 400) {
		t.Errorf("advance backwards: want Stripe's 400, have %v", err)
	}

	// A trial ended early: trial_end=now starts the first period at once.
	trial, err := sc.V1Subscriptions.Create(ctx, &stripe.SubscriptionCreateParams{
		Customer:        stripe.String(cus.ID),
		Items:           []*stripe.SubscriptionCreateItemParams{{Price: stripe.String(price.ID)}},
		TrialPeriodDays: stripe.Int64(30),
	})
	billingMust(t, "subscription with a trial", err)
	later := trial.TrialEnd + 7*86400
	trial, err = sc.V1Subscriptions.Update(ctx, trial.ID, &stripe.SubscriptionUpdateParams{TrialEnd: stripe.Int64(later)})
	billingMust(t, "extend the trial", err)
	if trial.Status != stripe.SubscriptionStatusTrialing || trial.TrialEnd != later || trial.Items.Data[0].CurrentPeriodEnd != later {
		t.Errorf("trial extended: want trialing until %d, have %s %d (period end %d)", later, trial.Status, trial.TrialEnd, trial.Items.Data[0].CurrentPeriodEnd)
	}
	trial, err = sc.V1Subscriptions.Update(ctx, trial.ID, &stripe.SubscriptionUpdateParams{TrialEndNow: stripe.Bool(true)})
	billingMust(t, "end the trial now", err)
	if it := trial.Items.Data[0]; trial.Status != stripe.SubscriptionStatusActive || trial.TrialEnd != it.CurrentPeriodStart || it.CurrentPeriodEnd <= it.CurrentPeriodStart {
		t.Errorf("trial_end=now: want active, a period from the trial's end, have %s trial_end %d period %d to %d", trial.Status, trial.TrialEnd, it.CurrentPeriodStart, it.CurrentPeriodEnd)
	}
	wantPaidCycle(t, "trial ended now", billingInvoice(t, s, trial.LatestInvoice.ID), 1200)
	cp := &stripe.SubscriptionCancelParams{CancellationDetails: &stripe.SubscriptionCancelCancellationDetailsParams{Comment: stripe.String("too many fees"), Feedback: stripe.String("too_expensive")}}
	trial, err = sc.V1Subscriptions.Cancel(ctx, trial.ID, cp)
	billingMust(t, "cancel now", err)
	if cd := trial.CancellationDetails; trial.Status != stripe.SubscriptionStatusCanceled || cd == nil || cd.Comment != "too many fees" || cd.Feedback != "too_expensive" || cd.Reason != "cancellation_requested" {
		t.Errorf("canceled now: want canceled with the comment and feedback sent, have %s %+v", trial.Status, cd)
	}
}
