package session

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/world"
)

// resources are the ones the overlay tests write, and one they never do.
var resources = []string{"customer", "product", "price", "never_written"}

func blank(name string) *Session {
	return New(name, Settings{Seed: 1, Clock: Clock{Mode: ClockDeterministic, BaseEpoch: 1700000000, Step: time.Second}}, nil, true)
}

func entity(id, resource, body string) *world.Entity {
	e := &world.Entity{ID: id, Resource: resource, Provenance: world.Handler}
	e.SetBody([]byte(body))
	return e
}

func put(tb testing.TB, s *Session, id, resource, body string) *world.Entity {
	tb.Helper()
	e := entity(id, resource, body)
	if err := s.Do(func(st *State) { st.Put(e) }); err != nil {
		tb.Fatal(err)
	}
	return e
}

func del(tb testing.TB, s *Session, id string) {
	tb.Helper()
	if err := s.Do(func(st *State) { st.Delete(st.Get(id)) }); err != nil {
		tb.Fatal(err)
	}
}

// model is what a session's overlay should hold: each id's current
// version, tombstones included.
type model map[string]*world.Entity

// checkIndex compares, for every resource, what the session's indexed
// accessors answer with what a pass over the model finds, and the
// session's ids, count and Overlay with the model's.
func checkIndex(tb testing.TB, s *Session, want model) {
	tb.Helper()
	s.Do(func(st *State) {
		for _, r := range resources {
			var wantIDs []string
			for id, e := range want {
				if e.Resource == r {
					wantIDs = append(wantIDs, id)
				}
			}
			slices.Sort(wantIDs)
			var haveIDs []string
			for _, e := range st.Changed(r) {
				if e.Resource != r {
					tb.Errorf("%s: Changed(%q) gives %s of %q", s.Name(), r, e.ID, e.Resource)
				}
				if e != want[e.ID] {
					tb.Errorf("%s: Changed(%q) gives a version of %s that is not its current one", s.Name(), r, e.ID)
				}
				haveIDs = append(haveIDs, e.ID)
			}
			slices.Sort(haveIDs)
			if !slices.Equal(wantIDs, haveIDs) {
				tb.Errorf("%s: Changed(%q): want %v, have %v", s.Name(), r, wantIDs, haveIDs)
			}
			if have := st.HasChanges(r); have != (len(wantIDs) > 0) {
				tb.Errorf("%s: HasChanges(%q): want %v, have %v", s.Name(), r, len(wantIDs) > 0, have)
			}
			var newest *world.Entity
			for _, e := range want {
				if e.Resource == r && !e.Deleted && (newest == nil || world.Newer(e, newest)) {
					newest = e
				}
			}
			// Newest kept from an earlier check must have followed the
			// writes since; the shared lock's reads it without keeping.
			if have := (view{st}).Newest(r); have != newest {
				tb.Errorf("%s: Newest(%q) under the shared lock: want %v, have %v", s.Name(), r, idOf(newest), idOf(have))
			}
			if have := st.Newest(r); have != newest {
				tb.Errorf("%s: Newest(%q): want %v, have %v", s.Name(), r, idOf(newest), idOf(have))
			}
		}
		if have := st.ChangeCount(); have != len(want) {
			tb.Errorf("%s: ChangeCount: want %d, have %d", s.Name(), len(want), have)
		}
		seen := map[string]int{}
		st.Overlay(func(e *world.Entity) {
			seen[e.ID]++
			if e != want[e.ID] {
				tb.Errorf("%s: Overlay gives a version of %s that is not its current one", s.Name(), e.ID)
			}
		})
		if len(seen) != len(want) {
			tb.Errorf("%s: Overlay gives %d ids, want %d", s.Name(), len(seen), len(want))
		}
		for id, n := range seen {
			if n != 1 {
				tb.Errorf("%s: Overlay gives %s %d times", s.Name(), id, n)
			}
		}
		for id, e := range want {
			if have := st.Get(id); have != e {
				tb.Errorf("%s: Get(%s) is not its current version", s.Name(), id)
			}
		}
	})
}

func idOf(e *world.Entity) string {
	if e == nil {
		return "none"
	}
	return e.ID
}

// current returns the session's current version of id.
func current(tb testing.TB, s *Session, id string) *world.Entity {
	tb.Helper()
	var e *world.Entity
	s.Do(func(st *State) { e = st.Get(id) })
	return e
}

// TestOverlayIndexAcrossForks: the per-resource index answers as a pass
// over every change would, through fork layers that shadow each other.
func TestOverlayIndexAcrossForks(t *testing.T) {
	t.Run("changed in a fork, deleted in its child", func(t *testing.T) {
		src := blank("src")
		put(t, src, "cus_1", "customer", `{"v":1}`)
		put(t, src, "prod_1", "product", `{"v":1}`)
		f := src.Fork("f")
		put(t, f, "cus_1", "customer", `{"v":2}`)
		child := f.Fork("child")
		del(t, child, "cus_1")
		checkIndex(t, src, model{"cus_1": current(t, src, "cus_1"), "prod_1": current(t, src, "prod_1")})
		checkIndex(t, f, model{"cus_1": current(t, f, "cus_1"), "prod_1": current(t, f, "prod_1")})
		checkIndex(t, child, model{"cus_1": current(t, child, "cus_1"), "prod_1": current(t, child, "prod_1")})
		if !current(t, child, "cus_1").Deleted || current(t, f, "cus_1").Deleted {
			t.Error("the child's delete reached its source, or was lost")
		}
	})
	t.Run("a resource changed only in a frozen layer", func(t *testing.T) {
		src := blank("src")
		p := put(t, src, "prod_1", "product", `{}`)
		f := src.Fork("f")
		c := put(t, f, "cus_1", "customer", `{}`)
		g := f.Fork("g") // product two layers down, customer one
		checkIndex(t, g, model{"prod_1": p, "cus_1": c})
		checkIndex(t, src, model{"prod_1": p})
	})
	t.Run("an id moved to another resource", func(t *testing.T) {
		src := blank("src")
		put(t, src, "x_1", "customer", `{}`)
		f := src.Fork("f")
		moved := put(t, f, "x_1", "product", `{}`)
		// f's customer list in the frozen layer names x_1, which f's own
		// product shadows: f has no customer.
		checkIndex(t, f, model{"x_1": moved})
		back := put(t, f, "x_1", "customer", `{"again":true}`)
		checkIndex(t, f, model{"x_1": back})
		// Within one layer: customer, product, customer again.
		own := blank("own")
		put(t, own, "y_1", "customer", `{}`)
		put(t, own, "y_1", "product", `{}`)
		last := put(t, own, "y_1", "customer", `{}`)
		checkIndex(t, own, model{"y_1": last})
	})
	t.Run("flattened past maxLayers", func(t *testing.T) {
		s := blank("s0")
		want := model{}
		for i := range 3 * maxLayers {
			r := resources[i%3]
			id := fmt.Sprintf("%s_%d", r, i%5) // ids recur, so later layers shadow earlier ones
			if i%7 == 6 {
				if e, ok := want[id]; ok && !e.Deleted {
					del(t, s, id)
					want[id] = current(t, s, id)
				}
			} else {
				want[id] = put(t, s, id, r, fmt.Sprintf(`{"i":%d}`, i))
			}
			s = s.Fork(fmt.Sprintf("s%d", i+1))
			if d := s.st.overlay.frozen.depth; d > maxLayers {
				t.Fatalf("fork %d: frozen chain %d deep, want at most %d", i+1, d, maxLayers)
			}
			checkIndex(t, s, want)
		}
	})
}

// TestOverlayIndexRandom runs seeded random puts, deletes, moves and forks
// over a family of sessions, checking every session's index, and the
// newest entity it keeps of each resource, against a model of its changes
// after each step.
func TestOverlayIndexRandom(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 29))
			sessions := []*Session{blank("s0")}
			models := []model{{}}
			for step := range 400 {
				k := rng.IntN(len(sessions))
				s, m := sessions[k], models[k]
				id := fmt.Sprintf("id_%d", rng.IntN(40))
				switch op := rng.IntN(10); {
				case op < 5: // a put, of the id's own resource mostly
					r := resources[rng.IntN(3)]
					if e, ok := m[id]; ok && op < 4 {
						r = e.Resource
					}
					// Few distinct creation times, so that Newest's order
					// falls back on Seq and id as often as on the time.
					e := entity(id, r, fmt.Sprintf(`{"step":%d}`, step))
					e.Created, e.Seq = rng.Int64N(4), rng.Uint64N(4)
					if err := s.Do(func(st *State) { st.Put(e) }); err != nil {
						t.Fatal(err)
					}
					m[id] = e
				case op < 8:
					if e, ok := m[id]; ok && !e.Deleted {
						del(t, s, id)
						m[id] = current(t, s, id)
					}
				default:
					sessions = append(sessions, s.Fork(fmt.Sprintf("s%d", len(sessions))))
					models = append(models, maps.Clone(m))
				}
				for i := range sessions {
					checkIndex(t, sessions[i], models[i])
				}
				if t.Failed() {
					t.Fatalf("step %d", step)
				}
			}
		})
	}
}

// BenchmarkChanged reads the changes of a resource the session changed
// little, and whether it changed one it never did, in a session holding
// 100,000 changes of another resource, and the busy resource's changes.
func BenchmarkChanged(b *testing.B) {
	s := holding(b, 100_000)
	for i := range 3 {
		put(b, s, fmt.Sprintf("prod_%d", i), "product", `{}`)
	}
	st := &s.st
	b.Run("few", func(b *testing.B) {
		for b.Loop() {
			if len(st.Changed("product")) != 3 {
				b.Fatal("want 3 products")
			}
		}
	})
	b.Run("none", func(b *testing.B) {
		for b.Loop() {
			if st.HasChanges("price") {
				b.Fatal("no price was changed")
			}
		}
	})
	b.Run("busy", func(b *testing.B) {
		for b.Loop() {
			if len(st.Changed("customer")) != 100_000 {
				b.Fatal("want 100,000 customers")
			}
		}
	})
}
