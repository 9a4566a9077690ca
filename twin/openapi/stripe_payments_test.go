package openapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stripe/stripe-go/v82"
)

// Stripe's payment flows (docs.stripe.com/payments/accept-a-payment,
// /refunds, /payments/place-a-hold-on-a-payment-method,
// /payments/3d-secure, /declines) driven by stripe-go against the
// embedded stripe twin. Every answer is checked against Stripe's
// description and must report no ignored parameter.

// generatedKey is the shape of the Idempotency-Key stripe-go makes for a
// POST that sets none: the time in nanoseconds, _, random characters.
var generatedKey = regexp.MustCompile(`^[0-9]{15,}_`)

// payTransport is a stripe-go transport that validates each answer against
// Stripe's description and keeps the answers' bodies in order.
type payTransport struct {
	tb      testing.TB
	doc     *openapi3.T
	paths   []string // doc's, for specPath
	session string
	mu      sync.Mutex
	bodies  [][]byte
}

func (c *payTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	n := len(c.bodies)
	c.mu.Unlock()
	if generatedKey.MatchString(r.Header.Get("Idempotency-Key")) {
		// stripe-go's own key is random; the twin echoes it in events.
		// Two runs of a flow send the same requests, keys included.
		r = r.Clone(r.Context())
		r.Header.Set("Idempotency-Key", "flow-"+strconv.Itoa(n))
	}
	a, err := sendChecked(c.doc, c.paths, c.session, r)
	if err != nil {
		return nil, err
	}
	if a.ignored != "" {
		c.tb.Errorf("%s %s: want no ignored parameters, have %s", r.Method, r.URL.Path, a.ignored)
	}
	if a.problem != "" {
		c.tb.Errorf("%s %s: %s", r.Method, r.URL.Path, a.problem)
	}
	c.mu.Lock()
	c.bodies = append(c.bodies, a.body)
	c.mu.Unlock()
	return a.resp, nil
}

// payClient is stripe-go on srv in session, its answers checked.
func payClient(tb testing.TB, url, session string) (*stripe.Client, *payTransport) {
	tb.Helper()
	doc := stripeDoc(tb)
	tr := &payTransport{tb: tb, doc: doc, paths: doc.Paths.Keys(), session: session}
	backends := stripe.NewBackendsWithConfig(&stripe.BackendConfig{
		URL:               stripe.String(url),
		HTTPClient:        &http.Client{Transport: tr},
		MaxNetworkRetries: stripe.Int64(0),
		LeveledLogger:     &stripe.LeveledLogger{Level: stripe.LevelNull},
	})
	return stripe.NewClient("sk_test_wraith", stripe.WithBackends(backends)), tr
}

// payErr is err as Stripe's error, failing unless it is one of status.
func payErr(tb testing.TB, step string, err error, status int) *stripe.Error {
	tb.Helper()
	var se *stripe.Error
	if !errors.As(err, &se) {
		tb.Fatalf("%s: want Stripe's %d error, have %v", step, status, err)
	}
	if se.HTTPStatusCode != status {
		tb.Fatalf("%s: want status %d, have %d (%s)", step, status, se.HTTPStatusCode, se.Msg)
	}
	return se
}

func payOK(tb testing.TB, step string, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatalf("%s: %v", step, err)
	}
}

// acceptAndRefund accepts a payment of 2000 with pm_card_visa and
// refunds it in two parts, then has a third refund refused; it reports
// each step's failures to tb.
func acceptAndRefund(tb testing.TB, sc *stripe.Client) {
	ctx := context.Background()
	pi, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{
		Amount: stripe.Int64(2000), Currency: stripe.String("usd"), PaymentMethod: stripe.String("pm_card_visa"),
	})
	payOK(tb, "create", err)
	if pi.Status != stripe.PaymentIntentStatusRequiresConfirmation {
		tb.Errorf("created with a payment method: want requires_confirmation, have %s", pi.Status)
	}
	pi, err = sc.V1PaymentIntents.Confirm(ctx, pi.ID, nil)
	payOK(tb, "confirm", err)
	if pi.Status != stripe.PaymentIntentStatusSucceeded || pi.AmountReceived != 2000 || pi.LatestCharge == nil {
		tb.Fatalf("confirmed: want succeeded, 2000 received, a latest charge; have %s %d %v", pi.Status, pi.AmountReceived, pi.LatestCharge)
	}
	ch, err := sc.V1Charges.Retrieve(ctx, pi.LatestCharge.ID, nil)
	payOK(tb, "retrieve the charge", err)
	if ch.Status != stripe.ChargeStatusSucceeded || !ch.Paid || !ch.Captured || ch.Amount != 2000 || ch.AmountCaptured != 2000 ||
		ch.AmountRefunded != 0 || ch.Refunded || ch.PaymentIntent.ID != pi.ID || ch.PaymentMethod != pi.PaymentMethod.ID || ch.Currency != "usd" {
		tb.Errorf("charge: want succeeded, paid, captured 2000 of 2000 usd, nothing refunded, of %s with %s; have %+v", pi.ID, pi.PaymentMethod.ID, ch)
	}
	if d := ch.PaymentMethodDetails; d == nil || d.Card == nil || d.Card.Brand != "visa" || d.Card.Last4 != "4242" {
		tb.Errorf("charge's payment_method_details: want a visa ending 4242, have %+v", d)
	}
	if ch.Outcome == nil || ch.Outcome.Type != "authorized" || ch.BalanceTransaction == nil {
		tb.Fatalf("charge: want an authorized outcome and a balance transaction, have %+v %v", ch.Outcome, ch.BalanceTransaction)
	}
	tx, err := sc.V1BalanceTransactions.Retrieve(ctx, ch.BalanceTransaction.ID, nil)
	payOK(tb, "retrieve the balance transaction", err)
	if tx.Amount != 2000 || tx.Fee != 88 || tx.Net != 1912 || tx.Type != stripe.BalanceTransactionTypeCharge || tx.Source == nil || tx.Source.ID != ch.ID || tx.Status != stripe.BalanceTransactionStatusPending {
		tb.Errorf("balance transaction: want 2000, fee 88 (2.9%% + 30), net 1912, a pending charge of %s; have %d %d %d %s %+v %s", ch.ID, tx.Amount, tx.Fee, tx.Net, tx.Type, tx.Source, tx.Status)
	}

	re1, err := sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{PaymentIntent: stripe.String(pi.ID), Amount: stripe.Int64(500)})
	payOK(tb, "refund 500 by the payment intent", err)
	if re1.Amount != 500 || re1.Charge.ID != ch.ID || re1.PaymentIntent.ID != pi.ID || re1.Status != stripe.RefundStatusSucceeded || re1.Currency != "usd" || re1.BalanceTransaction == nil {
		tb.Errorf("first refund: want 500 usd of %s (%s), succeeded, with a balance transaction; have %+v", ch.ID, pi.ID, re1)
	}
	rtx, err := sc.V1BalanceTransactions.Retrieve(ctx, re1.BalanceTransaction.ID, nil)
	payOK(tb, "retrieve the refund's balance transaction", err)
	if rtx.Amount != -500 || rtx.Type != stripe.BalanceTransactionTypeRefund || rtx.Source.ID != re1.ID {
		tb.Errorf("refund's balance transaction: want -500, type refund, of %s; have %d %s %+v", re1.ID, rtx.Amount, rtx.Type, rtx.Source)
	}
	ch, err = sc.V1Charges.Retrieve(ctx, ch.ID, nil)
	payOK(tb, "retrieve the charge after a partial refund", err)
	if ch.AmountRefunded != 500 || ch.Refunded {
		tb.Errorf("after refunding 500: want amount_refunded 500, not refunded; have %d %v", ch.AmountRefunded, ch.Refunded)
	}
	_, err = sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{Charge: stripe.String(ch.ID), Amount: stripe.Int64(1600)})
	se := payErr(tb, "refund 1600 of the 1500 left", err, 400)
	if want := "Refund amount ($16.00) is greater than unrefunded amount on charge ($15.00)"; se.Msg != want || se.Type != stripe.ErrorTypeInvalidRequest || se.Param != "amount" {
		tb.Errorf("refund past what is left: want invalid_request_error on amount %q, have %s on %q %q", want, se.Type, se.Param, se.Msg)
	}
	_, err = sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{Charge: stripe.String(ch.ID), Amount: stripe.Int64(0)})
	if se := payErr(tb, "refund 0", err, 400); se.Param != "amount" {
		tb.Errorf("refund of 0: want refused on amount, have %q %q", se.Param, se.Msg)
	}
	re2, err := sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{Charge: stripe.String(ch.ID)})
	payOK(tb, "refund the rest by the charge", err)
	if re2.Amount != 1500 || re2.PaymentIntent.ID != pi.ID {
		tb.Errorf("second refund with no amount: want what is left, 1500, of %s; have %d of %v", pi.ID, re2.Amount, re2.PaymentIntent)
	}
	ch, err = sc.V1Charges.Retrieve(ctx, ch.ID, nil)
	payOK(tb, "retrieve the refunded charge", err)
	if ch.AmountRefunded != 2000 || !ch.Refunded {
		tb.Errorf("after refunding it all: want amount_refunded 2000, refunded; have %d %v", ch.AmountRefunded, ch.Refunded)
	}
	_, err = sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{PaymentIntent: stripe.String(pi.ID), Amount: stripe.Int64(100)})
	se = payErr(tb, "a third refund", err, 400)
	if want := "Charge " + ch.ID + " has already been refunded."; se.Msg != want || se.Code != "charge_already_refunded" {
		tb.Errorf("third refund: want charge_already_refunded %q, have %s %q", want, se.Code, se.Msg)
	}
	for _, by := range []struct {
		name   string
		params *stripe.RefundListParams
	}{
		{"payment_intent", &stripe.RefundListParams{PaymentIntent: stripe.String(pi.ID)}},
		{"charge", &stripe.RefundListParams{Charge: stripe.String(ch.ID)}},
	} {
		var have []string
		for re, err := range sc.V1Refunds.List(ctx, by.params) {
			payOK(tb, "list refunds by "+by.name, err)
			have = append(have, re.ID)
		}
		if want := []string{re2.ID, re1.ID}; strings.Join(have, ",") != strings.Join(want, ",") {
			tb.Errorf("refunds listed by %s: want %v (newest first), have %v", by.name, want, have)
		}
	}
	want := "payment_intent.created charge.succeeded payment_intent.succeeded charge.refunded refund.created charge.refunded refund.created"
	if have := strings.Join(eventTypes(tb, sc), " "); have != want {
		tb.Errorf("events, oldest first:\nwant %s\nhave %s", want, have)
	}
}

// eventTypes are the types of the session's events, oldest first.
func eventTypes(tb testing.TB, sc *stripe.Client) []string {
	tb.Helper()
	var types []string
	for ev, err := range sc.V1Events.List(context.Background(), &stripe.EventListParams{ListParams: stripe.ListParams{Limit: stripe.Int64(100)}}) {
		payOK(tb, "list events", err)
		types = append([]string{string(ev.Type)}, types...)
	}
	return types
}

// TestStripeAcceptAndRefund accepts a payment and refunds it in two
// parts, refuses a refund past what is left and a third refund, and
// lists the refunds by payment intent and by charge, and records the
// events Stripe sends, in order; two sessions running the flow side by
// side answer byte for byte the same.
func TestStripeAcceptAndRefund(t *testing.T) {
	srv := startTwin(t, "stripe", "--unknown-entity", "not_found", "--clock", "deterministic", "--clock-epoch", "1700000000")
	runs := make([]*payTransport, 2)
	t.Run("sessions", func(t *testing.T) {
		for i, session := range []string{"refund-a", "refund-b"} {
			t.Run(session, func(t *testing.T) {
				t.Parallel() // the two sessions side by side
				sc, tr := payClient(t, srv.URL(), session)
				runs[i] = tr
				acceptAndRefund(t, sc)
			})
		}
	})
	a, b := runs[0].bodies, runs[1].bodies
	if len(a) != len(b) {
		t.Fatalf("two sessions: want as many answers, have %d and %d", len(a), len(b))
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			t.Errorf("answer %d differs between two sessions running the same flow:\n%s\n%s", i, a[i], b[i])
		}
	}
	if da, db := sessionDigest(t, srv.URL(), "refund-a"), sessionDigest(t, srv.URL(), "refund-b"); da != db {
		t.Errorf("two sessions running the same flow: want one digest of their worlds, have %s and %s", da, db)
	}
}

// sessionDigest is session's world's digest and entity count, as
// GET /__wraith/session/{id}/digest gives them.
func sessionDigest(tb testing.TB, base, session string) string {
	tb.Helper()
	resp, err := http.Get(base + "/__wraith/session/" + session + "/digest")
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var d struct {
		Digest   string
		Entities int
	}
	if err := json.NewDecoder(resp.Body).Decode(&d); err != nil || resp.StatusCode != http.StatusOK || d.Digest == "" {
		tb.Fatalf("digest of %s: %d %v", session, resp.StatusCode, err)
	}
	return fmt.Sprintf("%s (%d entities)", d.Digest, d.Entities)
}

// TestStripeConfirmOnCreate creates a payment intent with confirm=true:
// it succeeds at once with its charge, or, without a payment method,
// stays requires_payment_method; confirming that is Stripe's 400.
func TestStripeConfirmOnCreate(t *testing.T) {
	srv := startTwin(t, "stripe", "--unknown-entity", "not_found", "--clock", "deterministic", "--clock-epoch", "1700000000")
	sc, _ := payClient(t, srv.URL(), "confirm-on-create")
	ctx := context.Background()
	pi, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{
		Amount: stripe.Int64(1500), Currency: stripe.String("eur"), PaymentMethod: stripe.String("pm_card_mastercard"),
		Confirm: stripe.Bool(true), ReturnURL: stripe.String("https://example.com/done"),
	})
	payOK(t, "create with confirm=true", err)
	if pi.Status != stripe.PaymentIntentStatusSucceeded || pi.AmountReceived != 1500 || pi.LatestCharge == nil {
		t.Fatalf("confirm=true: want succeeded, 1500 received, a latest charge; have %s %d %v", pi.Status, pi.AmountReceived, pi.LatestCharge)
	}
	ch, err := sc.V1Charges.Retrieve(ctx, pi.LatestCharge.ID, nil)
	payOK(t, "retrieve the charge", err)
	if ch.Amount != 1500 || ch.Currency != "eur" || ch.PaymentMethodDetails.Card.Brand != "mastercard" || ch.PaymentMethodDetails.Card.Last4 != "4444" {
		t.Errorf("charge: want 1500 eur on a mastercard ending 4444, have %d %s %+v", ch.Amount, ch.Currency, ch.PaymentMethodDetails.Card)
	}
	_, err = sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{
		Amount: stripe.Int64(900), Currency: stripe.String("usd"), PaymentMethod: stripe.String("pm_card_chargeDeclined"), Confirm: stripe.Bool(true),
	})
	se := payErr(t, "create with confirm=true and a declining card", err, 402)
	if se.Code != stripe.ErrorCodeCardDeclined || se.ChargeID == "" || se.PaymentIntent == nil || se.PaymentIntent.LatestCharge == nil || se.PaymentIntent.LatestCharge.ID != se.ChargeID {
		t.Errorf("declined on create: want card_declined naming the failed charge the kept intent's latest_charge names, have %s %q %+v", se.Code, se.ChargeID, se.PaymentIntent)
	}
	_, err = sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(800), Currency: stripe.String("usd"), Confirm: stripe.Bool(true)})
	se = payErr(t, "create with confirm=true and no payment method", err, 400)
	if se.Code != "payment_intent_unexpected_state" {
		t.Errorf("confirm=true with no payment method: want payment_intent_unexpected_state, have %s %q", se.Code, se.Msg)
	}
	// payment_method_data makes the method of its type the intent is paid
	// with (not a card: Stripe's description takes cards as payment_method).
	sepa, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{
		Amount: stripe.Int64(400), Currency: stripe.String("eur"), PaymentMethodTypes: []*string{stripe.String("sepa_debit")}, Confirm: stripe.Bool(true),
		PaymentMethodData: &stripe.PaymentIntentCreatePaymentMethodDataParams{Type: stripe.String("sepa_debit"),
			SEPADebit: &stripe.PaymentMethodSEPADebitParams{IBAN: stripe.String("DE89370400440532013000")}},
	})
	payOK(t, "create with payment_method_data", err)
	if sepa.Status != stripe.PaymentIntentStatusSucceeded || sepa.PaymentMethod == nil || sepa.LatestCharge == nil {
		t.Fatalf("payment_method_data: want succeeded with a payment method and a charge, have %s %v %v", sepa.Status, sepa.PaymentMethod, sepa.LatestCharge)
	}
	sch, err := sc.V1Charges.Retrieve(ctx, sepa.LatestCharge.ID, nil)
	payOK(t, "retrieve the sepa_debit charge", err)
	if d := sch.PaymentMethodDetails; d == nil || d.Type != "sepa_debit" || d.SEPADebit == nil {
		t.Errorf("charge of payment_method_data: want sepa_debit details, have %+v", d)
	}

	// A repeated Idempotency-Key replays the confirm: one charge, the
	// same answer.
	again, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(600), Currency: stripe.String("usd"), PaymentMethod: stripe.String("pm_card_visa")})
	payOK(t, "create to confirm twice", err)
	var first *stripe.PaymentIntent
	for i := 0; i < 2; i++ {
		params := &stripe.PaymentIntentConfirmParams{}
		params.SetIdempotencyKey("confirm-once")
		pi, err := sc.V1PaymentIntents.Confirm(ctx, again.ID, params)
		payOK(t, "confirm with an idempotency key", err)
		if first == nil {
			first = pi
		} else if !bytes.Equal(pi.LastResponse.RawJSON, first.LastResponse.RawJSON) || pi.LastResponse.Header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("the repeated confirm: want the first answer replayed, have %s (Idempotent-Replayed %q)", pi.LastResponse.RawJSON, pi.LastResponse.Header.Get("Idempotent-Replayed"))
		}
	}
	n := 0
	for ch, err := range sc.V1Charges.List(ctx, &stripe.ChargeListParams{PaymentIntent: stripe.String(again.ID)}) {
		payOK(t, "list the intent's charges", err)
		if ch.PaymentIntent.ID == again.ID {
			n++
		}
	}
	if n != 1 {
		t.Errorf("charges of an intent confirmed twice with one key: want 1, have %d", n)
	}
	// setup_future_usage saves the method for the customer, who can then
	// be charged off session with it.
	cus, err := sc.V1Customers.Create(ctx, &stripe.CustomerCreateParams{Email: stripe.String("ada@example.com")})
	payOK(t, "create a customer", err)
	saved, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{
		Amount: stripe.Int64(500), Currency: stripe.String("usd"), Customer: stripe.String(cus.ID), PaymentMethod: stripe.String("pm_card_visa"),
		SetupFutureUsage: stripe.String("off_session"), Confirm: stripe.Bool(true),
	})
	payOK(t, "confirm with setup_future_usage", err)
	pm, err := sc.V1PaymentMethods.Retrieve(ctx, saved.PaymentMethod.ID, nil)
	payOK(t, "retrieve the saved method", err)
	if pm.Customer == nil || pm.Customer.ID != cus.ID || pm.Card == nil || pm.Card.Last4 != "4242" {
		t.Errorf("saved method: want a card ending 4242 attached to %s, have %+v %+v", cus.ID, pm.Customer, pm.Card)
	}
	later, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{
		Amount: stripe.Int64(1200), Currency: stripe.String("usd"), Customer: stripe.String(cus.ID), PaymentMethod: stripe.String(pm.ID),
		OffSession: stripe.Bool(true), Confirm: stripe.Bool(true),
	})
	payOK(t, "charge the saved method off session", err)
	if later.Status != stripe.PaymentIntentStatusSucceeded || later.PaymentMethod.ID != pm.ID {
		t.Errorf("off session with the saved method: want succeeded with %s, have %s %v", pm.ID, later.Status, later.PaymentMethod)
	}
	// A test token attached to the customer is the customer's method:
	// every payment names it.
	att, err := sc.V1PaymentMethods.Attach(ctx, "pm_card_mastercard", &stripe.PaymentMethodAttachParams{Customer: stripe.String(cus.ID)})
	payOK(t, "attach pm_card_mastercard", err)
	for i := 0; i < 2; i++ {
		paid, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{
			Amount: stripe.Int64(300), Currency: stripe.String("usd"), Customer: stripe.String(cus.ID), PaymentMethod: stripe.String(att.ID),
			OffSession: stripe.Bool(true), Confirm: stripe.Bool(true),
		})
		payOK(t, "charge the attached method", err)
		if paid.PaymentMethod == nil || paid.PaymentMethod.ID != att.ID {
			t.Errorf("payment %d with the attached method: want payment_method %s, have %v", i, att.ID, paid.PaymentMethod)
		}
	}
	pmAtt, err := sc.V1PaymentMethods.Retrieve(ctx, att.ID, nil)
	payOK(t, "retrieve the attached method", err)
	if pmAtt.Card == nil || pmAtt.Card.Last4 != "4444" || pmAtt.Card.Brand != "mastercard" || pmAtt.Customer == nil || pmAtt.Customer.ID != cus.ID {
		t.Errorf("attached method: want %s's mastercard ending 4444, have %+v %+v", cus.ID, pmAtt.Customer, pmAtt.Card)
	}
	bare, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(700), Currency: stripe.String("usd")})
	payOK(t, "create with no payment method", err)
	_, err = sc.V1PaymentIntents.Confirm(ctx, bare.ID, nil)
	se = payErr(t, "confirm with no payment method", err, 400)
	if se.Code != "payment_intent_unexpected_state" || !strings.HasPrefix(se.Msg, "You cannot confirm this PaymentIntent because it's missing a payment method.") {
		t.Errorf("confirm with no payment method: want payment_intent_unexpected_state about the missing payment method, have %s %q", se.Code, se.Msg)
	}
	if se.PaymentIntent == nil || se.PaymentIntent.ID != bare.ID {
		t.Errorf("the 400 names the intent: want %s, have %+v", bare.ID, se.PaymentIntent)
	}
}

// TestStripeManualCapture holds 2000, captures 1500 of it (the rest
// released), refuses a capture past the hold, and cancels a hold, whose
// charge is refunded.
func TestStripeManualCapture(t *testing.T) {
	srv := startTwin(t, "stripe", "--unknown-entity", "not_found", "--clock", "deterministic", "--clock-epoch", "1700000000")
	sc, tr := payClient(t, srv.URL(), "manual")
	ctx := context.Background()
	hold := func(step string) *stripe.PaymentIntent {
		pi, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{
			Amount: stripe.Int64(2000), Currency: stripe.String("usd"), PaymentMethod: stripe.String("pm_card_visa"),
			CaptureMethod: stripe.String("manual"), Confirm: stripe.Bool(true),
		})
		payOK(t, step, err)
		if pi.Status != stripe.PaymentIntentStatusRequiresCapture || pi.AmountCapturable != 2000 || pi.AmountReceived != 0 || pi.LatestCharge == nil {
			t.Fatalf("%s: want requires_capture, 2000 capturable, nothing received, a charge; have %s %d %d %v", step, pi.Status, pi.AmountCapturable, pi.AmountReceived, pi.LatestCharge)
		}
		return pi
	}
	pi := hold("hold 2000")
	ch, err := sc.V1Charges.Retrieve(ctx, pi.LatestCharge.ID, nil)
	payOK(t, "retrieve the held charge", err)
	if ch.Captured || ch.AmountCaptured != 0 || ch.BalanceTransaction != nil || ch.Status != stripe.ChargeStatusSucceeded {
		t.Errorf("held charge: want succeeded, uncaptured, no balance transaction; have captured %v %d %v %s", ch.Captured, ch.AmountCaptured, ch.BalanceTransaction, ch.Status)
	}
	_, err = sc.V1PaymentIntents.Capture(ctx, pi.ID, &stripe.PaymentIntentCaptureParams{AmountToCapture: stripe.Int64(2500)})
	se := payErr(t, "capture 2500 of 2000", err, 400)
	if se.Code != "amount_too_large" || se.Param != "amount_to_capture" {
		t.Errorf("capture past the hold: want amount_too_large on amount_to_capture, have %s on %s %q", se.Code, se.Param, se.Msg)
	}
	pi, err = sc.V1PaymentIntents.Capture(ctx, pi.ID, &stripe.PaymentIntentCaptureParams{AmountToCapture: stripe.Int64(1500)})
	payOK(t, "capture 1500", err)
	if pi.Status != stripe.PaymentIntentStatusSucceeded || pi.AmountReceived != 1500 || pi.AmountCapturable != 0 {
		t.Errorf("captured 1500: want succeeded, 1500 received, nothing capturable; have %s %d %d", pi.Status, pi.AmountReceived, pi.AmountCapturable)
	}
	ch, err = sc.V1Charges.Retrieve(ctx, ch.ID, nil)
	payOK(t, "retrieve the captured charge", err)
	if !ch.Captured || ch.AmountCaptured != 1500 || ch.AmountRefunded != 500 || ch.Refunded || ch.BalanceTransaction == nil {
		t.Errorf("captured charge: want captured 1500, the 500 left released (amount_refunded), not refunded, a balance transaction; have %v %d %d %v %v", ch.Captured, ch.AmountCaptured, ch.AmountRefunded, ch.Refunded, ch.BalanceTransaction)
	}
	re, err := sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{PaymentIntent: stripe.String(pi.ID)})
	payOK(t, "refund the captured part", err)
	if re.Amount != 1500 {
		t.Errorf("refund of a partial capture: want the 1500 captured, have %d", re.Amount)
	}

	// The Charges API's capture and refund, on a charge a held intent made.
	legacy := hold("hold 2000 for the Charges API")
	ch, err = sc.V1Charges.Capture(ctx, legacy.LatestCharge.ID, &stripe.ChargeCaptureParams{Amount: stripe.Int64(1200)})
	payOK(t, "capture the charge", err)
	if !ch.Captured || ch.AmountCaptured != 1200 || ch.AmountRefunded != 800 {
		t.Errorf("charge captured through the Charges API: want 1200 captured, 800 released, have %v %d %d", ch.Captured, ch.AmountCaptured, ch.AmountRefunded)
	}
	legacy, err = sc.V1PaymentIntents.Retrieve(ctx, legacy.ID, nil)
	payOK(t, "retrieve the intent its charge captured", err)
	if legacy.Status != stripe.PaymentIntentStatusSucceeded || legacy.AmountReceived != 1200 {
		t.Errorf("intent of a charge captured: want succeeded with 1200, have %s %d", legacy.Status, legacy.AmountReceived)
	}
	_, err = sc.V1Charges.Capture(ctx, ch.ID, nil)
	if se := payErr(t, "capture it again", err, 400); se.Code != stripe.ErrorCodeChargeAlreadyCaptured {
		t.Errorf("second capture: want charge_already_captured, have %s %q", se.Code, se.Msg)
	}

	// stripe-go has no call for the Charges API's deprecated refund.
	for _, c := range []struct {
		form     string
		status   int
		refunded int64
	}{
		{"amount=500", 200, 1300},
		{"amount=800", 400, 1300}, // 700 left
		{"", 200, 2000},
	} {
		resp, err := (&http.Client{Transport: tr}).Post(srv.URL()+"/v1/charges/"+ch.ID+"/refund", "application/x-www-form-urlencoded", strings.NewReader(c.form))
		payOK(t, "refund the charge "+c.form, err)
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("POST /v1/charges/{id}/refund %s: want %d, have %s", c.form, c.status, resp.Status)
		}
		got, err := sc.V1Charges.Retrieve(ctx, ch.ID, nil)
		payOK(t, "retrieve the charge refunded", err)
		if got.AmountRefunded != c.refunded || got.Refunded != (c.refunded == 2000) {
			t.Errorf("after refund %q: want amount_refunded %d, have %d (refunded %v)", c.form, c.refunded, got.AmountRefunded, got.Refunded)
		}
	}

	pi = hold("hold 2000 again")
	pi, err = sc.V1PaymentIntents.Cancel(ctx, pi.ID, &stripe.PaymentIntentCancelParams{CancellationReason: stripe.String("requested_by_customer")})
	payOK(t, "cancel the hold", err)
	if pi.Status != stripe.PaymentIntentStatusCanceled || pi.AmountCapturable != 0 || pi.CancellationReason != "requested_by_customer" || pi.CanceledAt == 0 {
		t.Errorf("canceled: want canceled, nothing capturable, the reason and time; have %s %d %q %d", pi.Status, pi.AmountCapturable, pi.CancellationReason, pi.CanceledAt)
	}
	ch, err = sc.V1Charges.Retrieve(ctx, pi.LatestCharge.ID, nil)
	payOK(t, "retrieve the released charge", err)
	if !ch.Refunded || ch.AmountRefunded != 2000 || ch.Captured {
		t.Errorf("released charge: want refunded 2000, uncaptured; have %v %d %v", ch.Refunded, ch.AmountRefunded, ch.Captured)
	}
	_, err = sc.V1PaymentIntents.Cancel(ctx, pi.ID, nil)
	payErr(t, "cancel a canceled intent", err, 400)
}

// TestStripeThreeDSecure confirms with 3-D Secure test cards: the intent
// requires_action with next_action and no charge; confirming again (the
// customer authenticated) succeeds with a charge, or declines for a card
// that declines after authentication. Off session, the card declines
// with authentication_required.
func TestStripeThreeDSecure(t *testing.T) {
	srv := startTwin(t, "stripe", "--unknown-entity", "not_found", "--clock", "deterministic", "--clock-epoch", "1700000000")
	ctx := context.Background()
	for _, c := range []struct {
		pm, returnURL, next string
		declined            string // decline code after authentication; "" succeeds
	}{
		{"pm_card_threeDSecure2Required", "", "use_stripe_sdk", ""},
		{"pm_card_authenticationRequired", "https://example.com/back", "redirect_to_url", ""},
		{"pm_card_threeDSecureRequiredChargeDeclined", "", "use_stripe_sdk", "generic_decline"},
	} {
		t.Run(c.pm, func(t *testing.T) {
			sc, _ := payClient(t, srv.URL(), "3ds-"+c.pm)
			pi, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(3000), Currency: stripe.String("usd")})
			payOK(t, "create", err)
			params := &stripe.PaymentIntentConfirmParams{PaymentMethod: stripe.String(c.pm)}
			if c.returnURL != "" {
				params.ReturnURL = stripe.String(c.returnURL)
			}
			pi, err = sc.V1PaymentIntents.Confirm(ctx, pi.ID, params)
			payOK(t, "confirm", err)
			if pi.Status != stripe.PaymentIntentStatusRequiresAction || pi.NextAction == nil || string(pi.NextAction.Type) != c.next || pi.LatestCharge != nil {
				t.Fatalf("confirm: want requires_action with next_action %s and no charge, have %s %+v %v", c.next, pi.Status, pi.NextAction, pi.LatestCharge)
			}
			if c.returnURL != "" && (pi.NextAction.RedirectToURL == nil || pi.NextAction.RedirectToURL.ReturnURL != c.returnURL) {
				t.Errorf("redirect_to_url: want return_url %s, have %+v", c.returnURL, pi.NextAction.RedirectToURL)
			}
			done, err := sc.V1PaymentIntents.Confirm(ctx, pi.ID, nil)
			if c.declined != "" {
				se := payErr(t, "confirm after authentication", err, 402)
				if string(se.DeclineCode) != c.declined || se.PaymentIntent == nil || se.PaymentIntent.LatestCharge == nil {
					t.Errorf("declined after authentication: want %s with the failed charge, have %s %+v", c.declined, se.DeclineCode, se.PaymentIntent)
				}
				return
			}
			payOK(t, "confirm after authentication", err)
			if done.Status != stripe.PaymentIntentStatusSucceeded || done.NextAction != nil || done.LatestCharge == nil || done.AmountReceived != 3000 {
				t.Errorf("authenticated: want succeeded, no next_action, a charge, 3000 received; have %s %+v %v %d", done.Status, done.NextAction, done.LatestCharge, done.AmountReceived)
			}
		})
	}
	t.Run("off_session", func(t *testing.T) {
		sc, _ := payClient(t, srv.URL(), "3ds-off-session")
		_, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{
			Amount: stripe.Int64(3000), Currency: stripe.String("usd"), PaymentMethod: stripe.String("pm_card_authenticationRequired"),
			Confirm: stripe.Bool(true), OffSession: stripe.Bool(true),
		})
		se := payErr(t, "confirm off session on create", err, 402)
		if se.Code != "authentication_required" || se.PaymentIntent == nil || se.PaymentIntent.Status != stripe.PaymentIntentStatusRequiresPaymentMethod {
			t.Fatalf("off session: want authentication_required with the intent in requires_payment_method, have %s %+v", se.Code, se.PaymentIntent)
		}
		pi, err := sc.V1PaymentIntents.Retrieve(ctx, se.PaymentIntent.ID, nil)
		payOK(t, "retrieve the intent the create kept", err)
		if pi.LastPaymentError == nil || pi.LastPaymentError.Code != "authentication_required" {
			t.Errorf("kept intent: want last_payment_error authentication_required, have %+v", pi.LastPaymentError)
		}
	})
}

// TestStripeDeclinedCharge confirms with a card that declines: Stripe's
// 402 names the failed charge, which the intent's latest_charge and
// last_payment_error name too.
func TestStripeDeclinedCharge(t *testing.T) {
	srv := startTwin(t, "stripe", "--unknown-entity", "not_found", "--clock", "deterministic", "--clock-epoch", "1700000000")
	sc, _ := payClient(t, srv.URL(), "declined")
	ctx := context.Background()
	pi, err := sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(2000), Currency: stripe.String("usd")})
	payOK(t, "create", err)
	_, err = sc.V1PaymentIntents.Confirm(ctx, pi.ID, &stripe.PaymentIntentConfirmParams{PaymentMethod: stripe.String("pm_card_visa_chargeDeclinedInsufficientFunds")})
	se := payErr(t, "confirm with a declining card", err, 402)
	if se.Type != stripe.ErrorTypeCard || se.Code != stripe.ErrorCodeCardDeclined || se.DeclineCode != "insufficient_funds" || se.ChargeID == "" {
		t.Fatalf("decline: want card_error card_declined/insufficient_funds naming its charge, have %s %s/%s %q", se.Type, se.Code, se.DeclineCode, se.ChargeID)
	}
	ch, err := sc.V1Charges.Retrieve(ctx, se.ChargeID, nil)
	payOK(t, "retrieve the failed charge", err)
	if ch.Status != stripe.ChargeStatusFailed || ch.Paid || ch.Captured || ch.FailureCode != "card_declined" || ch.Outcome == nil || ch.Outcome.Type != "issuer_declined" || ch.BalanceTransaction != nil {
		t.Errorf("failed charge: want failed, unpaid, uncaptured, card_declined, issuer_declined, no balance transaction; have %s %v %v %s %+v %v", ch.Status, ch.Paid, ch.Captured, ch.FailureCode, ch.Outcome, ch.BalanceTransaction)
	}
	pi, err = sc.V1PaymentIntents.Retrieve(ctx, pi.ID, nil)
	payOK(t, "retrieve the intent", err)
	if pi.Status != stripe.PaymentIntentStatusRequiresPaymentMethod || pi.LatestCharge == nil || pi.LatestCharge.ID != ch.ID ||
		pi.LastPaymentError == nil || pi.LastPaymentError.ChargeID != ch.ID || pi.AmountReceived != 0 {
		t.Errorf("declined intent: want requires_payment_method, latest_charge and last_payment_error.charge %s, nothing received; have %s %v %+v %d", ch.ID, pi.Status, pi.LatestCharge, pi.LastPaymentError, pi.AmountReceived)
	}
	_, err = sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{PaymentIntent: stripe.String(pi.ID)})
	payErr(t, "refund a declined intent", err, 400)
}

// TestStripeConfirmReportsIgnored: a confirm the stripe dialect answers
// itself still names, in X-Wraith-Ignored-Params, a parameter it does not
// act on (shipping), and none of those it does.
func TestStripeConfirmReportsIgnored(t *testing.T) {
	srv := startTwin(t, "stripe", "--unknown-entity", "not_found", "--clock", "deterministic", "--clock-epoch", "1700000000")
	post := func(path, form string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, srv.URL()+path, strings.NewReader(form))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Wraith-Session", "ignored")
		resp, err := http.DefaultClient.Do(req)
		payOK(t, "POST "+path, err)
		resp.Body.Close()
		return resp
	}
	resp := post("/v1/payment_intents", "amount=1000&currency=usd")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("create: want 200, have %s", resp.Status)
	}
	// The session's first intent: its id is the session generator's first.
	sc, _ := payClient(t, srv.URL(), "ignored")
	var id string
	for pi, err := range sc.V1PaymentIntents.List(context.Background(), nil) {
		payOK(t, "list", err)
		id = pi.ID
	}
	resp = post("/v1/payment_intents/"+id+"/confirm", "payment_method=pm_card_visa&return_url=https://example.com&shipping[name]=Ada&shipping[address][line1]=1+Main+St")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("confirm: want 200, have %s", resp.Status)
	}
	if have := resp.Header.Get("X-Wraith-Ignored-Params"); have != "shipping" {
		t.Errorf("X-Wraith-Ignored-Params: want shipping, have %q", have)
	}
}
