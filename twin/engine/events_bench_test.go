package engine

import (
	"net/http"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/embedded"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/resolve"
	"github.com/wraithdev/wraith/twin/scrub"
	"github.com/wraithdev/wraith/twin/session"
)

// BenchmarkCreateDeclared is a create of a resource whose event the twin
// declares (the stripe twin's coupon, coupon.created), beside the same
// create with the twin's events taken out: what a declared event costs
// the write that causes it (the stripe dialect's event kept, its
// endpoints looked up). The request names its API version, as Stripe's
// clients do.
func BenchmarkCreateDeclared(b *testing.B) {
	for _, declared := range []bool{false, true} {
		name := "events=none"
		if declared {
			name = "events=declared"
		}
		b.Run(name, func(b *testing.B) {
			e := newStripeEvents(b, declared)
			w := &sink{h: http.Header{}}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				w.reset()
				r := newRequest(b, "POST", "/v1/coupons", "bench", "percent_off=10&duration=once")
				r.Header.Set("Stripe-Version", "2025-03-31.basil")
				e.ServeHTTP(w, r)
				// A session's event log grows with its writes: start it
				// over so that the figure is of one write, not of a log
				// growing without bound.
				if i++; i%1000 == 0 {
					e.Store().Get("bench").Reset()
				}
			}
			if w.status != http.StatusOK {
				b.Fatalf("create: %d", w.status)
			}
		})
	}
}

// newStripeEvents builds an engine for the embedded stripe twin, with its
// declared events or without them.
func newStripeEvents(tb testing.TB, declared bool) *Engine {
	tb.Helper()
	src, err := resolve.New(tb.TempDir(), "", embedded.FS()).Resolve("stripe")
	if err != nil {
		tb.Fatal(err)
	}
	t, err := src.Load()
	if err != nil {
		tb.Fatal(err)
	}
	if !declared {
		for i := range t.Manifest.Resources {
			t.Manifest.Resources[i].Events = format.Events{}
		}
	}
	e, err := New(t, Options{
		Scrubber: scrub.New(scrub.DeriveKey([]byte(t.Digest)), scrub.Policy{}),
		Defaults: session.Settings{Clock: session.Clock{Mode: session.ClockDeterministic, BaseEpoch: 1700000000, Step: time.Second}},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return e
}
