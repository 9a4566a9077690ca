package scrub

import (
	"os"
	"testing"
)

func BenchmarkIsPII(b *testing.B) {
	s := New([]byte(testKey), Policy{})
	for _, bc := range []struct{ name, field string }{
		{"hit", "email"},
		{"hit suffix", "billing_email"},
		{"hit upper", "Customer_Name"},
		{"miss", "created"},
		{"miss long", "next_invoice_sequence"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s.IsPII(bc.field)
			}
		})
	}
}

func BenchmarkToken(b *testing.B) {
	s := New([]byte(testKey), Policy{})
	for _, bc := range []struct{ name, value string }{
		{"email", "jenny.rosen@example.com"},
		{"phone", "+1 (415) 555-0199"},
		{"generic", "Jenny Rosen"},
		{"already a token", "tok_0123456789ab"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s.Token("", bc.value)
			}
		})
	}
}

func BenchmarkJSON(b *testing.B) {
	body, err := os.ReadFile("testdata/customer.json")
	if err != nil {
		b.Fatal(err)
	}
	s := New([]byte(testKey), Policy{})
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.JSON(body); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkQuery(b *testing.B) {
	s := New([]byte(testKey), Policy{})
	for _, bc := range []struct{ name, query string }{
		{"untouched", "limit=3&starting_after=cus_1&expand%5B%5D=data.customer"},
		{"scrubbed", "email=jenny%40example.com&limit=3&api_key=sk_test_1"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s.Query(bc.query)
			}
		})
	}
}
