package session

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/prov"
	"github.com/wraithdev/wraith/twin/world"
)

// customerBody is about the size of a created Stripe customer as served.
func customerBody(id string, i int) []byte {
	return fmt.Appendf(nil, `{"id":%q,"object":"customer","address":null,"balance":0,"created":%d,"currency":null,"default_source":null,"delinquent":false,"description":"customer %d","discount":null,"email":"tok_%08x@example.invalid","invoice_prefix":"ABC%04d","invoice_settings":{"custom_fields":null,"default_payment_method":null,"footer":null,"rendering_options":null},"livemode":false,"metadata":{"i":"%d"},"name":null,"next_invoice_sequence":1,"phone":null,"preferred_locales":[],"shipping":null,"tax_exempt":"none","test_clock":null}`, id, 1700000000+i, i, i, i%10000, i)
}

// holding returns a session that created n customers.
func holding(tb testing.TB, n int) *Session {
	tb.Helper()
	s := New("src", Settings{Seed: 1, Clock: Clock{Mode: ClockDeterministic, BaseEpoch: 1700000000, Step: time.Second}}, nil, true)
	s.Do(func(st *State) {
		for i := 0; i < n; i++ {
			id := st.NewID("cus_", 14)
			e := &world.Entity{ID: id, Resource: "customer", Created: int64(1700000000 + i), Seq: st.NextSeq(), Provenance: world.Handler}
			e.SetBody(customerBody(id, i))
			st.Put(e)
		}
		st.Remember("k", &Replay{Fingerprint: strings.Repeat("0f", 32), Status: 200, Body: []byte(`{}`), Provenance: prov.Handler})
	})
	return s
}

func digest(s *Session) string {
	var d string
	s.Do(func(st *State) { d, _ = st.Digest() })
	return d
}

// TestForkCopyOnWrite: a fork sees the source's world, ids and caches;
// writes on either side reach neither the other's digest nor its ids.
func TestForkCopyOnWrite(t *testing.T) {
	src := holding(t, 100)
	f := src.Fork("dst")
	if digest(f) != digest(src) {
		t.Fatal("a fresh fork's digest differs from its source's")
	}
	var a, b string
	src.Do(func(st *State) { a = st.NewID("cus_", 14) })
	f.Do(func(st *State) { b = st.NewID("cus_", 14) })
	if a != b {
		t.Errorf("next ids differ: %s and %s", a, b)
	}
	before := digest(src)
	var someID string
	f.Do(func(st *State) {
		e := st.Changed("customer")[0]
		someID = e.ID
		c := e.Copy()
		c.SetBody([]byte(`{"id":"` + e.ID + `","object":"customer","description":"changed"}`))
		st.Put(c)
		if st.Replay("k") == nil {
			t.Error("the fork lost the idempotency cache")
		}
	})
	if digest(src) != before {
		t.Error("a write to the fork changed the source")
	}
	src.Do(func(st *State) {
		if string(st.Get(someID).Body()) == `{"id":"`+someID+`","object":"customer","description":"changed"}` {
			t.Error("the source reads the fork's write")
		}
		st.Delete(st.Get(someID))
	})
	f.Do(func(st *State) {
		if st.Get(someID).Deleted {
			t.Error("the fork sees the source's delete")
		}
	})
	// Forks of forks, past the layer bound, still read right.
	cur := f
	for i := 0; i < 3*maxLayers; i++ {
		cur.Do(func(st *State) {
			id := st.NewID("cus_", 14)
			e := &world.Entity{ID: id, Resource: "customer"}
			e.SetBody(customerBody(id, i))
			st.Put(e)
		})
		cur = cur.Fork(fmt.Sprint("f", i))
	}
	cur.Do(func(st *State) {
		if have, want := st.ChangeCount(), 100+3*maxLayers; have != want {
			t.Errorf("after %d forks: want %d changes, have %d", 3*maxLayers, want, have)
		}
		if n := len(st.Changed("customer")); n != 100+3*maxLayers {
			t.Errorf("Changed lists %d", n)
		}
	})
}

// TestForkMemory: a fork that writes one entity costs less than 5% of
// its source's memory.
func TestForkMemory(t *testing.T) {
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	base := heap()
	src := holding(t, 10_000)
	srcBytes := heap() - base
	before := heap()
	f := src.Fork("dst")
	f.Do(func(st *State) {
		e := st.Changed("customer")[0]
		c := e.Copy()
		c.SetBody(append([]byte(nil), e.Body()...))
		st.Put(c)
	})
	forkBytes := heap() - before
	runtime.KeepAlive(src)
	runtime.KeepAlive(f)
	t.Logf("source %d bytes, fork with one write %d bytes (%.3f%%)", srcBytes, forkBytes, 100*float64(forkBytes)/float64(srcBytes))
	if forkBytes*20 >= srcBytes {
		t.Errorf("the fork costs %d bytes, %.1f%% of its source's %d: want under 5%%", forkBytes, 100*float64(forkBytes)/float64(srcBytes), srcBytes)
	}
}

// TestSnapshotRestore: Doc and Restore recreate the state exactly.
func TestSnapshotRestore(t *testing.T) {
	src := holding(t, 50)
	var d StateDoc
	src.Do(func(st *State) {
		st.Delete(st.Changed("customer")[0])
		var err error
		if d, err = st.Doc(); err != nil {
			t.Fatal(err)
		}
	})
	set, _ := src.Settings()
	r, err := Restore("copy", set, nil, &d)
	if err != nil {
		t.Fatal(err)
	}
	if digest(r) != digest(src) {
		t.Error("restored digest differs")
	}
	var a, b string
	src.Do(func(st *State) {
		a = st.NewID("cus_", 14) + fmt.Sprint(st.Now(time.Now), st.ChangeCount(), st.entityCount())
	})
	r.Do(func(st *State) {
		b = st.NewID("cus_", 14) + fmt.Sprint(st.Now(time.Now), st.ChangeCount(), st.entityCount())
	})
	if a != b {
		t.Errorf("restored state differs: %s vs %s", a, b)
	}
	bad := d
	bad.Entities = append([]EntityDoc{d.Entities[0]}, d.Entities...)
	if _, err := Restore("x", set, nil, &bad); err == nil {
		t.Error("a snapshot naming an entity twice restored")
	}

	// RestoreWritten restores the same state, and refuses the same
	// bookkeeping; only a body's parse is left to whoever wrote it.
	w, err := RestoreWritten("copy", set, nil, &d)
	if err != nil || digest(w) != digest(src) {
		t.Errorf("RestoreWritten: want the source's digest, have err %v", err)
	}
	if _, err := RestoreWritten("x", set, nil, &bad); err == nil {
		t.Error("RestoreWritten: a snapshot naming an entity twice restored")
	}
	past := d
	past.Entities = slices.Clone(d.Entities)
	past.Entities[0].Seq = d.Seq + 1
	if _, err := RestoreWritten("x", set, nil, &past); err == nil || !strings.Contains(err.Error(), "entities[0].seq") {
		t.Errorf("RestoreWritten: an entity past the session's seq: want entities[0].seq refused, have %v", err)
	}
	notJSON := d
	notJSON.Entities = slices.Clone(d.Entities)
	notJSON.Entities[1].Body = []byte("not json")
	if _, err := Restore("x", set, nil, &notJSON); err == nil || !strings.Contains(err.Error(), "entities[1].body") {
		t.Errorf("Restore: a body that is not JSON: want entities[1].body refused, have %v", err)
	}
}

func BenchmarkFork10k(b *testing.B) {
	src := holding(b, 10_000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		src.Fork("dst")
	}
}

func BenchmarkDigest10k(b *testing.B) {
	src := holding(b, 10_000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		digest(src)
	}
}

// BenchmarkReset resets sessions that hold 10,000 created entities and
// reports the 99th percentile of single resets. Each is a fork of one
// template (untimed, and cheap: see BenchmarkFork10k) that first writes
// one entity of its own.
func BenchmarkReset(b *testing.B) {
	tmpl := holding(b, 10_000)
	times := make([]time.Duration, 0, b.N)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := tmpl.Fork("r")
		s.Do(func(st *State) {
			id := st.NewID("cus_", 14)
			e := &world.Entity{ID: id, Resource: "customer"}
			e.SetBody(customerBody(id, i))
			st.Put(e)
		})
		b.StartTimer()
		t0 := time.Now()
		s.Reset()
		times = append(times, time.Since(t0))
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)*99/100].Nanoseconds()), "p99-ns")
}

// BenchmarkDigest10kCold digests 10,000 entities whose body hashes are
// not cached yet: the first digest of a session that just wrote them.
func BenchmarkDigest10kCold(b *testing.B) {
	src := holding(b, 10_000)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		src.Do(func(st *State) { // fresh versions, with no hash cached
			for _, e := range st.Changed("customer") {
				st.Put(e.Copy())
			}
		})
		b.StartTimer()
		digest(src)
	}
}
