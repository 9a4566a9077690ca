package session

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/world"
)

// recorder is a Persister that keeps what it was told.
type recorder struct {
	mu   sync.Mutex
	seen []string
}

func (r *recorder) Persist(s *Session, c Change) Ack {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, s.Name()+" "+c.String())
	return nil
}

// take returns what r was told since the last take.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.seen
	r.seen = nil
	return out
}

// TestPersisterSeesEveryChange: a store's Persister is told of each kind
// of change, with the session's name, once, and of nothing that only
// reads.
func TestPersisterSeesEveryChange(t *testing.T) {
	rec := &recorder{}
	st := NewStoreWith(StoreOptions{Persister: rec})
	set := Settings{Seed: 1, Clock: Clock{Mode: ClockDeterministic, BaseEpoch: 1700000000, Step: time.Second}}
	var a *Session
	put := func(st *State) {
		e := &world.Entity{ID: st.NewID("cus_", 14), Resource: "customer", Seq: st.NextSeq(), Provenance: world.Handler}
		e.SetBody([]byte(`{"id":"` + e.ID + `","object":"customer"}`))
		st.Put(e)
	}
	for _, tc := range []struct {
		name   string
		change func(t *testing.T)
		want   []string
	}{
		{"first request creates", func(t *testing.T) {
			s, _, err := st.GetOrCreate("a", func() *Session { return New("a", set, nil, false) })
			if err != nil {
				t.Fatal(err)
			}
			a = s
		}, []string{"a created"}},
		{"found again is no change", func(t *testing.T) {
			st.GetOrCreate("a", func() *Session { t.Fatal("made a second session a"); return nil })
		}, nil},
		{"provisioned", func(t *testing.T) { a.MarkProvisioned() }, []string{"a provisioned"}},
		{"provisioned again is no change", func(t *testing.T) { a.MarkProvisioned() }, nil},
		{"write", func(t *testing.T) { a.Do(put) }, []string{"a wrote"}},
		{"write under a request's context", func(t *testing.T) {
			if err := a.DoContext(context.Background(), put); err != nil {
				t.Fatal(err)
			}
		}, []string{"a wrote"}},
		{"remembered answer", func(t *testing.T) {
			a.Do(func(st *State) { st.Remember("k", &Replay{Status: 200, Body: []byte(`{}`)}) })
		}, []string{"a wrote"}},
		{"read", func(t *testing.T) {
			a.Do(func(st *State) { st.Digest() })
			if err := a.ReadContext(context.Background(), func(st Reader) { st.Get("cus_x") }); err != nil {
				t.Fatal(err)
			}
		}, nil},
		{"clock move", func(t *testing.T) { a.Do(func(st *State) { st.Advance(60) }) }, []string{"a clock-moved"}},
		{"clock set", func(t *testing.T) { a.Do(func(st *State) { st.SetEpoch(1800000000) }) }, []string{"a clock-moved"}},
		{"clock move and write is a write", func(t *testing.T) {
			a.Do(func(st *State) { st.Advance(1); put(st) })
		}, []string{"a wrote"}},
		{"reset", func(t *testing.T) { a.Reset() }, []string{"a reset"}},
		{"fork", func(t *testing.T) {
			if _, err := st.Fork(context.Background(), a, "b"); err != nil {
				t.Fatal(err)
			}
		}, []string{"b forked"}},
		{"fork onto a taken name is no change", func(t *testing.T) {
			if _, err := st.Fork(context.Background(), a, "b"); err == nil {
				t.Fatal("forked onto b twice")
			}
		}, nil},
		{"restore", func(t *testing.T) {
			var d StateDoc
			a.Do(func(st *State) { d, _ = st.Doc() })
			if _, err := st.Restore("c", set, nil, &d); err != nil {
				t.Fatal(err)
			}
		}, []string{"c restored"}},
		{"delete", func(t *testing.T) { st.Delete("b") }, []string{"b deleted"}},
		{"delete of nothing is no change", func(t *testing.T) { st.Delete("nobody") }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.change(t)
			if have := rec.take(); !slices.Equal(have, tc.want) {
				t.Errorf("want %q, have %q", tc.want, have)
			}
		})
	}
}

// TestNopPersister: a store made without a Persister keeps working, and
// a session outside any store reports to nobody.
func TestNopPersister(t *testing.T) {
	st := NewStore(0)
	s, _, err := st.GetOrCreate("a", func() *Session { return New("a", Settings{}, nil, true) })
	if err != nil {
		t.Fatal(err)
	}
	s.Do(func(st *State) { st.Advance(1) })
	s.Reset()
	st.Delete("a")
	New("loose", Settings{}, nil, true).Reset()
}

// gate is a Persister whose Acks stay pending until released: a record
// whose sync has not returned. Each Wait on a pending Ack is announced on
// waits, so a test sees who waits without timing anything.
type gate struct {
	release chan struct{}
	waits   chan string
}

type gateAck struct {
	g    *gate
	what string
}

func (g *gate) Persist(s *Session, c Change) Ack { return gateAck{g, s.Name() + " " + c.String()} }

func (a gateAck) Wait() error {
	select {
	case <-a.g.release:
		return nil
	default:
	}
	a.g.waits <- a.what
	<-a.g.release
	return nil
}

// TestReplayWaitsForItsWrite: a locked section that changes nothing (an
// idempotent replay answered from the cache) returns only once the
// session's last change is durable. The write released the lock before
// its record was synced; a replay answered meanwhile would acknowledge a
// write a crash could still lose.
func TestReplayWaitsForItsWrite(t *testing.T) {
	g := &gate{release: make(chan struct{}), waits: make(chan string, 4)}
	var once sync.Once
	open := func() { once.Do(func() { close(g.release) }) }
	defer open() // a failing test must not leave the write waiting
	st := NewStoreWith(StoreOptions{Persister: g})
	s, _, _, err := st.getOrCreate("a", func() *Session { return New("a", Settings{}, nil, true) }, Created)
	if err != nil {
		t.Fatal(err)
	}
	wrote := make(chan error)
	go func() {
		wrote <- s.Do(func(st *State) { st.Remember("k", &Replay{Status: 200, Body: []byte(`{}`)}) })
	}()
	if have := <-g.waits; have != "a wrote" {
		t.Fatalf("want the write waiting for its record, have %q", have)
	}
	replayed := make(chan bool)
	go func() {
		var found bool
		s.Do(func(st *State) { found = st.Replay("k") != nil })
		replayed <- found
	}()
	select {
	case have := <-g.waits:
		if have != "a wrote" {
			t.Errorf("want the replay waiting for the write's record, have it waiting for %q", have)
		}
	case <-replayed:
		t.Fatal("the replay was answered before the write it replays was durable")
	}
	open()
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	if !<-replayed {
		t.Error("want the replay to find the remembered answer, have none")
	}
}
