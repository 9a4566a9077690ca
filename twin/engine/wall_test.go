package engine

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/session"
)

// TestOneWallClockRead: a request to a session on the real clock reads
// the wall clock once, for its session's time and for the time its
// headers say, so they agree.
func TestOneWallClockRead(t *testing.T) {
	var reads atomic.Int64
	at := time.Unix(1_800_000_000, 0)
	e := newCheckout(t, Options{
		Now:      func() time.Time { reads.Add(1); return at.Add(time.Duration(reads.Load()) * time.Second) },
		Defaults: session.Settings{Clock: session.Clock{Mode: session.ClockReal}},
	})
	for _, tc := range []struct{ method, path, form string }{
		{"POST", "/v1/customers", "name=Jenny"},
		{"GET", "/v1/customers/cus_123", ""},
	} {
		before := reads.Load()
		w := &sink{h: http.Header{}}
		e.ServeHTTP(w, newRequest(t, tc.method, tc.path, "wall", tc.form))
		if w.status != http.StatusOK {
			t.Fatalf("%s %s: status %d", tc.method, tc.path, w.status)
		}
		if n := reads.Load() - before; n != 1 {
			t.Errorf("%s %s read the wall clock %d times, want 1", tc.method, tc.path, n)
		}
		want := at.Add(time.Duration(reads.Load()) * time.Second)
		age, _ := strconv.ParseInt(w.h.Get("X-Wraith-Twin-Age"), 10, 64)
		if recorded, err := time.Parse(time.RFC3339, w.h.Get("X-Wraith-Recorded-At")); err != nil || recorded.Add(time.Duration(age)*time.Second).Unix() != want.Unix() {
			t.Errorf("%s %s: Recorded-At %s and Twin-Age %d do not add up to the wall time read, %s", tc.method, tc.path, w.h.Get("X-Wraith-Recorded-At"), age, want.UTC().Format(time.RFC3339))
		}
	}
}
