package stripe

import (
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/object"
)

// TestNextPeriod holds the period arithmetic to Stripe's calendar: a
// month from the 31st ends on the last day of a shorter month and comes
// back to the 31st, a year is twelve months, days and weeks are fixed.
func TestNextPeriod(t *testing.T) {
	at := func(s string) int64 {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm.Unix()
	}
	price := func(interval string, count int) *object.Object {
		r := object.New(2)
		r.Set("interval", interval)
		r.Set("interval_count", num(int64(count)))
		p := object.New(1)
		p.Set("recurring", r)
		return p
	}
	tests := []struct {
		name         string
		from, anchor string
		price        *object.Object
		want         string
	}{
		{"month", "2023-11-14T22:13:20Z", "2023-11-14T22:13:20Z", price("month", 1), "2023-12-14T22:13:20Z"},
		{"month from the 31st into February", "2024-01-31T10:00:00Z", "2024-01-31T10:00:00Z", price("month", 1), "2024-02-29T10:00:00Z"},
		{"back to the 31st after February", "2024-02-29T10:00:00Z", "2024-01-31T10:00:00Z", price("month", 1), "2024-03-31T10:00:00Z"},
		{"three months across a year", "2023-11-30T00:00:00Z", "2023-11-30T00:00:00Z", price("month", 3), "2024-02-29T00:00:00Z"},
		{"year from a leap day", "2024-02-29T08:00:00Z", "2024-02-29T08:00:00Z", price("year", 1), "2025-02-28T08:00:00Z"},
		{"week", "2024-03-01T00:00:00Z", "2024-03-01T00:00:00Z", price("week", 2), "2024-03-15T00:00:00Z"},
		{"day", "2024-03-01T00:00:00Z", "2024-03-01T00:00:00Z", price("day", 1), "2024-03-02T00:00:00Z"},
		{"no recurring price: a month", "2024-03-01T00:00:00Z", "2024-03-01T00:00:00Z", nil, "2024-04-01T00:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			have := next(at(tt.from), at(tt.anchor), tt.price)
			if want := at(tt.want); have != want {
				t.Errorf("want %s, have %s", tt.want, time.Unix(have, 0).UTC().Format(time.RFC3339))
			}
		})
	}
}

// TestInvoicePrefix: a customer's prefix is upper-case letters and digits,
// 3 to 12 of them, as Stripe's invoice_prefix must be.
func TestInvoicePrefix(t *testing.T) {
	for _, id := range []string{"cus_NeZw0zvTyquTfF", "cus_abc", "cus_0123456789abcdefghij"} {
		p := invoicePrefix(id)
		if len(p) < 3 || len(p) > 12 {
			t.Errorf("%s: want 3 to 12 characters, have %q", id, p)
		}
		for _, r := range p {
			if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				t.Errorf("%s: want upper-case letters and digits, have %q", id, p)
			}
		}
	}
}
