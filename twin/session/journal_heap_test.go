package session

import (
	"fmt"
	"net/http"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/world"
)

// heapEntries is how many entries BenchmarkJournalHeap keeps: a session
// after some seconds of creates.
const heapEntries = 100_000

// createEntry returns an entry like the engine journals for a create: a
// form body, a fresh answer of a few hundred bytes (no recording holds
// it), a route and a handler's provenance.
func createEntry(i int) *Entry {
	req := []byte(fmt.Sprintf("email=user%d%%40example.com&name=User+%d&description=bench", i, i))
	resp := []byte(fmt.Sprintf(`{"id":"cus_%014d","object":"customer","address":null,"balance":0,"created":1700000000,"currency":null,"default_source":null,"delinquent":false,"description":"bench","discount":null,"email":"user%d@example.com","invoice_prefix":"A%07d","invoice_settings":{"custom_fields":null,"default_payment_method":null,"footer":null,"rendering_options":null},"livemode":false,"metadata":{},"name":"User %d","phone":null,"preferred_locales":[],"shipping":null,"tax_exempt":"none","test_clock":null}`, i, i, i, i))
	e := &Entry{
		At: 1700000000, Method: "POST", Path: "/v1/customers", Host: "127.0.0.1:8080",
		Route: "POST /v1/customers", Status: 200, Provenance: "handler",
		ReqBody: KeepBody(req, false),
	}
	e.SetRespBody(KeepBody(resp, false))
	return e
}

// pointerWords returns how many pointer-sized words of a value of type t
// the collector scans (every word its pointer bitmap marks, nil or not).
func pointerWords(t reflect.Type) int {
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer, reflect.String, reflect.Slice:
		return 1
	case reflect.Interface:
		return 2
	case reflect.Struct:
		n := 0
		for i := range t.NumField() {
			n += pointerWords(t.Field(i).Type)
		}
		return n
	case reflect.Array:
		return t.Len() * pointerWords(t.Elem())
	}
	return 0
}

// BenchmarkJournalHeap fills a journal with heapEntries create entries
// and reports what the collector must hold and trace for them: live heap
// bytes and heap objects per entry (from runtime.MemStats after a GC,
// before and after), pointer words per entry (the ring's slot and the
// entry's own pointer fields) and the wall time of one full GC (its
// mark and sweep, which runtime.GC waits for) with the journal live.
// ns/op includes building the entries. answer=bytes keeps each answer's
// bytes, as the journal does for an answer that is no entity version;
// answer=entity refers to the version, as it does for a create's answer
// (the versions, which the session holds anyway, are made before the
// first measure, so only the journal's own bytes count).
func BenchmarkJournalHeap(b *testing.B) {
	h := http.Header{"Accept": {"application/json"}, "User-Agent": {"Stripe/v1 GoBindings/85.0.0"},
		"Authorization": {"Bearer sk_test_123"}, "Content-Type": {"application/x-www-form-urlencoded"}}
	for _, byEntity := range []bool{false, true} {
		name := "answer=bytes"
		if byEntity {
			name = "answer=entity"
		}
		b.Run(name, func(b *testing.B) {
			var live, objects, gcNs float64
			for b.Loop() {
				b.StopTimer()
				var versions []*world.Entity
				if byEntity {
					for i := range heapEntries {
						ent := &world.Entity{ID: fmt.Sprintf("cus_%014d", i), Resource: "customer", Provenance: world.Handler}
						ent.SetBody(createEntry(i).RespBody().Bytes)
						versions = append(versions, ent)
					}
				}
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				j := new(Journal)
				b.StartTimer()
				for i := range heapEntries {
					e := createEntry(i)
					if byEntity {
						if !e.SetRespEntity(versions[i]) {
							b.Fatal("a customer's version is not referred to")
						}
					}
					j.Begin(e, h, heapEntries) // the journal alone holds the entry
				}
				b.StopTimer()
				runtime.GC()
				runtime.ReadMemStats(&after)
				live += float64(after.HeapAlloc) - float64(before.HeapAlloc)
				objects += float64(after.HeapObjects) - float64(before.HeapObjects)
				// A second full cycle with only the journal live: its mark is
				// what every cycle pays for the journal.
				t0 := time.Now()
				runtime.GC()
				gcNs += float64(time.Since(t0))
				runtime.KeepAlive(j)
				runtime.KeepAlive(versions)
				b.StartTimer()
			}
			n := float64(b.N) * heapEntries
			b.ReportMetric(live/n, "B/entry")
			b.ReportMetric(objects/n, "objects/entry")
			b.ReportMetric(gcNs/float64(b.N), "gc-ns")
			// A ring of pointers scans its slot and the entry it points to; a
			// ring of values the entry's own words.
			slot := reflect.TypeFor[Journal]()
			f, _ := slot.FieldByName("ring")
			words := pointerWords(f.Type.Elem())
			if el := f.Type.Elem(); el.Kind() == reflect.Pointer {
				words += pointerWords(el.Elem())
			}
			b.ReportMetric(float64(words), "ptrwords/entry")
		})
	}
}
