package stripe

import (
	"math"
	"testing"
)

// TestStripeFee holds the fee to Stripe's 2.9% + 30, rounded half up,
// and to no overflow at the largest amounts.
func TestStripeFee(t *testing.T) {
	for _, c := range []struct{ amount, want int64 }{
		{0, 0},
		{1, 30},         // 0.029 rounds to 0
		{18, 31},        // 0.522 rounds up
		{2000, 88},      // 58 + 30
		{999999, 29030}, // 28999.971 rounds up
	} {
		if have := stripeFee(c.amount); have != c.want {
			t.Errorf("fee of %d: want %d, have %d", c.amount, c.want, have)
		}
	}
	// 2.9% of the largest amount is 267,477,789,068,788,498.4...
	if have := stripeFee(math.MaxInt64); have != 267477789068788498+30 {
		t.Errorf("fee of the largest amount: want 267477789068788528, have %d", have)
	}
}

// TestMoney writes amounts as Stripe's refund messages do.
func TestMoney(t *testing.T) {
	for _, c := range []struct {
		amount   int64
		currency string
		want     string
	}{
		{5000, "usd", "$50.00"},
		{0, "usd", "$0.00"},
		{1505, "eur", "€15.05"},
		{7, "gbp", "£0.07"},
		{500, "jpy", "¥500"},
		{1234, "chf", "CHF 12.34"},
		{-250, "usd", "-$2.50"},
	} {
		if have := money(c.amount, c.currency); have != c.want {
			t.Errorf("%d %s: want %q, have %q", c.amount, c.currency, c.want, have)
		}
	}
}
