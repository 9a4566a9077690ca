package server

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/session"
)

// holdSession holds the named session's lock, as a long request of that
// session would, until the returned release is called.
func holdSession(tb testing.TB, srv *Server, name string) (release func()) {
	tb.Helper()
	s := srv.Engine().Store().Get(name)
	if s == nil {
		tb.Fatalf("no session %s", name)
	}
	held, done, free := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		s.Do(func(*session.State) {
			close(held)
			<-free
		})
	}()
	<-held
	var once bool
	release = func() {
		if !once {
			once = true
			close(free)
			<-done
		}
	}
	tb.Cleanup(release)
	return release
}

// waitUntil polls cond until it holds or 10 s pass.
func waitUntil(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("after 10 s: %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// quick sends a control call that must answer within 5 s.
func quick(tb testing.TB, base, method, path, body string) (int, string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, base+path, strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("%s %s while another session is busy: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestBusySessionHoldsUpNoOne: while one session is busy, a fork of it
// waits for it without holding up other sessions' creation and deletion,
// gives up when its client does, and completes once the session is free;
// a metrics scrape does not wait for it either.
func TestBusySessionHoldsUpNoOne(t *testing.T) {
	srv := startServer(t, "checkout")
	base := srv.URL()
	provisionDet(t, base, "busy")
	provisionDet(t, base, "doomed")
	release := holdSession(t, srv, "busy")
	busy := srv.Engine().Store().Get("busy")

	if code, body := quick(t, base, "GET", "/__wraith/metrics", ""); code != 200 || !strings.Contains(body, "wraith_entities ") {
		t.Errorf("metrics while a session is busy: %d %s", code, body)
	}

	// A fork whose client gives up.
	ctx, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", base+"/__wraith/session/busy/fork", strings.NewReader(`{"session":"gone"}`))
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		gaveUp <- err
	}()
	waitUntil(t, "the first fork waits for the busy session", func() bool { return busy.Waiting() == 1 })
	cancel()
	<-gaveUp
	waitUntil(t, "the abandoned fork stops waiting", func() bool { return busy.Waiting() == 0 })

	// A fork that waits, while the store serves everyone else.
	forked := make(chan int, 1)
	go func() {
		resp, err := http.Post(base+"/__wraith/session/busy/fork", "application/json", strings.NewReader(`{"session":"copy"}`))
		if err != nil {
			forked <- 0
			return
		}
		resp.Body.Close()
		forked <- resp.StatusCode
	}()
	waitUntil(t, "the fork waits for the busy session", func() bool { return busy.Waiting() == 1 })
	if code, body := quick(t, base, "POST", "/__wraith/session", `{"session":"newcomer"}`); code != 201 {
		t.Errorf("provisioning while a fork waits: want 201, have %d %s", code, body)
	}
	if code, body := quick(t, base, "DELETE", "/__wraith/session/doomed", ""); code != 200 {
		t.Errorf("delete while a fork waits: want 200, have %d %s", code, body)
	}
	if code, body := quick(t, base, "POST", "/v1/customers", "description=x"); code != 200 {
		t.Errorf("a request of the default session while a fork waits: want 200, have %d %s", code, body)
	}
	release()
	if code := <-forked; code != 201 {
		t.Errorf("the fork after the session was freed: want 201, have %d", code)
	}
	if srv.Engine().Store().Get("gone") != nil {
		t.Error("the abandoned fork was stored")
	}
}
