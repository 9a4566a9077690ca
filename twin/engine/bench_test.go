package engine

import (
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/embedded"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/resolve"
	"github.com/wraithdev/wraith/twin/scrub"
	"github.com/wraithdev/wraith/twin/session"
)

// newCheckout builds an engine for the embedded checkout twin.
func newCheckout(tb testing.TB, opts Options) *Engine {
	tb.Helper()
	res := resolve.New(tb.TempDir(), "", embedded.FS())
	src, err := res.Resolve("checkout")
	if err != nil {
		tb.Fatal(err)
	}
	t, err := src.Load()
	if err != nil {
		tb.Fatal(err)
	}
	opts.Scrubber = scrub.New(scrub.DeriveKey([]byte(t.Digest)), scrub.Policy{})
	opts.Import = func(name string) (*format.Twin, error) {
		s, err := res.Resolve(name)
		if err != nil {
			return nil, err
		}
		return s.Load()
	}
	if opts.Defaults.Clock.Mode == "" {
		opts.Defaults.Clock = session.Clock{Mode: session.ClockDeterministic, BaseEpoch: 1700000000, Step: time.Second}
	}
	e, err := New(t, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// sink is a ResponseWriter that keeps only the status, so benchmarks
// measure the engine and not a recorder.
type sink struct {
	h      http.Header
	status int
	n      int
}

func (s *sink) Header() http.Header         { return s.h }
func (s *sink) WriteHeader(code int)        { s.status = code }
func (s *sink) Write(b []byte) (int, error) { s.n += len(b); return len(b), nil }
func (s *sink) reset()                      { clear(s.h); s.status, s.n = 0, 0 }

func newRequest(tb testing.TB, method, target, session, form string) *http.Request {
	tb.Helper()
	var r *http.Request
	if form != "" {
		r, _ = http.NewRequest(method, "http://twin"+target, strings.NewReader(form))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		r, _ = http.NewRequest(method, "http://twin"+target, nil)
	}
	if session != "" {
		r.Header.Set("X-Wraith-Session", session)
	}
	return r
}

// aliveSessions creates n sessions, each holding `entities` created
// customers.
func aliveSessions(tb testing.TB, e *Engine, n, entities int) []string {
	tb.Helper()
	names := make([]string, n)
	w := &sink{h: http.Header{}}
	for i := range names {
		names[i] = fmt.Sprintf("agent-%d", i)
		for k := 0; k < entities; k++ {
			w.reset()
			e.ServeHTTP(w, newRequest(tb, "POST", "/v1/customers", names[i], "description=filler&metadata[k]=v"))
			if w.status != http.StatusOK {
				tb.Fatalf("create: %d", w.status)
			}
		}
		if entities == 0 {
			if _, err := e.Session(names[i]); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return names
}

func BenchmarkRecordedGet(b *testing.B) {
	for _, alive := range []int{1, 10000} {
		b.Run(fmt.Sprintf("sessions=%d", alive), func(b *testing.B) {
			e := newCheckout(b, Options{})
			names := aliveSessions(b, e, alive, 3)
			r := newRequest(b, "GET", "/v1/customers/cus_123", names[len(names)/2], "")
			w := &sink{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				w.reset()
				e.ServeHTTP(w, r)
			}
			if w.status != http.StatusOK || w.h.Get("X-Wraith-Provenance") != "recorded" {
				b.Fatalf("want 200 recorded, have %d %s", w.status, w.h.Get("X-Wraith-Provenance"))
			}
		})
	}
}

func BenchmarkRecordedGetParallel(b *testing.B) {
	e := newCheckout(b, Options{})
	names := aliveSessions(b, e, 256, 0)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		w := &sink{h: http.Header{}}
		i := 0
		for pb.Next() {
			w.reset()
			e.ServeHTTP(w, newRequest(b, "GET", "/v1/customers/cus_123", names[i%len(names)], ""))
			i++
		}
	})
}

func BenchmarkCreate(b *testing.B) {
	for _, alive := range []int{1, 10000} {
		b.Run(fmt.Sprintf("sessions=%d", alive), func(b *testing.B) {
			e := newCheckout(b, Options{})
			names := aliveSessions(b, e, alive, 3)
			body := "email=jenny%40example.com&name=Jenny+Rosen&description=bench&metadata[order]=42"
			w := &sink{h: http.Header{}}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				// Spread creates over sessions so none grows without bound.
				w.reset()
				e.ServeHTTP(w, newRequest(b, "POST", "/v1/customers", names[i%len(names)], body))
				i++
				if i%len(names) == 0 && len(names) == 1 && i%1000 == 0 {
					e.Store().Get(names[0]).Reset()
				}
			}
			if w.status != http.StatusOK {
				b.Fatalf("create: %d", w.status)
			}
		})
	}
}

func BenchmarkList(b *testing.B) {
	for _, alive := range []int{1, 10000} {
		b.Run(fmt.Sprintf("sessions=%d", alive), func(b *testing.B) {
			e := newCheckout(b, Options{})
			names := aliveSessions(b, e, alive, 3)
			r := newRequest(b, "GET", "/v1/customers?limit=10", names[len(names)/2], "")
			w := &sink{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				w.reset()
				e.ServeHTTP(w, r)
			}
			if w.status != http.StatusOK {
				b.Fatalf("list: %d", w.status)
			}
		})
	}
}

func BenchmarkIdempotentReplay(b *testing.B) {
	e := newCheckout(b, Options{})
	body := "email=jenny%40example.com&description=bench"
	mk := func() *http.Request {
		r := newRequest(b, "POST", "/v1/customers", "idem", body)
		r.Header.Set("Idempotency-Key", "k1")
		return r
	}
	w := &sink{h: http.Header{}}
	e.ServeHTTP(w, mk())
	b.ReportAllocs()
	for b.Loop() {
		w.reset()
		e.ServeHTTP(w, mk())
	}
	if w.h.Get("Idempotent-Replayed") != "true" {
		b.Fatal("not replayed")
	}
}

// BenchmarkSessionMemory reports the heap retained per idle session and
// per session holding ten created customers (B/session, after a GC).
func BenchmarkSessionMemory(b *testing.B) {
	for _, entities := range []int{0, 10} {
		b.Run(fmt.Sprintf("entities=%d", entities), func(b *testing.B) {
			e := newCheckout(b, Options{})
			w := &sink{h: http.Header{}}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			i := 0
			for b.Loop() {
				name := fmt.Sprintf("agent-%d", i)
				if _, err := e.Session(name); err != nil {
					b.Fatal(err)
				}
				for k := 0; k < entities; k++ {
					w.reset()
					e.ServeHTTP(w, newRequest(b, "POST", "/v1/customers", name, "description=filler&metadata[k]=v"))
				}
				i++
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(i), "B/session")
			runtime.KeepAlive(e)
		})
	}
}

// BenchmarkEntityHeap reports the live heap each created customer holds
// in its session (B/entity, after a GC), with the bench's form body: the
// entity and what keeps it, not the journal (bounded to one entry here).
func BenchmarkEntityHeap(b *testing.B) {
	const n = 10000
	body := "email=jenny%40example.com&name=Jenny+Rosen&description=bench&metadata[order]=42"
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var perEntity float64
	for b.Loop() {
		e := newCheckout(b, Options{})
		e.Store().SetJournalLimit(1)
		w := &sink{h: http.Header{}}
		create := func() {
			w.reset()
			e.ServeHTTP(w, newRequest(b, "POST", "/v1/customers", "heap", body))
			if w.status != http.StatusOK {
				b.Fatalf("create: %d", w.status)
			}
		}
		create() // the session exists before the count starts
		before := heap()
		for range n {
			create()
		}
		perEntity = float64(int64(heap())-int64(before)) / n
		runtime.KeepAlive(e)
	}
	b.ReportMetric(perEntity, "B/entity")
}
