package observe

import (
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/session"
)

func TestCoverageBoundsMisses(t *testing.T) {
	c := newCoverage(time.Now, 3)
	for i, p := range []string{"/a", "/b", "/a", "/c", "/d", "/e"} {
		c.observe("s"+string(rune('0'+i%2)), &session.Entry{Method: "GET", Path: p, Provenance: "miss", Status: 501})
	}
	r := c.report()
	if len(r.Misses) != 3 || r.MissesDropped != 2 || r.Misses[0].Path != "/a" || r.Misses[0].Count != 2 {
		t.Errorf("want /a (2), /b, /c and 2 dropped, have %+v dropped %d", r.Misses, r.MissesDropped)
	}
	if len(r.Misses[0].Sessions) != 1 {
		t.Errorf("/a was asked by s0 twice: %v", r.Misses[0].Sessions)
	}
}

func BenchmarkObserve(b *testing.B) {
	o := New(session.NewStore(0), time.Now)
	e := &session.Entry{Method: "GET", Path: "/v1/customers/cus_123", Route: "GET /v1/customers/{id}", Status: 200, Provenance: "recorded", Latency: 12 * time.Microsecond}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		o.Observe("b-0", e)
	}
}
