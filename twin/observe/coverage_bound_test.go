package observe

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/session"
)

// TestCoverageMissesBoundedInBytes: a thousand misses of 60 KB paths and
// 40 KB methods (old code: kept whole, about 100 MB) keep MaxMissPath and
// MaxMissMethod bytes each and say how long they were; past
// MaxCoverageBytes new misses are only counted; the store's account is
// told what the table holds.
func TestCoverageMissesBoundedInBytes(t *testing.T) {
	store := session.NewStore(0)
	o := New(store, time.Now)
	o.AccountTo(store.Memory())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range MaxMisses {
		path := fmt.Sprintf("/v1/%04d/", i) + strings.Repeat("p", 60<<10)
		method := fmt.Sprintf("M%04d", i) + strings.Repeat("M", 40<<10)
		o.Observe("s", &session.Entry{Method: method, Path: path, Provenance: "miss", Status: 501})
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	r := o.Coverage()
	if len(r.Misses) != MaxMisses || r.MissesDropped != 0 {
		t.Fatalf("want %d misses listed and none dropped, have %d and %d", MaxMisses, len(r.Misses), r.MissesDropped)
	}
	for _, m := range r.Misses[:3] {
		if len(m.Path) != MaxMissPath || m.PathBytes != 60<<10+9 || len(m.Method) != MaxMissMethod || m.MethodBytes != 40<<10+5 {
			t.Errorf("a miss of a 60 KB path: want %d bytes of path (of %d) and %d of method (of %d), have %d (%d) and %d (%d)",
				MaxMissPath, 60<<10+9, MaxMissMethod, 40<<10+5, len(m.Path), m.PathBytes, len(m.Method), m.MethodBytes)
		}
	}
	grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d misses of 60 KB paths hold %d KiB of heap; the table's estimate is %d KiB", MaxMisses, grew>>10, store.Memory().Coverage()>>10)
	if grew > 16<<20 {
		t.Errorf("the misses table holds %d MiB of heap, want at most 16 MiB", grew>>20)
	}
	if have := store.Memory().Coverage(); have <= 0 || have > MaxCoverageBytes {
		t.Errorf("coverage bytes in the store's account: want 1 to %d, have %d", MaxCoverageBytes, have)
	}
}

// TestCoverageBytesCap: with no cap on the count, the byte bound stops
// the table: new misses past it are counted in misses_dropped, and a new
// session of a listed miss in its sessions_more.
func TestCoverageBytesCap(t *testing.T) {
	c := newCoverage(time.Now, 1<<30)
	n := 0
	for ; c.dropped == 0; n++ {
		c.observe("s", &session.Entry{Method: "GET", Path: fmt.Sprintf("/%08d/%s", n, strings.Repeat("x", 400)), Provenance: "miss"})
	}
	if c.bytes > MaxCoverageBytes || c.bytes < MaxCoverageBytes-2048 {
		t.Errorf("want the table filled to about %d bytes, have %d after %d misses", MaxCoverageBytes, c.bytes, n)
	}
	key := "GET /00000000/" + strings.Repeat("x", 400)
	for i := 0; c.misses[key].extraSessions == 0 && i < maxMissSessions; i++ {
		c.observe(fmt.Sprint("t", i), &session.Entry{Method: "GET", Path: key[4:], Provenance: "miss"})
	}
	m := c.misses[key]
	if m.extraSessions != 1 || len(m.sessions) >= maxMissSessions || c.bytes > MaxCoverageBytes {
		t.Errorf("new sessions of a listed miss past the byte bound: want them counted in sessions_more before %d are listed, and at most %d bytes, have %d listed, %d more, %d bytes",
			maxMissSessions, MaxCoverageBytes, len(m.sessions), m.extraSessions, c.bytes)
	}
}
