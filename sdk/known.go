package main

// known are failures read one by one, whose class the failure's text
// cannot tell: each with the provider's documented behaviour that makes
// the twin right, or the work the twin needs. classify gives a test here
// its entry before any rule.
var known = map[string]verdict{
	"tests.api_resources.test_application_fee_refund.TestApplicationFeeRefund::test_is_saveable": {
		Class:  classUnclassified,
		Reason: "work the twin needs: an application fee's refunds are template routes, and the template of GET /v1/application_fees/fee_123/refunds/fr_123 keeps its sample's id and fee (fr_1Pgc..., fee_1Pgc...) instead of the path's, so the SDK saves the refund at the sample's URL; fee refunds need to be a stateful resource under their fee, or templates to take their ids from the path",
	},
	"tests.api_resources.checkout.test_session.TestSession::test_is_creatable": {
		Class:  classWraithRight,
		Reason: "the test sends ad-hoc line items (line_items[0][amount], [currency], [name], [description], [images]), which Stripe removed from Checkout Sessions in API version 2022-08-01 (price_data replaces them); the twin speaks API 2026-08-26.dahlia, and Stripe refuses unknown nested parameters, where stripe-mock checks only top-level names",
	},
	"tests.test_generated_examples.TestGeneratedExamples::test_subscriptionschedule_create": {
		Class:  classWraithRight,
		Reason: "phases[0][iterations] is in neither Stripe's public description nor its SDK description of API 2026-08-26.dahlia (phases take duration); Stripe refuses unknown nested parameters, stripe-mock checks only top-level names",
	},
	"tests.api_resources.test_topup.TestTopup::test_is_creatable": {
		Class:  classWraithRight,
		Reason: "statement_descriptor is \"statement descriptor\", 20 characters, and Stripe's description says at most 15 (maxLength 15): Stripe refuses it, stripe-mock checks no length",
	},
	"tests.api_resources.test_list_object.TestListObject::test_create_maintains_list_properties": {
		Class:  classWraithRight,
		Reason: "the test creates a refund through charge.refunds, which Stripe has not included in a charge since API version 2022-11-15 (expand[]=refunds includes it); the twin answers the 2026 API, where refunds is null",
	},
	"tests.api_resources.test_quote.TestQuote::test_can_pdf": {
		Class:  classWraithRight,
		Reason: "the test compares the PDF with stripe-mock's own placeholder bytes (\"Stripe binary response\"); the twin answers a PDF",
	},
	"tests.api_resources.test_quote.TestQuote::test_can_pdf_classmethod": {
		Class:  classWraithRight,
		Reason: "the test compares the PDF with stripe-mock's own placeholder bytes (\"Stripe binary response\"); the twin answers a PDF",
	},
	"quote.TestQuotePDF": {
		Class:  classWraithRight,
		Reason: "the test compares the PDF with stripe-mock's own placeholder bytes (\"Stripe binary response\"); the twin answers a PDF",
	},
	"tests.api_resources.test_account.TestAccount::test_can_call_persons": {
		Class:  classWraithRight,
		Reason: "the test reads the first person of account acct_123, which the session never created: Stripe lists an account's own persons, and the twin's session has none for it (stripe-mock lists its fixture for any account)",
	},
	"tests.api_resources.test_invoice.TestInvoice::test_can_iterate_lines": {
		Class:  classWraithRight,
		Reason: "the test reads the first line of invoice in_123, which the session never created or gave lines: Stripe lists an invoice's own lines (stripe-mock lists its fixture for any invoice)",
	},
	"tests.api_resources.test_invoice_line_item.TestInvoiceLineItem::test_deserialize": {
		Class:  classWraithRight,
		Reason: "the test reads the first line of an invoice the session never created or gave lines: Stripe lists an invoice's own lines (stripe-mock lists its fixture for any invoice)",
	},
}
