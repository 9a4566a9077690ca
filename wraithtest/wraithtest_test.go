package wraithtest_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/wraithdev/wraith/wraithtest"
)

// get sends GET path with c and returns the status, the provenance and the
// body.
func get(tb testing.TB, c *http.Client, base, path string) (int, string, []byte) {
	tb.Helper()
	resp, err := c.Get(base + path)
	if err != nil {
		tb.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatalf("GET %s: %v", path, err)
	}
	return resp.StatusCode, resp.Header.Get("X-Wraith-Provenance"), b
}

// createCustomer creates a customer in c's session and returns its id.
func createCustomer(tb testing.TB, c *http.Client, base, name string) string {
	tb.Helper()
	resp, err := c.PostForm(base+"/v1/customers", url.Values{"name": {name}})
	if err != nil {
		tb.Fatalf("create customer: %v", err)
	}
	defer resp.Body.Close()
	var cus struct{ ID string }
	if err := json.NewDecoder(resp.Body).Decode(&cus); err != nil || resp.StatusCode != http.StatusOK || cus.ID == "" {
		tb.Fatalf("create customer: status %d, id %q, err %v", resp.StatusCode, cus.ID, err)
	}
	return cus.ID
}

func TestStartServesUntilCleanup(t *testing.T) {
	var base string
	t.Run("serve", func(t *testing.T) {
		srv := wraithtest.Start(t, "checkout", wraithtest.Seed(42))
		base = srv.URL
		if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") || srv.Twin != "checkout" || !strings.HasPrefix(srv.TwinDigest, "sha256:") {
			t.Errorf("want a checkout twin on 127.0.0.1, have %s", srv)
		}
		status, prov, _ := get(t, srv.Client(), srv.URL, "/v1/customers/cus_123")
		if status != http.StatusOK || prov != "recorded" {
			t.Errorf("GET cus_123: want 200 recorded, have %d %q", status, prov)
		}
	})
	// The subtest's cleanup stopped the server.
	if resp, err := http.Get(base + "/__wraith/health"); err == nil {
		resp.Body.Close()
		t.Errorf("after the test ended, %s still answers %s", base, resp.Status)
	}
}

// TestCloseWaitsForInFlight: a request whose body is still arriving when
// Close is called gets its answer, and Close returns only after it.
func TestCloseWaitsForInFlight(t *testing.T) {
	srv, err := wraithtest.New("checkout")
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/customers", pr)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	type answer struct {
		status int
		err    error
	}
	answered := make(chan answer, 1)
	go func() {
		resp, err := srv.Session("in-flight").Do(req)
		if err != nil {
			answered <- answer{err: err}
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		answered <- answer{status: resp.StatusCode}
	}()
	if _, err := pw.Write([]byte("name=half")); err != nil {
		t.Fatal(err)
	}
	// The first bytes arrived: wait until the server counts the request.
	waitFor(t, "the in-flight request to be counted", func() bool {
		list, err := srv.Sessions()
		return err == nil && len(list) > 0
	})
	closed := make(chan error, 1)
	go func() { closed <- srv.Close() }()
	// Close has begun once new connections are refused.
	waitFor(t, "the server to stop accepting", func() bool {
		resp, err := http.Get(srv.URL + "/__wraith/health")
		if err == nil {
			resp.Body.Close()
		}
		return err != nil
	})
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) while a request was in flight", err)
	default:
	}
	pw.Write([]byte("&description=done"))
	pw.Close()
	if a := <-answered; a.err != nil || a.status != http.StatusOK {
		t.Errorf("in-flight request: want 200, have %d, %v", a.status, a.err)
	}
	if err := <-closed; err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := srv.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// waitFor polls cond until it holds or 10 s pass.
func waitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestSessionClientsAreIsolated(t *testing.T) {
	srv := wraithtest.Start(t, "checkout", wraithtest.Seed(7), wraithtest.Flags("--unknown-entity", "not_found"))
	a, b := srv.Session("agent-a"), srv.Session("agent-b")
	id := createCustomer(t, a, srv.URL, "Ada")
	if status, prov, _ := get(t, a, srv.URL, "/v1/customers/"+id); status != http.StatusOK || prov != "handler" {
		t.Errorf("agent-a reads its customer: want 200 handler, have %d %q", status, prov)
	}
	if status, prov, _ := get(t, b, srv.URL, "/v1/customers/"+id); status != http.StatusNotFound || prov != "miss" {
		t.Errorf("agent-b reads agent-a's customer: want 404 miss, have %d %q", status, prov)
	}
	// The client sets the header on a copy; the caller's request is untouched.
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/customers/"+id, nil)
	req.Header.Set("X-Wraith-Session", "agent-b")
	resp, err := a.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if have := resp.Header.Get("X-Wraith-Session"); have != "agent-a" {
		t.Errorf("answer's session: want agent-a, have %q", have)
	}
	if have := req.Header.Get("X-Wraith-Session"); have != "agent-b" {
		t.Errorf("caller's request header: want agent-b kept, have %q", have)
	}
	list, err := srv.Sessions()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, s := range list {
		names[s.Session] = true
	}
	if !names["agent-a"] || !names["agent-b"] || names["default"] {
		t.Errorf("sessions: want agent-a and agent-b (no default), have %v", names)
	}
}

func TestProvisionAndReset(t *testing.T) {
	srv := wraithtest.Start(t, "checkout")
	p, err := srv.Provision("graded", wraithtest.Seed(42), wraithtest.Fixture("baseline"), wraithtest.Clock("deterministic", 1700000000))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Created || p.Seed != 42 || p.Fixture == nil || *p.Fixture != "checkout:baseline" || p.Clock.Mode != "deterministic" || p.Clock.BaseEpoch == nil || *p.Clock.BaseEpoch != 1700000000 {
		t.Errorf("provisioned: have %+v", p)
	}
	again, err := srv.Provision("graded", wraithtest.Seed(42), wraithtest.Fixture("baseline"), wraithtest.Clock("deterministic", 1700000000))
	if err != nil || again.Created {
		t.Errorf("provisioning alike again: want success, not created; have created=%v, %v", again.Created, err)
	}
	_, err = srv.Provision("graded", wraithtest.Seed(43))
	var we *wraithtest.Error
	if !errors.As(err, &we) || we.Code != "session-provision-conflict" || we.Status != http.StatusConflict {
		t.Errorf("provisioning differently: want 409 session-provision-conflict, have %v", err)
	}

	c := srv.Session("graded")
	first := createCustomer(t, c, srv.URL, "Grace")
	if _, err := srv.Reset("graded"); err != nil {
		t.Fatal(err)
	}
	if _, prov, _ := get(t, c, srv.URL, "/v1/customers/"+first); prov == "handler" {
		t.Errorf("after Reset, the created customer %s is still served by the handler", first)
	}
	if again := createCustomer(t, c, srv.URL, "Grace"); again != first {
		t.Errorf("after Reset the id generator starts over: want %s again, have %s", first, again)
	}

	_, err = srv.Reset("nobody")
	if !errors.As(err, &we) || we.Code != "session-not-found" {
		t.Errorf("Reset of an absent session: want session-not-found, have %v", err)
	}
}

func TestOptionMistakes(t *testing.T) {
	srv := wraithtest.Start(t, "checkout")
	tests := []struct {
		name string
		run  func() error
		want string
	}{
		{"unknown twin", func() error { _, err := wraithtest.New("no-such-twin"); return err }, "no-such-twin"},
		{"bad flag value", func() error { _, err := wraithtest.New("checkout", wraithtest.Flags("--clock", "sundial")); return err }, "--clock"},
		{"positional in Flags", func() error { _, err := wraithtest.New("checkout", wraithtest.Flags("billing")); return err }, "not a flag"},
		{"unknown fixture", func() error { _, err := wraithtest.New("checkout", wraithtest.Fixture("nope")); return err }, "nope"},
		{"real clock with epoch", func() error { _, err := wraithtest.New("checkout", wraithtest.Clock("real", 5)); return err }, "real clock has no base epoch"},
		{"serve option to Provision", func() error { _, err := srv.Provision("x", wraithtest.Flags("--debug")); return err }, "Flags configures the server"},
		{"unknown fixture in Provision", func() error { _, err := srv.Provision("x", wraithtest.Fixture("nope")); return err }, "fixture-not-found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.run()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("want an error mentioning %q, have %v", tt.want, err)
			}
		})
	}
}

// errCode is the control-plane code of err, or "" when err is not an
// *Error.
func errCode(err error) string {
	var we *wraithtest.Error
	if errors.As(err, &we) {
		return we.Code
	}
	return ""
}

func TestDigestJournalDiff(t *testing.T) {
	srv := wraithtest.Start(t, "checkout", wraithtest.Seed(3), wraithtest.Clock("deterministic", 1700000000))
	for _, name := range []string{"agent", "gold"} {
		if _, err := srv.Provision(name, wraithtest.Fixture("baseline")); err != nil {
			t.Fatal(err)
		}
	}
	agent, gold := srv.Session("agent"), srv.Session("gold")
	before, err := srv.Digest("agent")
	if err != nil || !strings.HasPrefix(before, "sha256:") {
		t.Fatalf("Digest of a provisioned session: want sha256:..., have %q, %v", before, err)
	}
	if before == srv.TwinDigest {
		t.Errorf("a session's digest is its world's, not the twin's: both are %s", before)
	}
	id := createCustomer(t, agent, srv.URL, "Ada")
	get(t, agent, srv.URL, "/v1/customers/cus_123")
	createCustomer(t, gold, srv.URL, "Ada")

	a, err := srv.Digest("agent")
	if err != nil {
		t.Fatal(err)
	}
	g, err := srv.Digest("gold")
	if err != nil {
		t.Fatal(err)
	}
	if a != g || a == before {
		t.Errorf("after the same write (and a read) in both: want equal digests that moved from %s; have agent %s, gold %s", before, a, g)
	}
	createCustomer(t, gold, srv.URL, "Bob")
	if g2, _ := srv.Digest("gold"); g2 == a {
		t.Errorf("gold created one more customer, yet its digest equals agent's: %s", g2)
	}

	journal, err := srv.Journal("agent")
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		index             int64
		method, path      string
		route, provenance string
		status            int
		exchange          bool
	}
	want := []step{
		{0, "POST", "/v1/customers", "POST /v1/customers", "handler", 200, false},
		{1, "GET", "/v1/customers/cus_123", "GET /v1/customers/{id}", "recorded", 200, true},
	}
	if len(journal) != len(want) {
		t.Fatalf("journal: want %d entries, have %+v", len(want), journal)
	}
	for i, w := range want {
		e := journal[i]
		have := step{e.Index, e.Method, e.Path, e.Route, e.Provenance, e.Status, e.Exchange != ""}
		if have != w {
			t.Errorf("journal[%d]: want %+v, have %+v", i, w, have)
		}
		if e.At.Before(time.Unix(1700000000, 0)) || e.At.After(time.Unix(1700000010, 0)) {
			t.Errorf("journal[%d].At: want the session clock, from 1700000000; have %s", i, e.At)
		}
	}

	har, err := srv.HAR("agent")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Log struct {
			Version string
			Entries []struct{ Request struct{ Method, URL string } }
		}
	}
	if err := json.Unmarshal(har, &doc); err != nil || doc.Log.Version != "1.2" || len(doc.Log.Entries) != 2 || doc.Log.Entries[1].Request.Method != "GET" {
		t.Errorf("HAR: want version 1.2 with the journal's 2 entries, have %+v (%v)", doc.Log, err)
	}

	diff, err := srv.Diff("agent")
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ ID, Name string }
	if len(diff.Created) != 1 || json.Unmarshal(diff.Created[0], &created) != nil || created.ID != id || len(diff.Updated)+len(diff.Deleted) != 0 {
		t.Errorf("Diff: want customer %s created and nothing else, have %+v", id, diff)
	}

	for what, call := range map[string]func() error{
		"Digest":   func() error { _, err := srv.Digest("nobody"); return err },
		"Journal":  func() error { _, err := srv.Journal("nobody"); return err },
		"HAR":      func() error { _, err := srv.HAR("nobody"); return err },
		"Diff":     func() error { _, err := srv.Diff("nobody"); return err },
		"Fork":     func() error { _, err := srv.Fork("nobody", "copy"); return err },
		"Snapshot": func() error { _, err := srv.Snapshot("nobody"); return err },
	} {
		if err := call(); errCode(err) != "session-not-found" {
			t.Errorf("%s of an absent session: want session-not-found, have %v", what, err)
		}
	}
	list, _ := srv.Sessions()
	for _, s := range list {
		if s.Session == "nobody" {
			t.Errorf("asking about an absent session created it")
		}
	}
}

func TestForkSnapshotRestore(t *testing.T) {
	srv := wraithtest.Start(t, "checkout", wraithtest.Seed(9), wraithtest.Clock("fixed", 1700000000))
	src := srv.Session("src")
	createCustomer(t, src, srv.URL, "Ada")
	n, err := srv.Fork("src", "copy")
	if err != nil {
		t.Fatal(err)
	}
	if n < 1 {
		t.Errorf("Fork: want the source's entities (at least Ada), have %d", n)
	}
	if j, err := srv.Journal("copy"); err != nil || len(j) != 0 {
		t.Errorf("a fork's journal starts empty: have %d entries, %v", len(j), err)
	}
	if _, err := srv.Fork("src", "copy"); errCode(err) != "session-exists" {
		t.Errorf("Fork onto an existing session: want session-exists, have %v", err)
	}
	copyClient := srv.Session("copy")
	if a, b := createCustomer(t, src, srv.URL, "Bob"), createCustomer(t, copyClient, srv.URL, "Bob"); a != b {
		t.Errorf("the same write to a session and its fork: want the same id, have %s and %s", a, b)
	}
	ds, _ := srv.Digest("src")
	if dc, _ := srv.Digest("copy"); dc != ds {
		t.Errorf("after the same writes: want equal digests, have src %s, copy %s", ds, dc)
	}
	createCustomer(t, copyClient, srv.URL, "Cy")
	if again, _ := srv.Digest("src"); again != ds {
		t.Errorf("a write to the fork changed the source's digest: %s, then %s", ds, again)
	}

	snap, err := srv.Snapshot("src")
	if err != nil {
		t.Fatal(err)
	}
	other := wraithtest.Start(t, "checkout")
	d, err := other.Restore("moved", snap)
	if err != nil {
		t.Fatal(err)
	}
	if d != ds {
		t.Errorf("Restore: want the source's digest %s, have %s", ds, d)
	}
	if a, b := createCustomer(t, src, srv.URL, "Dee"), createCustomer(t, other.Session("moved"), other.URL, "Dee"); a != b {
		t.Errorf("the next write after a snapshot round trip: want the same id, have %s and %s", a, b)
	}
	if _, err := other.Restore("moved", snap); errCode(err) != "session-exists" {
		t.Errorf("Restore onto an existing session: want session-exists, have %v", err)
	}
	billing := wraithtest.Start(t, "billing")
	if _, err := billing.Restore("moved", snap); errCode(err) != "snapshot-twin-mismatch" {
		t.Errorf("Restore of a checkout snapshot into billing: want snapshot-twin-mismatch, have %v", err)
	}
}
