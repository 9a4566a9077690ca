package session

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// waitFor polls cond until it holds or 10 s pass: the tests below wait on
// a condition (a goroutine is queued), never on a sleep.
func waitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("gave up waiting until %s", what)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

func (l *rwLock) queued() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.queue)
}

// TestLockHammer takes the lock from many goroutines at once, readers,
// writers and waiters that give up, and checks with counters that a
// writer is always alone and readers only ever share with readers. Run
// with -race: the writers also change a plain variable the readers read.
func TestLockHammer(t *testing.T) {
	var l rwLock
	var readers, writers atomic.Int32
	var maxReaders atomic.Int32
	var plain int // written by writers, read by readers: a race if exclusion fails
	var cancelled, done atomic.Int64
	const goroutines, rounds = 16, 400

	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				exclusive := (g+i)%4 == 0
				ctx := context.Background()
				var cancel context.CancelFunc = func() {}
				if i%7 == 3 {
					// A waiter that gives up soon, often while queued.
					ctx, cancel = context.WithTimeout(ctx, time.Duration(i%3)*time.Microsecond)
				}
				err := l.LockContext(ctx, exclusive)
				cancel()
				if err != nil {
					cancelled.Add(1)
					continue
				}
				if exclusive {
					if n := writers.Add(1); n != 1 {
						t.Errorf("%d writers hold the lock at once", n)
					}
					if n := readers.Load(); n != 0 {
						t.Errorf("a writer holds the lock with %d readers", n)
					}
					plain++
					runtime.Gosched()
					writers.Add(-1)
				} else {
					n := readers.Add(1)
					for m := maxReaders.Load(); n > m && !maxReaders.CompareAndSwap(m, n); m = maxReaders.Load() {
					}
					if w := writers.Load(); w != 0 {
						t.Errorf("a reader holds the lock with %d writers", w)
					}
					_ = plain
					runtime.Gosched() // let other readers in beside this one
					readers.Add(-1)
				}
				l.Unlock(exclusive)
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	if have := done.Load() + cancelled.Load(); have != goroutines*rounds {
		t.Errorf("want %d acquisitions or give-ups, have %d", goroutines*rounds, have)
	}
	if l.writer || l.readers.Load() != 0 || l.queued() != 0 {
		t.Errorf("after everyone left: writer %v, readers %d, queued %d", l.writer, l.readers.Load(), l.queued())
	}
	// Free again: both modes are taken at once.
	if err := l.LockContext(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	l.Unlock(true)
	t.Logf("%d held, %d gave up, at most %d readers at once", done.Load(), cancelled.Load(), maxReaders.Load())
}

// TestLockReadersShare: a reader does not wait for another reader.
func TestLockReadersShare(t *testing.T) {
	var l rwLock
	if err := l.LockContext(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // a free (shared) lock is taken even so; a wait would fail
	if err := l.LockContext(ctx, false); err != nil {
		t.Fatalf("a second reader waited for the first: %v", err)
	}
	if !l.Shared() {
		t.Error("two readers hold the lock, Shared says false")
	}
	l.Unlock(false)
	l.Unlock(false)
	if l.Shared() {
		t.Error("no reader holds the lock, Shared says true")
	}
}

// TestLockWriterNotStarved: a writer waiting behind a reader holds back
// the readers that come after it, and they go in together once it is
// done.
func TestLockWriterNotStarved(t *testing.T) {
	var l rwLock
	l.LockContext(context.Background(), false) // the first reader
	var order []string
	var mu sync.Mutex
	note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }

	wrote := make(chan struct{})
	go func() {
		l.Lock()
		note("writer")
		l.Unlock(true)
		close(wrote)
	}()
	waitFor(t, "the writer queues", func() bool { return l.queued() == 1 })

	late := make(chan struct{})
	var inside sync.WaitGroup
	inside.Add(2)
	for range 2 {
		go func() {
			l.LockContext(context.Background(), false)
			note("reader")
			inside.Done()
			<-late // both readers hold the lock together
			l.Unlock(false)
		}()
	}
	waitFor(t, "the late readers queue behind the writer", func() bool { return l.queued() == 3 })
	l.Unlock(false) // the first reader leaves: the writer goes, then both readers
	<-wrote
	inside.Wait()
	close(late)
	mu.Lock()
	defer mu.Unlock()
	if len(order) != 3 || order[0] != "writer" {
		t.Errorf("want the writer before the late readers, have %v", order)
	}
}

// TestLockAbandonedWriter: a writer that gives up while queued lets in
// the readers it held back, and leaves the lock as it found it.
func TestLockAbandonedWriter(t *testing.T) {
	var l rwLock
	l.LockContext(context.Background(), false)
	ctx, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan error, 1)
	go func() { gaveUp <- l.LockContext(ctx, true) }()
	waitFor(t, "the writer queues", func() bool { return l.queued() == 1 })

	readerIn := make(chan struct{})
	go func() {
		l.LockContext(context.Background(), false)
		close(readerIn)
	}()
	waitFor(t, "the reader queues behind the writer", func() bool { return l.queued() == 2 })
	cancel()
	if err := <-gaveUp; err != context.Canceled {
		t.Fatalf("the abandoned writer: want context.Canceled, have %v", err)
	}
	select {
	case <-readerIn:
	case <-time.After(10 * time.Second):
		t.Fatal("the reader held back by the abandoned writer never got in")
	}
	if l.writer || l.readers.Load() != 2 || l.queued() != 0 {
		t.Errorf("want two readers and nobody queued, have writer %v, readers %d, queued %d", l.writer, l.readers.Load(), l.queued())
	}
}

// TestReadContextReadsOnly: what ReadContext hands a read is a Reader and
// no *State, so a read cannot reach a method that changes the session
// (the compiler refuses the call; a type assertion finds no State), and a
// panic in a read goes on with the lock released.
func TestReadContextReadsOnly(t *testing.T) {
	s := New("s", Settings{Seed: 1, Clock: Clock{Mode: ClockDeterministic, BaseEpoch: 1700000000, Step: time.Second}}, nil, true)
	s.ReadContext(context.Background(), func(r Reader) {
		if _, ok := r.(*State); ok {
			t.Error("ReadContext handed out a *State: a read could change the session beside other reads")
		}
		if _, ok := r.(interface{ NewID(string, int) string }); ok {
			t.Error("the Reader has NewID, which changes the session")
		}
	})
	func() {
		defer func() {
			if recover() == nil {
				t.Error("a panic in a read was swallowed")
			}
		}()
		s.ReadContext(context.Background(), func(Reader) { panic("a bug") })
	}()
	if s.mu.Shared() {
		t.Error("the shared lock is still held after a panic")
	}
}

// TestReadContextTicks: reads holding the lock together each get a tick
// and a count of their own, and a write after them continues the clock.
func TestReadContextTicks(t *testing.T) {
	const base, readers = 1700000000, 64
	s := New("s", Settings{Clock: Clock{Mode: ClockDeterministic, BaseEpoch: base, Step: time.Second}}, nil, true)
	ticks := make(chan int64, readers)
	var wg sync.WaitGroup
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.ReadContext(context.Background(), func(st Reader) { ticks <- st.Begin(time.Now()) })
		}()
	}
	wg.Wait()
	close(ticks)
	seen := map[int64]bool{}
	for tk := range ticks {
		if tk < base || tk >= base+readers || seen[tk] {
			t.Errorf("tick %d: repeated or outside [%d, %d)", tk, base, base+readers)
		}
		seen[tk] = true
	}
	var next int64
	var requests uint64
	s.Do(func(st *State) { next, requests = st.Begin(time.Now()), st.Requests() })
	if next != base+readers || requests != readers+1 {
		t.Errorf("the write after %d reads: want tick %d and %d requests, have %d and %d", readers, base+readers, readers+1, next, requests)
	}
}

// TestLockGrantedAsItGivesUp: a waiter whose context ends at the moment
// the lock is handed to it either keeps the lock (and says so) or hands it
// on to the waiter behind it; the lock is never lost and never held twice.
// The test holds the lock's mutex while it cancels and grants, so the
// waiter sees both at once.
func TestLockGrantedAsItGivesUp(t *testing.T) {
	for _, mode := range []struct {
		name                string
		holder, gives, next bool // exclusive or not: who holds, who gives up, who waits behind
	}{
		{"reader behind a writer", true, false, true},
		{"writer behind a writer", true, true, false},
		{"writer behind readers", false, true, false},
	} {
		t.Run(mode.name, func(t *testing.T) {
			for range 100 {
				var l rwLock
				l.LockContext(context.Background(), mode.holder)
				ctx, cancel := context.WithCancel(context.Background())
				gave := make(chan error, 1)
				go func() { gave <- l.LockContext(ctx, mode.gives) }()
				waitFor(t, "the waiter queues", func() bool { return l.queued() == 1 })
				next := make(chan struct{})
				go func() {
					l.LockContext(context.Background(), mode.next)
					close(next)
				}()
				waitFor(t, "the second waiter queues", func() bool { return l.queued() == 2 })

				l.mu.Lock()
				cancel()
				l.release(mode.holder) // grants the first waiter while it cannot move
				l.mu.Unlock()
				if err := <-gave; err == nil {
					l.Unlock(mode.gives) // it kept the lock: its to give back
				}
				select {
				case <-next:
				case <-time.After(10 * time.Second):
					t.Fatal("the waiter behind one that gave up never got the lock")
				}
				l.Unlock(mode.next)
				if l.writer || l.readers.Load() != 0 || l.queued() != 0 {
					t.Fatalf("after everyone left: writer %v, readers %d, queued %d", l.writer, l.readers.Load(), l.queued())
				}
			}
		})
	}
}
