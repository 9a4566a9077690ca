package session

import (
	"net/http"
	"testing"
	"time"
)

// TestJournalFinishCopy: the journal keeps its own copy of an entry, and
// Finish completes that copy as well as the entry it is given; a Finish
// that comes after a clear leaves the entry numbered in its place alone.
func TestJournalFinishCopy(t *testing.T) {
	var j Journal
	h := http.Header{"Accept": {"application/json"}}
	first := &Entry{Method: "POST", Path: "/v1/customers", Status: 200}
	j.Begin(first, h, 10)
	j.Finish(first, true, 1700000001, 3*time.Millisecond)
	ents, _ := j.Entries()
	if len(ents) != 1 {
		t.Fatalf("want 1 entry, have %d", len(ents))
	}
	if have := ents[0]; !have.Answered || have.Served != 1700000001 || have.Latency != 3*time.Millisecond {
		t.Errorf("journal's copy after Finish: want answered at 1700000001 in 3ms, have %v at %d in %v", have.Answered, have.Served, have.Latency)
	}
	if !first.Answered || first.Latency != 3*time.Millisecond {
		t.Errorf("the entry Finish was given: want it completed too, have answered=%v latency=%v", first.Answered, first.Latency)
	}

	stale := &Entry{Method: "GET", Path: "/v1/customers/cus_1"}
	j.Begin(stale, h, 10)
	j.clear()
	fresh := &Entry{Method: "GET", Path: "/v1/balance"}
	j.Begin(fresh, h, 10) // index 0 again
	if fresh.Index != 0 {
		t.Fatalf("want the fresh entry numbered 0 after a clear, have %d", fresh.Index)
	}
	j.Finish(&Entry{Index: 0, gen: stale.gen}, true, 42, time.Second) // a request from before the clear
	ents, _ = j.Entries()
	if have := ents[0]; have.Answered || have.Served == 42 {
		t.Errorf("a Finish from before the clear completed the entry numbered after it: %+v", have)
	}

	// A copy: what the caller changes afterwards is not the journal's.
	fresh.Path = "/changed"
	if ents, _ = j.Entries(); ents[0].Path != "/v1/balance" {
		t.Errorf("want the journal's own copy, have %q", ents[0].Path)
	}
}
