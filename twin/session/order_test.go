package session

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/world"
)

// TestVisibleKeptOrder runs seeded random creates, updates (in place and
// moved), deletes, undeletes and forks over sessions with a starting
// world, many changes of one resource (so that Visible keeps its order)
// and few of another, checking after each step that Visible answers as a
// sort of a model would, and that a slice Visible handed out before the
// step is as it was.
func TestVisibleKeptOrder(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 13))
			b := world.NewBuilder()
			base := model{}
			for i := range 40 {
				e := &world.Entity{ID: fmt.Sprintf("w_%d", i), Resource: []string{"customer", "product"}[i%2], Created: rng.Int64N(50), Seq: uint64(i)}
				e.SetBody([]byte(`{}`))
				b.Put(e)
				base[e.ID] = e
			}
			w := b.Build()
			set := Settings{Seed: 1, Clock: Clock{Mode: ClockDeterministic, BaseEpoch: 1700000000, Step: time.Second}}
			sessions := []*Session{New("s0", set, w, true)}
			models := []model{base.clone()}
			type held struct {
				s        *Session
				resource string
				list     []*world.Entity
				copy     []*world.Entity
			}
			var holds []held
			for step := range 2000 {
				k := rng.IntN(len(sessions))
				s, m := sessions[k], models[k]
				r := "customer"
				if rng.IntN(8) == 0 {
					r = "product"
				}
				id := fmt.Sprintf("%s_%d", r[:1], rng.IntN(400))
				if rng.IntN(10) == 0 {
					id = fmt.Sprintf("w_%d", rng.IntN(40))
				}
				cur, ok := m[id]
				switch op := rng.IntN(20); {
				case op < 12: // a create, or an update in place (its key kept) or moved
					e := &world.Entity{ID: id, Resource: r, Created: 40 + int64(step)/10, Seq: uint64(step)}
					if ok {
						e.Resource = cur.Resource
						if op < 9 {
							e.Created, e.Seq = cur.Created, cur.Seq
						}
					}
					e.SetBody(fmt.Appendf(nil, `{"step":%d}`, step))
					s.Do(func(st *State) { st.Put(e) })
					m[id] = e
				case op < 17:
					if ok && !cur.Deleted {
						del(t, s, id)
						m[id] = current(t, s, id)
					}
				case op < 18 && len(sessions) < 5:
					sessions = append(sessions, s.Fork(fmt.Sprintf("s%d", len(sessions))))
					models = append(models, m.clone())
				default: // hold a slice over the steps to come
					for _, res := range []string{"customer", "product"} {
						var l []*world.Entity
						s.Do(func(st *State) { l = st.Visible(res) })
						holds = append(holds, held{s, res, l, slices.Clone(l)})
					}
				}
				// A write changes its own session's order alone (forks
				// share only frozen layers, which no write changes), so
				// each step checks that session and every 50th all.
				for i, s := range sessions {
					if i != k && step%50 != 0 {
						continue
					}
					for _, res := range []string{"customer", "product"} {
						want := models[i].visible(res)
						var have, shared []*world.Entity
						s.Do(func(st *State) { have = st.Visible(res) })
						s.ReadContext(t.Context(), func(st Reader) { shared = st.Visible(res) })
						if !slices.Equal(have, want) || !slices.Equal(shared, want) {
							t.Fatalf("step %d: %s: Visible(%q) is not the model's order (%d entities, want %d)", step, s.Name(), res, len(have), len(want))
						}
					}
				}
				for _, h := range holds {
					if !slices.Equal(h.list, h.copy) {
						t.Fatalf("step %d: %s: a slice of %q handed out earlier changed under its holder", step, h.s.Name(), h.resource)
					}
				}
			}
		})
	}
}

func (m model) clone() model {
	out := make(model, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// visible is what Visible should answer from the model: its entities of
// resource that are not deleted, newest first.
func (m model) visible(resource string) []*world.Entity {
	var out []*world.Entity
	for _, e := range m {
		if e.Resource == resource && !e.Deleted {
			out = append(out, e)
		}
	}
	world.SortNewestFirst(out)
	return out
}

// TestVisibleMovedWorldEntity: a world entity the session moved to
// another resource is listed, and is the newest, under its new resource
// alone, whether the session keeps the order and the newest or looks
// afresh.
func TestVisibleMovedWorldEntity(t *testing.T) {
	b := world.NewBuilder()
	w1 := &world.Entity{ID: "w_1", Resource: "customer", Created: 1, Provenance: world.Recorded}
	w1.SetBody([]byte(`{}`))
	b.Put(w1)
	set := Settings{Seed: 1, Clock: Clock{Mode: ClockDeterministic, BaseEpoch: 1700000000, Step: time.Second}}
	s := New("s", set, b.Build(), true)
	s.Do(func(st *State) {
		for i := range orderFrom {
			e := &world.Entity{ID: fmt.Sprintf("c_%d", i), Resource: "customer", Created: 10 + int64(i), Provenance: world.Handler}
			e.SetBody([]byte(`{}`))
			st.Put(e)
		}
		st.Visible("customer") // kept from here
		st.Newest("product")
		moved := &world.Entity{ID: "w_1", Resource: "product", Created: 5, Provenance: world.Handler}
		moved.SetBody([]byte(`{}`))
		st.Put(moved)
		if kept, fresh := st.Visible("customer"), st.sortVisible("customer"); !slices.Equal(kept, fresh) || len(kept) != orderFrom {
			t.Errorf("Visible(customer): kept order has %d entities, a fresh sort %d, want %d", len(kept), len(fresh), orderFrom)
		}
		if have, look := st.Newest("product"), st.findNewest("product"); have != moved || look != moved {
			t.Errorf("Newest(product): kept %v, a fresh look %v, want w_1", idOf(have), idOf(look))
		}
	})
}
