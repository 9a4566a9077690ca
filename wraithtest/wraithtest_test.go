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
		if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") || srv.Twin != "checkout" || !strings.HasPrefix(srv.Digest, "sha256:") {
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
