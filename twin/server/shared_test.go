package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/session"
)

// TestOneSessionUnderFire serves one session's reads (retrieve, HEAD, the
// /__s/ path form, lists, a filter on a session that keeps PII verbatim,
// synthesized unknown ids, a plain route, a route miss) side by side with
// its writes, clients that hang up while they wait, and every control
// call that reaches the session (clock advance and set, reset, fork,
// snapshot and restore, journal, state, digest, the session list), over
// real connections from many goroutines. Run it with -race. Every answer
// must be whole and as expected (a read that reached a method that changes
// the session would panic and drop its connection), and afterwards the
// session's lock must be free and its journal numbered without a gap.
func TestOneSessionUnderFire(t *testing.T) {
	srv := startServer(t, "checkout", "--debug")
	base := srv.URL()
	provisionDet(t, base, "s")
	if resp, body := do(t, base, call{method: "POST", path: "/__wraith/session", json: `{"session":"p","seed":7,"pii_verbatim":["email"],"clock":{"mode":"deterministic","base_epoch":1700000000}}`}); resp.StatusCode != 201 {
		t.Fatalf("provision p: %d %s", resp.StatusCode, body)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	defer client.CloseIdleConnections()
	// send returns the status and body, or the transport's error.
	send := func(ctx context.Context, method, path, session, body string) (int, []byte, error) {
		req, err := http.NewRequestWithContext(ctx, method, base+path, strings.NewReader(body))
		if err != nil {
			return 0, nil, err
		}
		if strings.HasPrefix(body, "{") {
			req.Header.Set("Content-Type", "application/json")
		} else if body != "" {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		if session != "" {
			req.Header.Set("X-Wraith-Session", session)
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, b, err
	}
	// must sends a request that must answer with want and, when it has a
	// body, valid JSON.
	must := func(method, path, session, body string, want int) []byte {
		code, b, err := send(context.Background(), method, path, session, body)
		if err != nil {
			t.Errorf("%s %s (session %s): %v", method, path, session, err)
			return nil
		}
		if code != want || len(b) > 0 && !json.Valid(b) {
			t.Errorf("%s %s (session %s): want %d, have %d %.300s", method, path, session, want, code, b)
		}
		return b
	}

	reads := []struct{ method, path, session string }{
		{"GET", "/v1/customers/cus_123", "s"},
		{"HEAD", "/v1/customers/cus_123", "s"},
		{"GET", "/__s/s/v1/customers/cus_123", ""},
		{"GET", "/v1/customers?limit=3", "s"},
		{"GET", "/v1/customers?limit=2&starting_after=cus_123", "s"},
		{"GET", "/v1/customers?email=jenny%40example.com", "p"},
		{"GET", "/v1/payment_intents?limit=5", "s"},
		{"GET", "/v1/balance", "s"},
	}
	const readers, rounds = 8, 60
	var wg sync.WaitGroup
	for g := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				r := reads[(g+i)%len(reads)]
				must(r.method, r.path, r.session, "", http.StatusOK)
				must("GET", fmt.Sprintf("/v1/customers/cus_unseen%d_%d", g, i), "s", "", http.StatusOK)
				must("GET", "/v1/nothing/here", "s", "", http.StatusNotImplemented)
			}
		}()
	}
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds / 2 {
				b := must("POST", "/v1/customers", "s", fmt.Sprintf("description=w%d-%d&email=w%d@example.com", g, i, i), http.StatusOK)
				var c struct{ ID string }
				json.Unmarshal(b, &c)
				must("GET", "/v1/customers/"+c.ID, "s", "", http.StatusOK)
				must("DELETE", "/v1/customers/"+c.ID, "s", "", http.StatusOK)
				must("POST", "/v1/customers", "p", "description=p&email=jenny@example.com", http.StatusOK)
			}
		}()
	}
	// Clients that give up while they wait: any answer they get is whole.
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i%5)*100*time.Microsecond)
				method, body := "GET", ""
				if (g+i)%3 == 0 {
					method, body = "POST", "description=gone"
				}
				code, b, err := send(ctx, method, "/v1/customers?limit=3", "s", body)
				if method == "POST" {
					code, b, err = send(ctx, method, "/v1/customers", "s", body)
				}
				cancel()
				if err == nil && (code == 0 || !json.Valid(b)) {
					t.Errorf("%s by a client that gives up: %d %.300s", method, code, b)
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range rounds / 3 {
			must("POST", "/__wraith/session/s/clock", "", `{"advance_secs":3}`, http.StatusOK)
			must("POST", "/__wraith/session/s/clock", "", fmt.Sprintf(`{"set_epoch":%d}`, 1700000000+i*1000), http.StatusOK)
			fork := fmt.Sprintf("f%d", i)
			must("POST", "/__wraith/session/s/fork", "", `{"session":"`+fork+`"}`, http.StatusCreated)
			must("GET", "/v1/customers?limit=3", fork, "", http.StatusOK)
			must("DELETE", "/__wraith/session/"+fork, "", "", http.StatusOK)
			snap := must("GET", "/__wraith/session/s/snapshot", "", "", http.StatusOK)
			restored := fmt.Sprintf("r%d", i)
			must("PUT", "/__wraith/session/"+restored+"/snapshot", "", string(snap), http.StatusCreated)
			must("DELETE", "/__wraith/session/"+restored, "", "", http.StatusOK)
			must("GET", "/__wraith/session/s/journal?limit=5", "", "", http.StatusOK)
			must("GET", "/__wraith/session/s/state", "", "", http.StatusOK)
			must("GET", "/__wraith/session/s/digest", "", "", http.StatusOK)
			must("GET", "/__wraith/session", "", "", http.StatusOK)
			if i%4 == 3 {
				must("POST", "/__wraith/session/s/reset", "", "", http.StatusOK)
			}
		}
	}()
	wg.Wait()

	s := srv.Engine().Store().Get("s")
	if n := s.Waiting(); n != 0 {
		t.Errorf("%d requests still wait for the session", n)
	}
	// The lock is free: a request whose context has ended takes a free lock.
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.DoContext(ended, func(*session.State) {}); err != nil {
		t.Errorf("the session's lock is still held after every request returned: %v", err)
	}
	entries, _ := s.Journal().Entries()
	for i := 1; i < len(entries); i++ {
		if entries[i].Index != entries[i-1].Index+1 {
			t.Fatalf("journal entries %d and %d are numbered %d and %d", i-1, i, entries[i-1].Index, entries[i].Index)
		}
	}
}

// TestFaultedSessionReadsInOrder: a session under a fault profile and a
// rate limit counts every request (each rule's matches, the rate window),
// so its reads must not share its lock. Parallel GETs of such a session,
// over real connections and under -race: none is refused as a read that
// changed its session, and every read-rule's match count equals the
// session's request count (a read counted beside another would lose
// counts, or race).
func TestFaultedSessionReadsInOrder(t *testing.T) {
	srv := startServer(t, "checkout")
	base := srv.URL()
	if resp, body := do(t, base, call{method: "POST", path: "/__wraith/session", json: `{"session":"f","seed":7,"fault_profile":"flaky","rate_limit":"1000/s","clock":{"mode":"deterministic","base_epoch":1700000000}}`}); resp.StatusCode != 201 {
		t.Fatalf("provision f: %d %s", resp.StatusCode, body)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	defer client.CloseIdleConnections()
	const goroutines, rounds = 8, 40
	paths := []string{"/v1/customers/cus_123", "/v1/customers?limit=3", "/v1/customers/cus_unseen", "/v1/balance"}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				req, _ := http.NewRequest("GET", base+paths[(g+i)%len(paths)], nil)
				req.Header.Set("X-Wraith-Session", "f")
				resp, err := client.Do(req)
				if err != nil {
					continue // the profile resets connections
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				var doc struct {
					Error struct{ Code string } `json:"error"`
				}
				json.Unmarshal(b, &doc)
				if resp.StatusCode != 200 && resp.Header.Get("X-Wraith-Fault") == "" || doc.Error.Code == "internal" {
					t.Errorf("GET %s: %d %.300s", req.URL.Path, resp.StatusCode, b)
				}
			}
		}()
	}
	wg.Wait()
	resp, body := do(t, base, call{path: "/__wraith/session/f/snapshot"})
	var snap struct {
		Requests    uint64                            `json:"requests"`
		FaultCounts []struct{ Matched, Fired uint64 } `json:"fault_counts"`
	}
	if err := json.Unmarshal(body, &snap); err != nil || resp.StatusCode != 200 {
		t.Fatalf("snapshot: %d %v %.300s", resp.StatusCode, err, body)
	}
	// flaky's rules: write-error, write-lost, delete-error, read-error, read-reset.
	if len(snap.FaultCounts) != 5 || snap.Requests < goroutines*rounds {
		t.Fatalf("want 5 rules' counts over at least %d requests, have %+v over %d", goroutines*rounds, snap.FaultCounts, snap.Requests)
	}
	for _, i := range []int{3, 4} {
		if snap.FaultCounts[i].Matched != snap.Requests {
			t.Errorf("read rule %d matched %d of the session's %d requests", i, snap.FaultCounts[i].Matched, snap.Requests)
		}
	}
}
