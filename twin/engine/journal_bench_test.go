package engine

import (
	"net/http"
	"runtime"
	"testing"
)

// BenchmarkJournalHeap reports the live heap a journal entry costs
// (B/entry, after a GC) for a recorded GET that carries an agent's usual
// headers, as net/http hands them over: a fresh request header map and a
// fresh response header map per request. The session's journal keeps up
// to 1000 entries, so the figure is the retained heap over the entries
// kept.
func BenchmarkJournalHeap(b *testing.B) {
	const limit = 1000
	e := newCheckout(b, Options{})
	e.Store().SetJournalLimit(limit)
	get := func() {
		r := newRequest(b, "GET", "/v1/customers/cus_123", "j", "")
		r.Header["User-Agent"] = []string{"Stripe/v1 GoBindings/82.1.0"}
		r.Header["Accept"] = []string{"application/json"}
		r.Header["Accept-Encoding"] = []string{"gzip"}
		r.Header["Authorization"] = []string{"Bearer sk_test_4eC39HqLyjWDarjtT1zdp7dc"}
		r.Header["Stripe-Version"] = []string{"2025-03-31.basil"}
		e.ServeHTTP(&sink{h: http.Header{}}, r)
	}
	get() // the session and its first entry exist before the count starts
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n := 0
	for b.Loop() {
		get()
		n++
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(min(n, limit-1)), "B/entry")
	runtime.KeepAlive(e)
}
