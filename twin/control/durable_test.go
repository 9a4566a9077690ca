package control_test

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/control"
	"github.com/wraithdev/wraith/twin/embedded"
	"github.com/wraithdev/wraith/twin/engine"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/scrub"
	"github.com/wraithdev/wraith/twin/session"
)

// failing is a Persister whose disk goes away when broken is set: every
// change from then on is refused, as --state-dir refuses it.
type failing struct{ broken atomic.Bool }

type refusal struct{ err error }

func (r refusal) Wait() error { return r.err }

func (f *failing) Persist(s *session.Session, c session.Change) session.Ack {
	if !f.broken.Load() {
		return nil
	}
	return refusal{fmt.Errorf("%w: %s %s: the disk is gone", session.ErrNotDurable, s.Name(), c)}
}

// TestStateUnavailable: a control call whose change the state folder
// refused answers 503 state-unavailable, not success, a 500 or a 400.
func TestStateUnavailable(t *testing.T) {
	sub, err := fs.Sub(embedded.FS(), "checkout")
	if err != nil {
		t.Fatal(err)
	}
	tw, err := format.Load(sub, "embedded twin checkout")
	if err != nil {
		t.Fatal(err)
	}
	p := &failing{}
	frozen := func() time.Time { return time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC) }
	eng, err := engine.New(tw, engine.Options{
		Defaults: session.Settings{Clock: session.Clock{Mode: session.ClockDeterministic, Step: time.Second}},
		Scrubber: scrub.New(scrub.DeriveKey([]byte(tw.Digest)), scrub.Policy{}),
		Store:    session.NewStoreWith(session.StoreOptions{Persister: p}),
		Now:      frozen,
	})
	if err != nil {
		t.Fatal(err)
	}
	h := control.New(eng, control.Options{Version: "test", Now: frozen})
	call := func(method, path, body string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(method, path, strings.NewReader(body)))
		return w
	}
	if w := call(http.MethodPost, "/__wraith/session", `{"session":"s"}`); w.Code != http.StatusCreated {
		t.Fatalf("provision: want 201, have %d: %s", w.Code, w.Body)
	}
	snap := call(http.MethodGet, "/__wraith/session/s/snapshot", "")
	if snap.Code != http.StatusOK {
		t.Fatalf("snapshot: want 200, have %d: %s", snap.Code, snap.Body)
	}
	p.broken.Store(true)
	for _, tc := range []struct{ name, method, path, body string }{
		{"reset", http.MethodPost, "/__wraith/session/s/reset", ""},
		{"reset all", http.MethodPost, "/__wraith/reset", ""},
		{"clock", http.MethodPost, "/__wraith/session/s/clock", `{"advance_secs": 60}`},
		{"fork", http.MethodPost, "/__wraith/session/s/fork", `{"session":"f"}`},
		{"restore", http.MethodPut, "/__wraith/session/r/snapshot", snap.Body.String()},
		{"provision", http.MethodPost, "/__wraith/session", `{"session":"n"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := call(tc.method, tc.path, tc.body)
			if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), `"state-unavailable"`) {
				t.Errorf("want 503 state-unavailable, have %d: %s", w.Code, w.Body)
			}
		})
	}
	if p := control.Problem(fmt.Errorf("fork: %w", errors.Join(session.ErrNotDurable))); p.Status() != http.StatusServiceUnavailable {
		t.Errorf("a wrapped ErrNotDurable: want 503, have %d", p.Status())
	}
}
