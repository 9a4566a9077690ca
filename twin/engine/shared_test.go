package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wraithdev/wraith/internal/rate"
	"github.com/wraithdev/wraith/twin/session"
)

// TestReadsShareTheSession: a read of a session runs while another read
// holds the session, and everything else (writes, and reads of a session
// under a fault profile or a rate limit, which count requests) waits.
func TestReadsShareTheSession(t *testing.T) {
	e := newCheckout(t, Options{})
	det := e.Defaults()
	faulty, limited := det, det
	faulty.FaultProfile = "slow"
	limited.RateLimit = rate.Limit{N: 1000, Window: time.Second}
	for name, set := range map[string]session.Settings{"plain": det, "faulty": faulty, "limited": limited} {
		if _, err := e.Provision(name, set); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, session, method, target, form string
		shared                              bool
		status                              int
		prov                                string
	}{
		{"retrieve", "plain", "GET", "/v1/customers/cus_123", "", true, 200, ProvRecorded},
		{"retrieve of an unknown id", "plain", "GET", "/v1/customers/cus_never_seen", "", true, 200, ProvTemplate},
		{"list", "plain", "GET", "/v1/customers?limit=3", "", true, 200, ProvRecorded},
		{"plain route", "plain", "GET", "/v1/balance", "", true, 200, ProvRecorded},
		{"route miss", "plain", "GET", "/v1/nothing/here", "", true, 501, ProvMiss},
		{"create", "plain", "POST", "/v1/customers", "description=x", false, 200, ProvHandler},
		{"update", "plain", "POST", "/v1/customers/cus_123", "description=y", false, 200, ProvHandler},
		{"list after a change", "plain", "GET", "/v1/customers?limit=3", "", true, 200, ProvHandler},
		{"delete", "plain", "DELETE", "/v1/customers/cus_gone", "", false, 200, ProvHandler},
		{"retrieve under a fault profile", "faulty", "GET", "/v1/customers/cus_123", "", false, 200, ProvRecorded},
		{"retrieve under a rate limit", "limited", "GET", "/v1/customers/cus_123", "", false, 200, ProvRecorded},
	} {
		t.Run(c.name, func(t *testing.T) {
			sess := e.Store().Get(c.session)
			held, release := make(chan struct{}), make(chan struct{})
			reader := make(chan struct{})
			go func() {
				defer close(reader)
				sess.ReadContext(context.Background(), func(session.Reader) {
					close(held)
					<-release
				})
			}()
			<-held
			done := make(chan *httptest.ResponseRecorder, 1)
			go func() {
				w := httptest.NewRecorder()
				e.ServeHTTP(w, newRequest(t, c.method, c.target, c.session, c.form))
				done <- w
			}()
			answered := func(w *httptest.ResponseRecorder) {
				if w.Code != c.status || w.Header().Get("X-Wraith-Provenance") != c.prov {
					t.Errorf("%s %s: want %d %s, have %d %s %s", c.method, c.target, c.status, c.prov, w.Code, w.Header().Get("X-Wraith-Provenance"), w.Body)
				}
			}
			if c.shared {
				select {
				case w := <-done:
					answered(w)
				case <-time.After(10 * time.Second):
					t.Fatalf("%s %s waited 10 s for a read of its session", c.method, c.target)
				}
				close(release)
			} else {
				waitFor(t, "the request waits for the read", func() bool { return sess.Waiting() == 1 })
				select {
				case <-done:
					t.Fatalf("%s %s ran beside a read of its session", c.method, c.target)
				default:
				}
				close(release)
				answered(<-done)
			}
			<-reader
		})
	}
}

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

// TestParallelReadsAndWritesOneSession sends reads and writes of one
// session from many goroutines at once (run it with -race) and checks
// every answer and the journal: each request has a tick of its own, the
// journal numbers them all, a write is ordered with every other request
// (its tick and its index agree), and the writes drew the same ids, in
// index order, as the same creates sent one at a time to a fresh
// session: reads draw nothing from the id generator.
func TestParallelReadsAndWritesOneSession(t *testing.T) {
	e := newCheckout(t, Options{})
	const writers, writes, readers, reads = 4, 25, 8, 40
	var mu sync.Mutex
	var created []map[string]any // create answers, in the order they returned
	var wg sync.WaitGroup
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range writes {
				w, m := serve(t, e, "POST", "/v1/customers", "one", fmt.Sprintf("description=w%d-%d", g, i))
				if w.Code != http.StatusOK || w.Header().Get("X-Wraith-Provenance") != ProvHandler {
					t.Errorf("create: want 200 handler, have %d %s %s", w.Code, w.Header().Get("X-Wraith-Provenance"), w.Body)
					return
				}
				m["body"] = w.Body.String()
				mu.Lock()
				created = append(created, m)
				mu.Unlock()
			}
		}()
	}
	for g := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range reads {
				switch (g + i) % 4 {
				case 0:
					w, m := serve(t, e, "GET", "/v1/customers/cus_123", "one", "")
					if w.Code != http.StatusOK || w.Header().Get("X-Wraith-Provenance") != ProvRecorded || m["id"] != "cus_123" {
						t.Errorf("recorded read: have %d %s %s", w.Code, w.Header().Get("X-Wraith-Provenance"), w.Body)
					}
				case 1:
					w, m := serve(t, e, "GET", "/v1/customers?limit=3", "one", "")
					if w.Code != http.StatusOK || m["object"] != "list" {
						t.Errorf("list: have %d %s", w.Code, w.Body)
					}
				case 2:
					id := fmt.Sprintf("cus_unseen%d", i)
					w, m := serve(t, e, "GET", "/v1/customers/"+id, "one", "")
					if w.Code != http.StatusOK || w.Header().Get("X-Wraith-Provenance") != ProvTemplate || m["id"] != id {
						t.Errorf("synthesized read: have %d %s %s", w.Code, w.Header().Get("X-Wraith-Provenance"), w.Body)
					}
				case 3:
					mu.Lock()
					var want map[string]any
					if len(created) > 0 {
						want = created[i%len(created)]
					}
					mu.Unlock()
					if want == nil {
						continue
					}
					w, _ := serve(t, e, "GET", "/v1/customers/"+want["id"].(string), "one", "")
					if w.Code != http.StatusOK || w.Header().Get("X-Wraith-Provenance") != ProvHandler || w.Body.String() != want["body"] {
						t.Errorf("read of a created customer: want 200 handler %s, have %d %s %s", want["body"], w.Code, w.Header().Get("X-Wraith-Provenance"), w.Body)
					}
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}

	sess := e.Store().Get("one")
	entries, dropped := sess.Journal().Entries()
	var requests uint64
	sess.Do(func(st *session.State) { requests = st.Requests() })
	if dropped != 0 || uint64(len(entries)) != requests {
		t.Fatalf("want every one of %d requests journaled, have %d entries and %d dropped", requests, len(entries), dropped)
	}
	base := e.Defaults().Clock.BaseEpoch
	ticks := map[int64]bool{}
	var ids []string
	for i, ent := range entries {
		if ent.Index != int64(i) {
			t.Fatalf("entry %d has index %d", i, ent.Index)
		}
		if ent.At < base || ent.At >= base+int64(len(entries)) || ticks[ent.At] {
			t.Errorf("entry %d: tick %d repeated or outside [%d, %d)", i, ent.At, base, base+int64(len(entries)))
		}
		ticks[ent.At] = true
		if ent.Method != "POST" {
			continue
		}
		var m map[string]any
		json.Unmarshal(ent.RespBody().Bytes, &m)
		id, _ := m["id"].(string)
		ids = append(ids, id)
		for _, x := range entries {
			if (x.At < ent.At) != (x.Index < ent.Index) {
				t.Errorf("write %d (tick %d) and entry %d (tick %d): their ticks and indexes disagree", ent.Index, ent.At, x.Index, x.At)
			}
		}
	}
	if len(ids) != writers*writes {
		t.Fatalf("want %d creates journaled, have %d", writers*writes, len(ids))
	}
	var seq []string
	for i := range ids {
		_, m := serve(t, e, "POST", "/v1/customers", "sequential", fmt.Sprintf("description=s%d", i))
		id, _ := m["id"].(string)
		seq = append(seq, id)
	}
	if !slices.Equal(ids, seq) {
		t.Errorf("ids of the parallel session's creates in index order differ from a sequential session's:\nparallel   %v\nsequential %v", ids, seq)
	}
}

// TestParallelGitHubReadsOneSession: the GitHub twin's reads (parent-
// scoped lists paged by Link headers, keyed issues) beside issue creates
// in one session, from many goroutines (run it with -race): every issue
// gets its own number, and every read answers as it would alone.
func TestParallelGitHubReadsOneSession(t *testing.T) {
	srv := startGitHub(t, NotFound)
	do := func(method, path, body string) (int, []byte, http.Header) {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("X-Wraith-Session", "one")
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return 0, nil, nil
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b, resp.Header
	}
	if code, b, _ := do("POST", "/user/repos", `{"name":"r"}`); code != 201 {
		t.Fatalf("create repository: %d %s", code, b)
	}
	const writers, writes, readers, reads = 3, 10, 6, 20
	var wg sync.WaitGroup
	numbers := make(chan int, writers*writes)
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range writes {
				code, b, _ := do("POST", "/repos/wraith-user/r/issues", fmt.Sprintf(`{"title":"t%d-%d"}`, g, i))
				var issue struct {
					Number int    `json:"number"`
					Title  string `json:"title"`
				}
				json.Unmarshal(b, &issue)
				if code != 201 || issue.Title != fmt.Sprintf("t%d-%d", g, i) {
					t.Errorf("create issue: want 201 t%d-%d, have %d %s", g, i, code, b)
					return
				}
				numbers <- issue.Number
			}
		}()
	}
	for g := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range reads {
				if (g+i)%2 == 0 {
					code, b, h := do("GET", "/repos/wraith-user/r/issues?per_page=2", "")
					var page []struct {
						Number int `json:"number"`
					}
					err := json.Unmarshal(b, &page)
					if code != 200 || err != nil || len(page) > 2 || len(page) == 2 && page[0].Number <= page[1].Number {
						t.Errorf("list issues: want 200 and at most 2, newest first; have %d %s", code, b)
					}
					if l := h.Get("Link"); l != "" && !strings.Contains(l, `rel="next"`) {
						t.Errorf("list issues: the first page's Link names no next page: %q", l)
					}
					continue
				}
				code, b, _ := do("GET", "/repos/wraith-user/r", "")
				if code != 200 || !strings.Contains(string(b), `"full_name":"wraith-user/r"`) {
					t.Errorf("get repository: %d %s", code, b)
				}
			}
		}()
	}
	wg.Wait()
	close(numbers)
	var have []int
	for n := range numbers {
		have = append(have, n)
	}
	slices.Sort(have)
	for i, n := range have {
		if n != i+1 {
			t.Fatalf("issue numbers: want 1 to %d once each, have %v", writers*writes, have)
		}
	}
}
