package engine

import (
	"net/http"
	"testing"
)

// BenchmarkRecordedGetOneSessionParallel is BenchmarkRecordedGetParallel
// with every request in one session: one agent issuing parallel reads,
// which the session's shared lock lets run side by side.
func BenchmarkRecordedGetOneSessionParallel(b *testing.B) {
	e := newCheckout(b, Options{})
	if _, err := e.Session("agent"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		w := &sink{h: http.Header{}}
		r := newRequest(b, "GET", "/v1/customers/cus_123", "agent", "")
		for pb.Next() {
			w.reset()
			e.ServeHTTP(w, r)
			if w.status != http.StatusOK {
				b.Errorf("want 200, have %d", w.status)
				return
			}
		}
	})
}
