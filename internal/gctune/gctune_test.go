package gctune

import (
	"context"
	"runtime/debug"
	"sync"
	"testing"
	"time"
)

func TestNextSwitchesWithHysteresis(t *testing.T) {
	p := Default()
	steps := []struct {
		live uint64
		want int
	}{
		{1 << 20, 400},  // small: raise
		{6 << 20, 400},  // between the marks: keep
		{9 << 20, 100},  // large: default
		{6 << 20, 100},  // between the marks: keep
		{3 << 20, 400},  // small again
		{64 << 20, 100}, // large
	}
	cur := p.Large
	for i, s := range steps {
		cur = p.Next(cur, s.live)
		if cur != s.want {
			t.Fatalf("step %d: live %d MiB: GOGC %d, want %d", i, s.live>>20, cur, s.want)
		}
	}
}

// fakeRuntime stands for the runtime's GC percentage and live heap.
type fakeRuntime struct {
	mu      sync.Mutex
	percent int
	live    uint64
	history []int
}

func (f *fakeRuntime) set(p int) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	prev := f.percent
	f.percent = p
	f.history = append(f.history, p)
	return prev
}

func (f *fakeRuntime) read() (uint64, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.live, true
}

func (f *fakeRuntime) setLive(n uint64) {
	f.mu.Lock()
	f.live = n
	f.mu.Unlock()
}

func (f *fakeRuntime) current() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.percent
}

func waitFor(t *testing.T, f *fakeRuntime, want int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for f.current() != want {
		if time.Now().After(deadline) {
			t.Fatalf("GOGC %d, want %d", f.current(), want)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestRunFollowsTheHeapAndRestores(t *testing.T) {
	f := &fakeRuntime{percent: 123, live: 1 << 20}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		p := Default()
		p.Every = time.Millisecond
		run(ctx, p, f.read, f.set)
		close(done)
	}()
	waitFor(t, f, Default().Small)
	f.setLive(32 << 20) // sessions filled up with state
	waitFor(t, f, Default().Large)
	f.setLive(1 << 20) // and were deleted
	waitFor(t, f, Default().Small)
	cancel()
	<-done
	if cur := f.current(); cur != 123 {
		t.Errorf("after Run: GOGC %d, want the 123 it found", cur)
	}
}

func TestRunLeavesAUserGOGCAlone(t *testing.T) {
	orig := debug.SetGCPercent(150)
	defer debug.SetGCPercent(orig)
	done := make(chan struct{})
	go func() {
		// A tuner would run until its context ends, and this one never does.
		Run(context.Background(), Default(), func(k string) string {
			if k == "GOGC" {
				return "150"
			}
			return ""
		})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run is tuning although GOGC is set")
	}
	if cur := debug.SetGCPercent(150); cur != 150 {
		t.Errorf("GOGC %d, want the user's 150 untouched", cur)
	}
}
