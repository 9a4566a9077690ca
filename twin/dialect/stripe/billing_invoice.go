package stripe

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// Invoices: invoice items become lines of a draft, the totals are the
// lines' sum, finalizing numbers the invoice, paying it collects the
// amount due from the customer's payment method (collect, payments.go).

// invoiceItemCreated prices the item (pricing[price], unit_amount_decimal
// times quantity, else amount) and, when it names a draft invoice, adds
// it to the invoice's lines.
func invoiceItemCreated(c *dialect.Call, _ int, body []byte) []byte {
	w := c.World
	ii := decode(body)
	if ii == nil {
		return nil
	}
	qty := integer(ii, "quantity")
	if qty <= 0 {
		qty = 1
	}
	ii.Set("quantity", num(qty))
	ii.Set("quantity_decimal", strconv.FormatInt(qty, 10))
	unit, priced := int64(0), false
	if pid := text(paramMap(c, "pricing"), "price"); pid != "" {
		if pr := load(w, "price", pid); pr != nil {
			unit, priced = integer(pr, "unit_amount"), true
			ii.Set("pricing", pricing(pr))
			if ii.String("currency") == "" {
				ii.Set("currency", pr.String("currency"))
			}
		}
	} else if d := param(c, "unit_amount_decimal"); d != "" {
		if n, err := strconv.ParseInt(d, 10, 64); err == nil {
			unit, priced = n, true
		}
	}
	amount := integer(ii, "amount")
	if priced {
		amount = unit * qty
	}
	ii.Set("amount", num(amount))
	ii.Set("net_amount", num(amount))
	ii.Set("date", num(c.Now))
	if p := child(ii, "period"); p != nil && integer(p, "start") == 0 && integer(p, "end") == 0 {
		p.Set("end", num(c.Now))
		p.Set("start", num(c.Now))
	}
	cus := load(w, "customer", ii.String("customer"))
	if ii.String("currency") == "" {
		ii.Set("currency", currencyOf(cus))
	}
	if cus != nil {
		ii.Set("test_clock", idOrNil(cus, "test_clock"))
	}
	body = keep(w, "invoiceitem", ii)
	if inv := load(w, "invoice", ii.String("invoice")); inv != nil && inv.String("status") == "draft" {
		addLine(inv, itemLine(w, ii, inv.String("id")))
		totals(inv)
		keep(w, "invoice", inv)
	}
	emit(w, c, "invoiceitem.created", ii, nil)
	return body
}

// invoiceCreated completes a new invoice: the customer's details, a due
// date from days_until_due for an invoice sent to the customer, the
// customer's pending items when pending_invoice_items_behavior=include,
// and the totals.
func invoiceCreated(c *dialect.Call, _ int, body []byte) []byte {
	w := c.World
	inv := decode(body)
	if inv == nil {
		return nil
	}
	cus := load(w, "customer", idOf(mustGet(inv, "customer")))
	billTo(inv, cus)
	inv.Set("period_end", num(c.Now))
	inv.Set("period_start", num(c.Now))
	inv.Set("billing_reason", "manual")
	if d, err := strconv.ParseInt(param(c, "days_until_due"), 10, 64); err == nil && inv.String("collection_method") == "send_invoice" {
		inv.Set("due_date", num(c.Now+d*day))
	}
	if v, _ := inv.Get("auto_advance"); v == true {
		inv.Set("automatically_finalizes_at", num(c.Now+hour))
	}
	if param(c, "pending_invoice_items_behavior") == "include" && cus != nil {
		pullPending(w, inv, cus.String("id"))
	}
	totals(inv)
	body = keep(w, "invoice", inv)
	emit(w, c, "invoice.created", inv, nil)
	return body
}

// pullPending moves the customer's pending invoice items (those on no
// invoice yet), oldest first, onto inv.
func pullPending(w dialect.World, inv *object.Object, customer string) {
	for _, ii := range pendingItems(w, customer) {
		ii.Set("invoice", inv.String("id"))
		keep(w, "invoiceitem", ii)
		addLine(inv, itemLine(w, ii, inv.String("id")))
	}
}

// billTo copies onto inv what Stripe copies from its customer.
func billTo(inv, cus *object.Object) {
	if inv.String("currency") == "" {
		inv.Set("currency", currencyOf(cus))
	}
	if cus == nil {
		return
	}
	inv.Set("customer_address", mustGet(cus, "address"))
	inv.Set("customer_email", mustGet(cus, "email"))
	inv.Set("customer_name", mustGet(cus, "name"))
	inv.Set("customer_phone", mustGet(cus, "phone"))
	inv.Set("customer_shipping", mustGet(cus, "shipping"))
	inv.Set("customer_tax_exempt", mustGet(cus, "tax_exempt"))
	inv.Set("customer_tax_ids", []any{})
	inv.Set("test_clock", idOrNil(cus, "test_clock"))
}

// itemLine is the invoice line of invoice item ii.
func itemLine(w dialect.World, ii *object.Object, invoice string) *object.Object {
	parent := object.New(4)
	parent.Set("invoice_item", ii.String("id"))
	parent.Set("proration", mustGet(ii, "proration") == true)
	parent.Set("proration_details", nil)
	parent.Set("subscription", nil)
	return line(w, lineOf{
		amount: integer(ii, "amount"), currency: ii.String("currency"), description: mustGet(ii, "description"),
		invoice: invoice, metadata: mustGet(ii, "metadata"), period: mustGet(ii, "period"), pricing: mustGet(ii, "pricing"),
		quantity: integer(ii, "quantity"), parentKind: "invoice_item_details", parent: parent,
	})
}

// lineOf is what a line is made of.
type lineOf struct {
	amount, quantity  int64
	currency, invoice string
	description       any
	metadata, pricing any
	period            any
	subscription      any
	parentKind        string // invoice_item_details or subscription_item_details
	parent            *object.Object
}

// line is an invoice's line_item, fields in Stripe's order.
func line(w dialect.World, l lineOf) *object.Object {
	o := object.New(20)
	o.Set("amount", num(l.amount))
	o.Set("currency", l.currency)
	o.Set("description", l.description)
	o.Set("discount_amounts", []any{})
	o.Set("discountable", true)
	o.Set("discounts", []any{})
	o.Set("id", w.NewID("il_"))
	o.Set("invoice", l.invoice)
	o.Set("livemode", false)
	md := object.New(0)
	if m, ok := l.metadata.(*object.Object); ok {
		md = m.Clone()
	}
	o.Set("metadata", md)
	o.Set("object", "line_item")
	parent := object.New(3)
	for _, k := range []string{"invoice_item_details", "subscription_item_details"} {
		if k == l.parentKind {
			parent.Set(k, l.parent)
		} else {
			parent.Set(k, nil)
		}
	}
	parent.Set("type", l.parentKind)
	o.Set("parent", parent)
	o.Set("period", object.CloneValue(l.period))
	o.Set("pretax_credit_amounts", []any{})
	o.Set("pricing", object.CloneValue(l.pricing))
	o.Set("quantity", num(l.quantity))
	o.Set("quantity_decimal", strconv.FormatInt(l.quantity, 10))
	o.Set("subscription", l.subscription)
	o.Set("subtotal", num(l.amount))
	o.Set("taxes", []any{})
	return o
}

// pricing is a line's or an item's pricing by price pr.
func pricing(pr *object.Object) *object.Object {
	details := object.New(2)
	details.Set("price", pr.String("id"))
	details.Set("product", idOf(mustGet(pr, "product")))
	p := object.New(3)
	p.Set("price_details", details)
	p.Set("type", "price_details")
	p.Set("unit_amount_decimal", mustGet(pr, "unit_amount_decimal"))
	return p
}

// addLine appends l to inv's lines.
func addLine(inv, l *object.Object) {
	lines := child(inv, "lines")
	if lines == nil {
		return
	}
	data := append(items(inv, "lines"), l)
	lines.Set("data", data)
	lines.Set("url", "/v1/invoices/"+inv.String("id")+"/lines")
}

// totals are the sums of inv's lines (no discounts or taxes are
// modelled: subtotal and total agree), and what is left to pay.
func totals(inv *object.Object) {
	var sum int64
	for _, v := range items(inv, "lines") {
		if l, ok := v.(*object.Object); ok {
			sum += integer(l, "amount")
		}
	}
	inv.Set("subtotal", num(sum))
	inv.Set("subtotal_excluding_tax", num(sum))
	inv.Set("total", num(sum))
	inv.Set("total_excluding_tax", num(sum))
	inv.Set("total_discount_amounts", []any{})
	inv.Set("total_pretax_credit_amounts", []any{})
	inv.Set("total_taxes", []any{})
	inv.Set("amount_due", num(sum))
	inv.Set("amount_remaining", num(sum-integer(inv, "amount_paid")))
	if inv.String("status") == "draft" {
		transitions(inv, "", 0)
	}
}

// transitions sets inv's status_transitions[field] to at, the others as
// they were (null when never set).
func transitions(inv *object.Object, field string, at int64) {
	st := child(inv, "status_transitions")
	if st == nil {
		st = object.New(4)
	}
	full := object.New(4)
	for _, k := range []string{"finalized_at", "marked_uncollectible_at", "paid_at", "voided_at"} {
		v, ok := st.Get(k)
		if !ok {
			v = nil
		}
		if k == field {
			v = num(at)
		}
		full.Set(k, v)
	}
	inv.Set("status_transitions", full)
}

// invoiceFinalized numbers the invoice the engine made open.
func invoiceFinalized(c *dialect.Call, _ int, body []byte) []byte {
	inv := decode(body)
	if inv == nil {
		return nil
	}
	finalize(c.World, c, inv, c.Now)
	return c.World.Get("invoice", inv.String("id"))
}

// finalize makes inv open at at, numbered from its customer's prefix and
// sequence, and records invoice.finalized. An invoice finalized by
// request stays open even with nothing due, as Stripe's reference
// answers; automatic collection (collectAuto) pays that one at once.
func finalize(w dialect.World, c *dialect.Call, inv *object.Object, at int64) {
	inv.Set("status", "open")
	if cus := load(w, "customer", idOf(mustGet(inv, "customer"))); cus != nil && inv.String("number") == "" {
		prefix := cus.String("invoice_prefix")
		if prefix == "" {
			prefix = invoicePrefix(cus.String("id"))
			cus.Set("invoice_prefix", prefix)
		}
		seq := integer(cus, "next_invoice_sequence")
		if seq < 1 {
			seq = 1
		}
		inv.Set("number", fmt.Sprintf("%s-%04d", prefix, seq))
		cus.Set("next_invoice_sequence", num(seq+1))
		keep(w, "customer", cus)
	}
	inv.Set("automatically_finalizes_at", nil)
	inv.Set("effective_at", num(at))
	transitions(inv, "finalized_at", at)
	keep(w, "invoice", inv)
	emit(w, c, "invoice.finalized", inv, nil)
}

// collectAuto is automatic collection of a finalized invoice: nothing due
// is paid at once (a trial's invoice), an invoice sent to the customer
// waits for its payment, any other is charged to its payer. It returns the
// decline when the charge failed or there was nothing to charge.
func collectAuto(w dialect.World, c *dialect.Call, inv *object.Object, at int64) *decline {
	switch {
	case inv.String("status") != "open":
		return nil
	case integer(inv, "amount_remaining") == 0:
		markPaid(w, c, inv, at, false)
		return nil
	case inv.String("collection_method") == "send_invoice":
		return nil
	}
	if pm := payer(w, inv); pm != "" {
		return settle(w, c, inv, at, pm, false)
	}
	// No payment method to charge: the attempt fails, as Stripe's does.
	inv.Set("attempt_count", num(integer(inv, "attempt_count")+1))
	inv.Set("attempted", true)
	keep(w, "invoice", inv)
	emit(w, c, "invoice.payment_failed", inv, nil)
	return &decline{}
}

// payInvoice answers POST /v1/invoices/{id}/pay of an open or
// uncollectible invoice (docs.stripe.com/invoicing/integration/
// workflow-transitions: a draft is finalized first): paid
// out of band without a charge, else the amount due collected from the
// payment method the request names, the invoice's, its subscription's or
// its customer's default. A decline answers Stripe's 402 card_error and
// leaves the invoice open with the attempt counted. Other statuses go to
// the engine, whose guard refuses them.
func payInvoice(c *dialect.Call) (dialect.Answer, bool) {
	w := c.World
	inv := decode(c.Entity("invoice"))
	if inv == nil {
		return dialect.Answer{}, false
	}
	switch inv.String("status") {
	case "open", "uncollectible": // a written-off invoice can still be paid
	default:
		return dialect.Answer{}, false
	}
	oob := param(c, "paid_out_of_band") == "true"
	pm := param(c, "payment_method")
	if !oob && integer(inv, "amount_remaining") > 0 {
		if pm == "" {
			pm = payer(w, inv)
		}
		if pm == "" {
			return refusal(http.StatusBadRequest, "invalid_request_error", "", "",
				"This customer has no attached payment source or default payment method. Please consider adding a default payment method."), true
		}
	}
	if d := settle(w, c, inv, c.Now, pm, oob); d != nil {
		return declined(d), true
	}
	return dialect.Answer{Status: http.StatusOK, Body: w.Get("invoice", inv.String("id"))}, true
}

// payer is the payment method that pays inv by default: the invoice's,
// its subscription's, else its customer's invoice default.
func payer(w dialect.World, inv *object.Object) string {
	if pm := idOf(mustGet(inv, "default_payment_method")); pm != "" {
		return pm
	}
	if sub := load(w, "subscription", invoiceSubscription(inv)); sub != nil {
		if pm := idOf(mustGet(sub, "default_payment_method")); pm != "" {
			return pm
		}
	}
	if cus := load(w, "customer", idOf(mustGet(inv, "customer"))); cus != nil {
		return idOf(mustGet(child(cus, "invoice_settings"), "default_payment_method"))
	}
	return ""
}

// invoiceSubscription is the id of the subscription that made inv, "" for
// none.
func invoiceSubscription(inv *object.Object) string {
	return idOf(mustGet(child(child(inv, "parent"), "subscription_details"), "subscription"))
}

// settle collects what is left to pay on inv with payment method pm (or
// marks it paid out of band): nil when the invoice is paid, else the
// decline, the failed attempt counted and invoice.payment_failed recorded.
func settle(w dialect.World, c *dialect.Call, inv *object.Object, at int64, pm string, outOfBand bool) *decline {
	due := integer(inv, "amount_remaining")
	if due > 0 && !outOfBand {
		pi, d := collect(w, c, payment{Amount: due, Currency: inv.String("currency"), Customer: idOf(mustGet(inv, "customer")), PaymentMethod: pm, Description: invoiceDescription(inv)})
		inv.Set("attempt_count", num(integer(inv, "attempt_count")+1))
		inv.Set("attempted", true)
		if pi != nil {
			addPayment(w, inv, pi, at, d == nil)
		}
		if d != nil {
			inv.Set("next_payment_attempt", nil)
			keep(w, "invoice", inv)
			emit(w, c, "invoice.payment_failed", inv, nil)
			return d
		}
	}
	if outOfBand {
		inv.Set("amount_paid_off_stripe", num(integer(inv, "amount_paid_off_stripe")+due))
	}
	markPaid(w, c, inv, at, !outOfBand && due > 0)
	return nil
}

// invoiceDescription is the description Stripe gives an invoice's
// payment intent.
func invoiceDescription(inv *object.Object) string {
	switch inv.String("billing_reason") {
	case "subscription_create":
		return "Subscription creation"
	case "subscription_cycle":
		return "Subscription update"
	}
	return "Payment for Invoice"
}

// addPayment lists payment intent pi among inv's payments, as an
// invoice_payment where the twin declares them.
func addPayment(w dialect.World, inv, pi *object.Object, at int64, paid bool) {
	ip := fresh(w, "invoice_payment")
	if ip == nil {
		return
	}
	ip.Set("amount_paid", nil)
	if paid {
		ip.Set("amount_paid", num(integer(pi, "amount")))
	}
	ip.Set("amount_requested", num(integer(pi, "amount")))
	ip.Set("created", num(at))
	ip.Set("currency", pi.String("currency"))
	ip.Set("invoice", inv.String("id"))
	ip.Set("is_default", true)
	p := object.New(2)
	p.Set("payment_intent", pi.String("id"))
	p.Set("type", "payment_intent")
	ip.Set("payment", p)
	st := object.New(2)
	st.Set("canceled_at", nil)
	if paid {
		ip.Set("status", "paid")
		st.Set("paid_at", num(at))
	} else {
		ip.Set("status", "open")
		st.Set("paid_at", nil)
	}
	ip.Set("status_transitions", st)
	if keep(w, "invoice_payment", ip) == nil {
		return
	}
	if l := child(inv, "payments"); l != nil {
		l.Set("data", append(items(inv, "payments"), ip))
	}
}

// markPaid makes inv paid at at and records invoice.paid (and
// invoice.payment_succeeded when a payment was taken); the subscription
// whose latest invoice it is becomes active again.
func markPaid(w dialect.World, c *dialect.Call, inv *object.Object, at int64, charged bool) {
	inv.Set("status", "paid")
	inv.Set("amount_paid", num(integer(inv, "amount_due")))
	inv.Set("amount_remaining", num(0))
	inv.Set("auto_advance", false)
	inv.Set("next_payment_attempt", nil)
	transitions(inv, "paid_at", at)
	keep(w, "invoice", inv)
	emit(w, c, "invoice.paid", inv, nil)
	if charged {
		emit(w, c, "invoice.payment_succeeded", inv, nil)
	}
	sub := load(w, "subscription", invoiceSubscription(inv))
	if sub == nil || idOf(mustGet(sub, "latest_invoice")) != inv.String("id") {
		return
	}
	switch prev := sub.String("status"); prev {
	case "past_due", "incomplete", "unpaid":
		sub.Set("status", "active")
		keep(w, "subscription", sub)
		emit(w, c, "customer.subscription.updated", sub, previous("status", prev))
	}
}

// voidInvoice answers POST /v1/invoices/{id}/void: an open or
// uncollectible invoice is voided, stamped and invoice.voided recorded;
// any other is refused as Stripe refuses it (a draft is deleted instead).
func voidInvoice(c *dialect.Call) (dialect.Answer, bool) {
	inv := decode(c.Entity("invoice"))
	if inv == nil {
		return dialect.Answer{}, false // the engine's 404
	}
	switch inv.String("status") {
	case "open", "uncollectible":
	default:
		return refusal(http.StatusBadRequest, "invalid_request_error", "", "", "You can only pass in open invoices. This invoice isn't open."), true
	}
	inv.Set("status", "void")
	return dialect.Answer{Status: http.StatusOK, Body: invoiceClosed(c, inv.AppendJSON(nil), "voided_at", "invoice.voided")}, true
}

// invoiceUncollectible stamps the write-off and records
// invoice.marked_uncollectible.
func invoiceUncollectible(c *dialect.Call, _ int, body []byte) []byte {
	return invoiceClosed(c, body, "marked_uncollectible_at", "invoice.marked_uncollectible")
}

func invoiceClosed(c *dialect.Call, body []byte, field, event string) []byte {
	inv := decode(body)
	if inv == nil {
		return nil
	}
	transitions(inv, field, c.Now)
	inv.Set("next_payment_attempt", nil)
	inv.Set("auto_advance", false)
	body = keep(c.World, "invoice", inv)
	emit(c.World, c, event, inv, nil)
	return body
}

// refusal is a Stripe error answer.
func refusal(status int, typ, code, param, message string) dialect.Answer {
	e := object.New(4)
	if code != "" {
		e.Set("code", code)
	}
	e.Set("message", message)
	if param != "" {
		e.Set("param", param)
	}
	e.Set("type", typ)
	o := object.New(1)
	o.Set("error", e)
	return dialect.Answer{Status: status, Body: o.AppendJSON(nil)}
}

// declined is Stripe's 402 answer to a payment that was declined.
func declined(d *decline) dialect.Answer {
	e := object.New(5)
	code := d.Code
	if code == "" {
		code = "card_declined"
	}
	e.Set("code", code)
	if d.DeclineCode != "" {
		e.Set("decline_code", d.DeclineCode)
	}
	e.Set("doc_url", "https://stripe.com/docs/error-codes/"+dashed(code))
	e.Set("message", d.Message)
	e.Set("type", "card_error")
	o := object.New(1)
	o.Set("error", e)
	return dialect.Answer{Status: http.StatusPaymentRequired, Body: o.AppendJSON(nil)}
}

// dashed is an error code as its doc_url spells it.
func dashed(code string) string {
	b := []byte(code)
	for i, c := range b {
		if c == '_' {
			b[i] = '-'
		}
	}
	return string(b)
}

// mustGet is o's field k, nil when o or the field is none.
func mustGet(o *object.Object, k string) any {
	if o == nil {
		return nil
	}
	v, _ := o.Get(k)
	return v
}

// idOrNil is the id at o's field k, or null.
func idOrNil(o *object.Object, k string) any {
	if id := idOf(mustGet(o, k)); id != "" {
		return id
	}
	return nil
}

// currencyOf is the customer's currency, usd when it has none yet.
func currencyOf(cus *object.Object) string {
	if cus != nil && cus.String("currency") != "" {
		return cus.String("currency")
	}
	return "usd"
}

// Whole days and hours, in seconds.
const (
	hour = 3600
	day  = 24 * hour
)
