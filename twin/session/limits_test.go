package session

import (
	"math"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/world"
)

// TestClockNeverWraps: however far a clock is pushed, it stops at MaxEpoch
// instead of overflowing its nanosecond count into negative times.
func TestClockNeverWraps(t *testing.T) {
	tests := []struct {
		name string
		move func(st *State)
		want int64
	}{
		{"advance by a little", func(st *State) { st.Advance(60) }, 1000 + 60},
		{"advance by MaxInt64 seconds", func(st *State) { st.Advance(math.MaxInt64) }, MaxEpoch},
		{"advance twice past the end", func(st *State) { st.Advance(MaxEpoch); st.Advance(MaxEpoch) }, MaxEpoch},
		{"set past the end", func(st *State) { st.SetEpoch(math.MaxInt64) }, MaxEpoch},
		{"deterministic steps at the end", func(st *State) {
			st.SetEpoch(MaxEpoch)
			for range 3 {
				st.Begin(time.Now())
			}
		}, MaxEpoch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := Settings{Clock: Clock{Mode: ClockDeterministic, BaseEpoch: 1000, Step: 24 * time.Hour}}
			s := New("s", set, world.NewBuilder().Build(), true)
			s.Do(func(st *State) {
				tt.move(st)
				if have := st.Now(time.Now); have != tt.want {
					t.Errorf("want now %d, have %d", tt.want, have)
				}
			})
		})
	}
	t.Run("base epoch past the end", func(t *testing.T) {
		set := Settings{Clock: Clock{Mode: ClockFixed, BaseEpoch: math.MaxInt64}}
		New("s", set, world.NewBuilder().Build(), true).Do(func(st *State) {
			if have := st.Now(time.Now); have != MaxEpoch {
				t.Errorf("want now %d, have %d", int64(MaxEpoch), have)
			}
		})
	})
}

// TestChangeCount counts what --max-entities bounds: every entity the
// session holds of its own, tombstones included.
func TestChangeCount(t *testing.T) {
	b := world.NewBuilder()
	b.Put(&world.Entity{ID: "cus_w", Resource: "customer"})
	s := New("s", Settings{}, b.Build(), false)
	s.Do(func(st *State) {
		if st.ChangeCount() != 0 || st.Touched("cus_w") {
			t.Fatalf("a new session holds nothing of its own: count %d", st.ChangeCount())
		}
		st.Put(&world.Entity{ID: "cus_new", Resource: "customer"})
		st.Put(&world.Entity{ID: "cus_new", Resource: "customer"})
		st.Delete(st.Get("cus_w"))
		if have := st.ChangeCount(); have != 2 {
			t.Errorf("one created (twice) and one deleted: want 2, have %d", have)
		}
		if !st.Touched("cus_new") || !st.Touched("cus_w") || st.Touched("cus_other") {
			t.Error("Touched: want cus_new and cus_w only")
		}
		st.Remember("k", &Replay{})
		if have := st.ReplayCount(); have != 1 {
			t.Errorf("replays: want 1, have %d", have)
		}
	})
	s.Reset()
	s.Do(func(st *State) {
		if st.ChangeCount() != 0 || st.ReplayCount() != 0 {
			t.Errorf("reset: want nothing held, have %d entities and %d replays", st.ChangeCount(), st.ReplayCount())
		}
	})
}
