package session

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/world"
)

func TestValidateName(t *testing.T) {
	tests := []struct {
		name string
		ok   bool
	}{
		{"agent-17", true},
		{"a", true},
		{"agent-0-local:run.1_x", true},
		{strings.Repeat("a", 128), true},
		{"", false},
		{strings.Repeat("a", 129), false},
		{"has space", false},
		{"slash/x", false},
		{"ünï", false},
		{"../etc", false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%.20q", tt.name), func(t *testing.T) {
			err := ValidateName(tt.name)
			if have := err == nil; have != tt.ok {
				t.Fatalf("want ok=%v, have err=%v", tt.ok, err)
			}
			if err != nil && !errors.Is(err, ErrInvalidName) {
				t.Errorf("want ErrInvalidName, have %v", err)
			}
		})
	}
}

func TestClocks(t *testing.T) {
	wall := func() time.Time { return time.Unix(5_000_000_000, 0) }
	tests := []struct {
		clock Clock
		want  []int64
	}{
		{Clock{Mode: ClockDeterministic, BaseEpoch: 1700000000, Step: time.Second}, []int64{1700000000, 1700000001, 1700000002}},
		{Clock{Mode: ClockDeterministic, BaseEpoch: 100, Step: 500 * time.Millisecond}, []int64{100, 100, 101}},
		{Clock{Mode: ClockFixed, BaseEpoch: 42, Step: time.Second}, []int64{42, 42, 42}},
		{Clock{Mode: ClockReal}, []int64{5_000_000_000, 5_000_000_000, 5_000_000_000}},
	}
	for _, tt := range tests {
		t.Run(tt.clock.Mode, func(t *testing.T) {
			s := New("s", Settings{Clock: tt.clock}, nil, false)
			var have []int64
			s.Do(func(st *State) {
				for range tt.want {
					have = append(have, st.Begin(wall()))
				}
			})
			if fmt.Sprint(have) != fmt.Sprint(tt.want) {
				t.Errorf("want %v, have %v", tt.want, have)
			}
		})
	}
}

func TestClockMovesAndResetRewinds(t *testing.T) {
	s := New("s", Settings{Clock: Clock{Mode: ClockFixed, BaseEpoch: 1000, Step: time.Second}}, nil, true)
	s.Do(func(st *State) {
		st.Advance(60)
		if have := st.Now(time.Now); have != 1060 {
			t.Errorf("after advance: want 1060, have %d", have)
		}
		st.SetEpoch(5)
		if have := st.Now(time.Now); have != 5 {
			t.Errorf("after set: want 5, have %d", have)
		}
	})
	s.Reset()
	s.Do(func(st *State) {
		if have := st.Now(time.Now); have != 1000 {
			t.Errorf("after reset: want 1000, have %d", have)
		}
	})
}

func TestIDsDependOnSeedNotName(t *testing.T) {
	ids := func(name string, seed uint64) []string {
		s := New(name, Settings{Seed: seed}, nil, false)
		var out []string
		s.Do(func(st *State) {
			for i := 0; i < 3; i++ {
				out = append(out, st.NewID("cus_", 14))
			}
		})
		return out
	}
	a, b, c := ids("agent-1", 42), ids("agent-2", 42), ids("agent-1", 43)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("same seed, other name: want %v, have %v", a, b)
	}
	if fmt.Sprint(a) == fmt.Sprint(c) {
		t.Errorf("other seed gave the same ids %v", a)
	}
	if len(a[0]) != len("cus_")+14 || !strings.HasPrefix(a[0], "cus_") || a[0] == a[1] {
		t.Errorf("ids look wrong: %v", a)
	}
}

func TestOverlayCounts(t *testing.T) {
	b := world.NewBuilder()
	b.Put(&world.Entity{ID: "cus_w", Resource: "customer"})
	s := New("s", Settings{}, b.Build(), false)
	s.Do(func(st *State) {
		st.Put(&world.Entity{ID: "cus_new", Resource: "customer"})
		st.Put(&world.Entity{ID: "cus_w", Resource: "customer", Provenance: world.Handler})
		st.Delete(st.Get("cus_w"))
		st.Delete(st.Get("cus_w")) // twice changes nothing
		if !st.Get("cus_w").Deleted {
			t.Error("deleted entity: want a tombstone")
		}
	})
	if have := s.Summary().Entities; have != 1 {
		t.Errorf("entities: want 1 (one created, one world entity deleted), have %d", have)
	}
	s.Reset()
	if have := s.Summary().Entities; have != 1 {
		t.Errorf("entities after reset: want the world's 1, have %d", have)
	}
	s.Do(func(st *State) {
		if st.Get("cus_new") != nil || st.Get("cus_w").Deleted {
			t.Error("reset kept session changes")
		}
	})
}

func TestRateLimitWindow(t *testing.T) {
	s := New("s", Settings{}, nil, false)
	base := time.Unix(1000, 0)
	s.Do(func(st *State) {
		for i := 0; i < 3; i++ {
			if ok, _ := st.Allow(base.Add(time.Duration(i)*time.Millisecond), 3, time.Second); !ok {
				t.Fatalf("request %d refused inside the limit", i)
			}
		}
		ok, wait := st.Allow(base.Add(10*time.Millisecond), 3, time.Second)
		if ok || wait != 1 {
			t.Errorf("4th request: want refused with Retry-After 1, have ok=%v wait=%d", ok, wait)
		}
		if ok, _ := st.Allow(base.Add(time.Second), 3, time.Second); !ok {
			t.Error("next window: want allowed")
		}
	})
}

func TestStoreLimitAndConcurrentCreate(t *testing.T) {
	st := NewStore(100)
	var wg sync.WaitGroup
	made := make([]int, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				name := fmt.Sprintf("s%d", i) // every goroutine races for the same 50 names
				_, created, err := st.GetOrCreate(name, func() *Session { return New(name, Settings{}, nil, false) })
				if err != nil {
					t.Errorf("GetOrCreate: %v", err)
					return
				}
				if created {
					made[g]++
				}
			}
		}(g)
	}
	wg.Wait()
	total := 0
	for _, n := range made {
		total += n
	}
	if total != 50 || st.Len() != 50 {
		t.Fatalf("want 50 sessions created once each, have created=%d len=%d", total, st.Len())
	}
	for i := 50; i < 100; i++ {
		name := fmt.Sprint("t", i)
		if _, _, err := st.GetOrCreate(name, func() *Session { return New(name, Settings{}, nil, false) }); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err := st.GetOrCreate("one-too-many", func() *Session { return New("x", Settings{}, nil, false) })
	if !errors.Is(err, ErrLimit) {
		t.Fatalf("past the limit: want ErrLimit, have %v", err)
	}
	if !st.Delete("s1") || st.Delete("s1") {
		t.Error("Delete: want true then false")
	}
	if _, _, err := st.GetOrCreate("now-fits", func() *Session { return New("x", Settings{}, nil, false) }); err != nil {
		t.Errorf("after a delete: want room for one, have %v", err)
	}
	if all := st.All(); len(all) != 100 || all[0].Name() > all[1].Name() {
		t.Errorf("All: want 100 sorted sessions, have %d", len(all))
	}
}

func BenchmarkStoreGetParallel(b *testing.B) {
	st := NewStore(0)
	names := make([]string, 10000)
	for i := range names {
		names[i] = fmt.Sprintf("agent-%d", i)
		n := names[i]
		st.GetOrCreate(n, func() *Session { return New(n, Settings{}, nil, false) })
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if st.Get(names[i%len(names)]) == nil {
				b.Fatal("missing session")
			}
			i++
		}
	})
}
