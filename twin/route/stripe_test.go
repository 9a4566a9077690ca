package route_test

import (
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/route"
)

// stripeRoutes is a Stripe-shaped route table, named as Stripe's OpenAPI
// names its parameters.
var stripeRoutes = []route.RouteInfo{
	{"GET", "/v1/balance"},
	{"GET", "/v1/customers"},
	{"POST", "/v1/customers"},
	{"GET", "/v1/customers/search"},
	{"GET", "/v1/customers/{customer}"},
	{"POST", "/v1/customers/{customer}"},
	{"DELETE", "/v1/customers/{customer}"},
	{"GET", "/v1/customers/{customer}/sources"},
	{"POST", "/v1/customers/{customer}/sources"},
	{"GET", "/v1/customers/{customer}/sources/{id}"},
	{"DELETE", "/v1/customers/{customer}/sources/{id}"},
	{"POST", "/v1/customers/{customer}/sources/{id}/verify"},
	{"GET", "/v1/customers/{customer}/balance_transactions/{transaction}"},
	{"GET", "/v1/payment_intents"},
	{"POST", "/v1/payment_intents"},
	{"GET", "/v1/payment_intents/search"},
	{"GET", "/v1/payment_intents/{intent}"},
	{"POST", "/v1/payment_intents/{intent}"},
	{"POST", "/v1/payment_intents/{intent}/confirm"},
	{"POST", "/v1/payment_intents/{intent}/capture"},
	{"POST", "/v1/payment_intents/{intent}/cancel"},
	{"GET", "/v1/charges"},
	{"POST", "/v1/charges"},
	{"GET", "/v1/charges/{charge}"},
	{"POST", "/v1/charges/{charge}/capture"},
	{"GET", "/v1/charges/{charge}/refunds/{refund}"},
	{"GET", "/v1/refunds"},
	{"POST", "/v1/refunds"},
	{"GET", "/v1/refunds/{refund}"},
	{"GET", "/v1/invoices"},
	{"GET", "/v1/invoices/upcoming"},
	{"GET", "/v1/invoices/{invoice}"},
	{"POST", "/v1/invoices/{invoice}/pay"},
	{"GET", "/v1/invoices/{invoice}/lines"},
	{"GET", "/v1/subscriptions/{subscription_exposed_id}"},
	{"DELETE", "/v1/subscriptions/{subscription_exposed_id}"},
	{"GET", "/v1/products/{id}"},
	{"GET", "/v1/prices/{price}"},
	{"POST", "/v1/checkout/sessions"},
	{"GET", "/v1/checkout/sessions/{session}/line_items"},
	{"POST", "/v1/payment_methods/{payment_method}/attach"},
	{"POST", "/v1/payment_methods/{payment_method}/detach"},
	{"GET", "/v1/events/{id}"},
	{"GET", "/"},
}

// newStripeRouter returns a router of stripeRoutes whose values are
// "METHOD TEMPLATE".
func newStripeRouter(tb testing.TB) *route.Router[string] {
	tb.Helper()
	r := route.New[string]()
	for _, rt := range stripeRoutes {
		if err := r.Add(rt.Method, rt.Template, rt.Method+" "+rt.Template); err != nil {
			tb.Fatal(err)
		}
	}
	return r
}

// expand fills template's parameters with values in order.
func expand(tb testing.TB, template string, values ...string) string {
	tb.Helper()
	segs := strings.Split(template, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") {
			if len(values) == 0 {
				tb.Fatalf("too few values for %q", template)
			}
			segs[i], values = values[0], values[1:]
		}
	}
	return strings.Join(segs, "/")
}

// params collects a match's parameters as name=value lines.
func params[V any](m *route.Match[V]) string {
	var b strings.Builder
	for name, value := range m.Params() {
		b.WriteString(name + "=" + value + ";")
	}
	return b.String()
}

func FuzzMatch(f *testing.F) {
	f.Add(uint(0), "/v1/customers/cus_1", "cus_1", "card_2", "x", "y")
	f.Add(uint(4), "/v1/customers/search", "search", "sources", "", "")
	f.Add(uint(11), "/v1/invoices/upcoming/lines", "upcoming", "verify", "a", "b")
	f.Add(uint(7), "//", "%2F", "ünï", "{id}", "")
	r := newStripeRouter(f)
	statics := map[string]bool{}
	for _, rt := range stripeRoutes {
		for _, s := range strings.Split(rt.Template, "/") {
			statics[s] = !strings.HasPrefix(s, "{")
		}
	}
	f.Fuzz(func(t *testing.T, i uint, path, p1, p2, p3, p4 string) {
		// Any path: a match rebuilds into the path it came from.
		if m, ok := r.Match("GET", path); ok {
			if have := expand(t, m.Template, paramValues(&m)...); have != path {
				t.Fatalf("Match(GET, %q) = %q with %q, which rebuilds %q", path, m.Template, paramValues(&m), have)
			}
			if !r.PathKnown(path) {
				t.Fatalf("Match(GET, %q) matched, but PathKnown is false", path)
			}
		}
		// A path built from a template matches it, unless a value is
		// also a static segment that wins.
		values := []string{p1, p2, p3, p4}
		for _, v := range values {
			if v == "" || strings.Contains(v, "/") {
				return
			}
		}
		rt := stripeRoutes[i%uint(len(stripeRoutes))]
		path = expand(t, rt.Template, values...)
		m, ok := r.Match(rt.Method, path)
		if !ok {
			t.Fatalf("Match(%q, %q) built from %q: no match", rt.Method, path, rt.Template)
		}
		if have := expand(t, m.Template, paramValues(&m)...); have != path {
			t.Fatalf("Match(%q, %q) = %q with %q, which rebuilds %q", rt.Method, path, m.Template, paramValues(&m), have)
		}
		for _, v := range values {
			if statics[v] {
				return
			}
		}
		if m.Template != rt.Template {
			t.Fatalf("Match(%q, %q): want %q, have %q", rt.Method, path, rt.Template, m.Template)
		}
		for k, v := range paramValues(&m) {
			if v != values[k] {
				t.Fatalf("Match(%q, %q) parameter %d: want %q, have %q", rt.Method, path, k, values[k], v)
			}
		}
	})
}

// paramValues lists a match's parameter values in template order.
func paramValues(m *route.Match[string]) []string {
	var values []string
	for _, v := range m.Params() {
		values = append(values, v)
	}
	return values
}

func BenchmarkMatch(b *testing.B) {
	r := newStripeRouter(b)
	benchmarks := []struct{ name, method, path string }{
		{"param hit", "GET", "/v1/customers/cus_123/sources/card_456"},
		{"one param hit", "POST", "/v1/payment_intents/pi_123/confirm"},
		{"static hit", "GET", "/v1/customers/search"},
		{"backtracking hit", "GET", "/v1/invoices/upcoming/lines"},
		{"miss", "GET", "/v1/customers/cus_123/nothing"},
		{"miss at first segment", "GET", "/v2/customers"},
	}
	for _, bm := range benchmarks {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m, _ := r.Match(bm.method, bm.path)
				_ = m.Value
			}
		})
	}
}

func BenchmarkPathKnown(b *testing.B) {
	r := newStripeRouter(b)
	b.ReportAllocs()
	for b.Loop() {
		r.PathKnown("/v1/customers/cus_123/sources/card_456")
	}
}
