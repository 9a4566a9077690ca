package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestFillCreatesSpreadsOverTheShape sends the creates to a real server
// and counts where they land.
func TestFillCreatesSpreadsOverTheShape(t *testing.T) {
	var mu sync.Mutex
	per := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != "POST" || r.URL.Path != postPath || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
			http.Error(w, "not a create", http.StatusBadRequest)
			return
		}
		mu.Lock()
		per[r.Header.Get("X-Wraith-Session")]++
		mu.Unlock()
	}))
	defer srv.Close()
	p := &proc{name: "fake", url: srv.URL, exited: make(chan struct{})}
	sh := shape{3, "b-", 4}
	r, err := fillCreates(context.Background(), p, sh, 10, 4, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if r.ok != 10 || r.non2xx != 0 || r.errs != 0 {
		t.Errorf("want 10 ok, have %+v", r)
	}
	want := map[string]int{"b-0000": 4, "b-0001": 3, "b-0002": 3}
	for s, n := range want {
		if per[s] != n {
			t.Errorf("session %s: want %d creates, have %d (all: %v)", s, n, per[s], per)
		}
	}
}

func TestFillCreatesFailsOnARefusal(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "too many entities", http.StatusTooManyRequests)
	}))
	defer srv.Close()
	p := &proc{name: "fake", url: srv.URL, exited: make(chan struct{})}
	r, err := fillCreates(context.Background(), p, shape{1, "b-", 4}, 5, 2, time.Minute)
	if err == nil || !strings.Contains(err.Error(), "5 of 5 creates answered other than 200") {
		t.Errorf("want an error naming the 5 refusals, have %v", err)
	}
	if r.ok != 0 || r.non2xx != 5 {
		t.Errorf("want 5 non-2xx, have %+v", r)
	}
}

func TestGCFiguresSummary(t *testing.T) {
	g := gcFigures{Seconds: 10, GCCycles: 34, GCCPUFraction: 0.091, GCPauses: 68, GCPausesOver1ms: 18,
		GCPauseMax: 0.042, HeapLiveStart: 42 << 20, HeapLiveEnd: 48 << 20, GOGC: 100}
	have := g.String()
	for _, want := range []string{"34 cycles", "9.1% of the Ps' time", "18 over 1 ms", "longest 42.00 ms", "42.0 → 48.0 MiB", "GOGC 100"} {
		if !strings.Contains(have, want) {
			t.Errorf("want %q in %q", want, have)
		}
	}
}
