package session

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
)

// rwLock is a session's lock: held shared by reads, which run side by
// side, or exclusive by everything that changes the session. Unlike
// sync.RWMutex, a waiter can give up when its context ends (a request
// whose client hung up).
//
// Waiters queue in arrival order and are let in from the front: a writer
// once it is alone, then every reader up to the next writer together. So
// a waiting writer holds back the readers that come after it (a stream of
// reads cannot starve a write) and the readers queued behind a writer go
// in together when it is done (a stream of writes cannot starve a read).
type rwLock struct {
	mu      sync.Mutex
	readers atomic.Int32 // holders in shared mode; written under mu, loaded by Shared without it
	writer  bool         // held in exclusive mode
	queue   []*waiter    // arrival order; empty unless someone waits
}

// waiter is one goroutine waiting for the lock.
type waiter struct {
	exclusive bool
	granted   chan struct{} // closed once the lock is held for it
}

// Lock takes the lock exclusive, waiting as long as it takes.
func (l *rwLock) Lock() { l.acquire(context.Background(), true) }

// LockContext takes the lock in the mode exclusive says, waiting only as
// long as ctx lives: when ctx ends first it returns ctx's error without
// holding the lock. A free lock is taken even if ctx has ended.
func (l *rwLock) LockContext(ctx context.Context, exclusive bool) error {
	return l.acquire(ctx, exclusive)
}

func (l *rwLock) acquire(ctx context.Context, exclusive bool) error {
	l.mu.Lock()
	if len(l.queue) == 0 && l.free(exclusive) {
		l.take(exclusive)
		l.mu.Unlock()
		return nil
	}
	w := &waiter{exclusive: exclusive, granted: make(chan struct{})}
	l.queue = append(l.queue, w)
	l.mu.Unlock()

	select {
	case <-w.granted:
		return nil
	case <-ctx.Done():
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-w.granted:
		// Granted as ctx ended: hand the lock on, as if never taken.
		l.release(exclusive)
	default:
		if i := slices.Index(l.queue, w); i >= 0 {
			l.queue = slices.Delete(l.queue, i, i+1)
		}
		l.grant() // a writer that leaves the front may let readers in
	}
	return ctx.Err()
}

// Unlock releases the lock held in the mode exclusive says.
func (l *rwLock) Unlock(exclusive bool) {
	l.mu.Lock()
	l.release(exclusive)
	l.mu.Unlock()
}

// Shared reports whether the lock is held by readers. Only a holder can
// rely on the answer: under an exclusive hold it stays false, under a
// shared one true.
func (l *rwLock) Shared() bool { return l.readers.Load() > 0 }

func (l *rwLock) free(exclusive bool) bool {
	if exclusive {
		return !l.writer && l.readers.Load() == 0
	}
	return !l.writer
}

func (l *rwLock) take(exclusive bool) {
	if exclusive {
		l.writer = true
	} else {
		l.readers.Add(1)
	}
}

func (l *rwLock) release(exclusive bool) {
	if exclusive {
		if !l.writer {
			panic("session: exclusive unlock of a lock not held exclusive")
		}
		l.writer = false
	} else {
		if l.readers.Load() <= 0 {
			panic("session: shared unlock of a lock not held shared")
		}
		l.readers.Add(-1)
	}
	l.grant()
}

// grant lets in waiters from the front of the queue while the lock admits
// them. Called under mu.
func (l *rwLock) grant() {
	n := 0
	for _, w := range l.queue {
		if !l.free(w.exclusive) {
			break
		}
		l.take(w.exclusive)
		close(w.granted)
		n++
	}
	if n == 0 {
		return
	}
	clear(l.queue[:n])
	l.queue = l.queue[n:]
	if len(l.queue) == 0 {
		l.queue = nil
	}
}
