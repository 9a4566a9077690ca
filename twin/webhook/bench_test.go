package webhook

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/session"
)

// BenchmarkDeliver posts b.N signed deliveries of one session, in order,
// to a loopback endpoint, journaling each: the cost of one delivery end
// to end (a session's deliveries go one at a time).
func BenchmarkDeliver(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) }))
	defer srv.Close()
	f := newFixture(b, Options{MaxPending: b.N + 1})
	body := []byte(`{"id":"evt_1","object":"event","type":"customer.created","data":{"object":{"id":"cus_1","object":"customer"}}}`)
	ds := make([]dialect.Delivery, b.N)
	for i := range ds {
		ds[i] = dialect.Delivery{URL: srv.URL + "/hook", Secret: "whsec_bench", Event: "evt_" + strconv.Itoa(i), Body: body}
	}
	b.ReportAllocs()
	b.ResetTimer()
	f.d.Deliver(f.sess, ds)
	if err := f.d.Wait(context.Background(), f.sess); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkDeliverSessions is BenchmarkDeliver spread over 16 sessions,
// whose deliveries go side by side.
func BenchmarkDeliverSessions(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) }))
	defer srv.Close()
	f := newFixture(b, Options{MaxPending: b.N + 1})
	set := session.Settings{Clock: session.Clock{Mode: session.ClockFixed, BaseEpoch: epoch}}
	const n = 16
	sessions := make([]*session.Session, n)
	for i := range sessions {
		name := "s" + strconv.Itoa(i)
		s, _, err := f.store.GetOrCreate(name, func() *session.Session { return session.New(name, set, nil, false) })
		if err != nil {
			b.Fatal(err)
		}
		sessions[i] = s
	}
	body := []byte(`{"id":"evt_1","object":"event"}`)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		s := sessions[i%n]
		f.d.Deliver(s, []dialect.Delivery{{URL: srv.URL + "/hook", Secret: "whsec_bench", Event: "evt_1", Body: body}})
	}
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Go(func() { f.d.Wait(context.Background(), s) })
	}
	wg.Wait()
}
