package stripe

import (
	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// Balance transactions: what a charge and a refund move on the
// account's balance. A charge's fee is Stripe's standard card pricing
// in the United States, 2.9% + 30 of the currency's smallest unit, for
// every currency alike; a charge's funds are pending for two days (the
// standard payout delay), a refund's leave at once.

// stripeFee is the fee on a charge of amount.
func stripeFee(amount int64) int64 {
	if amount <= 0 {
		return 0
	}
	// 2.9% rounded half up, in two parts so that no amount overflows.
	return amount/1000*29 + (amount%1000*29+500)/1000 + 30
}

// chargeTransaction keeps the balance transaction of amount captured on
// ch and returns its id; nil when the twin declares none.
func chargeTransaction(w dialect.World, ch *object.Object, amount int64) any {
	fee := stripeFee(amount)
	day := w.Now() - w.Now()%86400
	return transaction(w, ch, "charge", amount, fee, day+2*86400, "pending")
}

// refundTransaction keeps the balance transaction of refund re of amount
// and returns its id; nil when the twin declares none.
func refundTransaction(w dialect.World, re *object.Object, amount int64) any {
	return transaction(w, re, "refund", -amount, 0, w.Now(), "available")
}

func transaction(w dialect.World, source *object.Object, typ string, amount, fee, availableOn int64, status string) any {
	tx := fresh(w, "balance_transaction")
	if tx == nil {
		return nil
	}
	cur := source.String("currency")
	tx.Set("amount", num(amount))
	tx.Set("available_on", num(availableOn))
	tx.Set("balance_type", "payments")
	tx.Set("currency", cur)
	if v, ok := source.Get("description"); ok {
		if s, ok := v.(string); ok && s != "" {
			tx.Set("description", s)
		}
	}
	tx.Set("fee", num(fee))
	details := []any{}
	if fee > 0 {
		f := object.New(5)
		f.Set("amount", num(fee))
		f.Set("application", nil)
		f.Set("currency", cur)
		f.Set("description", "Stripe processing fees")
		f.Set("type", "stripe_fee")
		details = append(details, f)
	}
	tx.Set("fee_details", details)
	tx.Set("net", num(amount-fee))
	tx.Set("reporting_category", typ)
	tx.Set("source", source.String("id"))
	tx.Set("status", status)
	tx.Set("type", typ)
	keep(w, "balance_transaction", tx)
	return tx.String("id")
}
