// Package gctune keeps garbage collection rare while a process's live heap
// is small.
//
// A twin serving recorded answers keeps only a few MiB alive, and with Go's
// default GOGC of 100 it then collects every few megabytes of garbage:
// dozens of times a second under load, each time scanning the stacks of
// every connection's goroutine. Tune raises GOGC while the live heap is
// small, so collections are rarer and the heap stays well under 50 MiB,
// and returns to the default once the sessions' state makes the heap large,
// where a higher GOGC would only multiply memory.
package gctune

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Policy is when to use which GC percentage.
type Policy struct {
	Small, Large int // GOGC while the live heap is small, and once it is large
	// The live heap becomes large above Up bytes and small again below
	// Down; the gap keeps the setting from flapping.
	Up, Down uint64
	Every    time.Duration // how often to look at the live heap
}

// Default raises GOGC to 400 while the live heap is under 4 MiB, and
// returns to the runtime's 100 once it passes 8 MiB, so that the heap
// stays under about 40 MiB at the raised setting. It looks twice a second.
func Default() Policy {
	return Policy{Small: 400, Large: 100, Up: 8 << 20, Down: 4 << 20, Every: 500 * time.Millisecond}
}

// Next returns the GC percentage for a live heap of live bytes when cur is
// in force.
func (p Policy) Next(cur int, live uint64) int {
	switch {
	case live > p.Up:
		return p.Large
	case live < p.Down:
		return p.Small
	default:
		return cur
	}
}

const liveMetric = "/gc/heap/live:bytes"

// Run applies p every p.Every until ctx ends, then restores the GC
// percentage it found. It does nothing when the user set GOGC (getenv
// reads the environment): their setting wins.
func Run(ctx context.Context, p Policy, getenv func(string) string) {
	if getenv("GOGC") != "" {
		return
	}
	sample := []metrics.Sample{{Name: liveMetric}}
	live := func() (uint64, bool) {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return 0, false
		}
		return sample[0].Value.Uint64(), true
	}
	run(ctx, p, live, debug.SetGCPercent)
}

// run is Run with the runtime's two knobs passed in.
func run(ctx context.Context, p Policy, live func() (uint64, bool), setPercent func(int) int) {
	cur := p.Large
	orig := setPercent(cur)
	defer setPercent(orig)
	t := time.NewTicker(p.Every)
	defer t.Stop()
	for {
		if n, ok := live(); ok {
			if next := p.Next(cur, n); next != cur {
				setPercent(next)
				cur = next
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Start runs Run in its own goroutine; stop ends it and waits until the
// GC percentage is restored.
func Start(ctx context.Context, p Policy, getenv func(string) string) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(ctx, p, getenv)
	}()
	return func() {
		cancel()
		<-done
	}
}
