package engine

import (
	"net/http"
	"testing"
)

// BenchmarkFaultProfileNone serves a GET and a create with no profile and
// with --fault-profile none: none must cost nothing (compare with
// benchstat -col /profile).
func BenchmarkFaultProfileNone(b *testing.B) {
	for _, profile := range []string{"off", "none"} {
		opts := Options{}
		if profile == "none" {
			opts.FaultProfile = "none"
		}
		b.Run("op=get/profile="+profile, func(b *testing.B) {
			e := newCheckout(b, opts)
			r := newRequest(b, "GET", "/v1/customers/cus_123", "bench", "")
			w := &sink{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				w.reset()
				e.ServeHTTP(w, r)
			}
			if w.status != http.StatusOK {
				b.Fatalf("get: %d", w.status)
			}
		})
		b.Run("op=create/profile="+profile, func(b *testing.B) {
			e := newCheckout(b, opts)
			body := "email=jenny%40example.com&name=Jenny+Rosen&description=bench&metadata[order]=42"
			w := &sink{h: http.Header{}}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				w.reset()
				e.ServeHTTP(w, newRequest(b, "POST", "/v1/customers", "bench", body))
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
