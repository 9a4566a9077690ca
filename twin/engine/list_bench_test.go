package engine

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/world"
)

// busyChanges is how many customers BenchmarkListBusySession's session
// holds: a session after some seconds of creates.
const busyChanges = 100_000

// BenchmarkListBusySession lists 10 entities in a session holding
// busyChanges created customers and three created products: the products
// (a resource with few changes, which should cost what the session changed
// of it alone), the customers themselves, and the products again in a
// fork of the session, whose changes are all in a frozen layer.
func BenchmarkListBusySession(b *testing.B) {
	e := newCheckout(b, Options{})
	s, err := e.Session("busy")
	if err != nil {
		b.Fatal(err)
	}
	fillCustomers(b, s, busyChanges)
	w := &sink{h: http.Header{}}
	for i := range 3 {
		w.reset()
		e.ServeHTTP(w, newRequest(b, "POST", "/v1/products", "busy", fmt.Sprintf("name=product+%d", i)))
		if w.status != http.StatusOK {
			b.Fatalf("create a product: %d", w.status)
		}
	}
	if _, err := e.Store().Fork(context.Background(), s, "busy-fork"); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct{ name, session, path string }{
		{"few", "busy", "/v1/products?limit=10"},
		{"busy", "busy", "/v1/customers?limit=10"},
		{"few-forked", "busy-fork", "/v1/products?limit=10"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			r := newRequest(b, "GET", tc.path, tc.session, "")
			b.ReportAllocs()
			for b.Loop() {
				w.reset()
				e.ServeHTTP(w, r)
			}
			if w.status != http.StatusOK || w.n == 0 {
				b.Fatalf("list: want 200 with a body, have %d and %d bytes", w.status, w.n)
			}
		})
	}
}

// fillCustomers puts n created customers into s directly, as the engine's
// creates would keep them but without their journal, so that the
// benchmark's setup stays seconds.
func fillCustomers(tb testing.TB, s *session.Session, n int) {
	tb.Helper()
	err := s.Do(func(st *session.State) {
		for i := range n {
			id := st.NewID("cus_", 14)
			ent := &world.Entity{ID: id, Resource: "customer", Created: int64(1700000000 + i), Seq: st.NextSeq(), Provenance: world.Handler}
			ent.SetBody(fmt.Appendf(nil, `{"id":%q,"object":"customer","created":%d,"description":"filler","metadata":{}}`, id, 1700000000+i))
			st.Put(ent)
		}
	})
	if err != nil {
		tb.Fatal(err)
	}
}
