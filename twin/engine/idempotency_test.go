package engine

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/session"
)

// TestIdempotencyKeyLength: a POST whose Idempotency-Key is longer than
// Stripe's 255 characters is refused with 400 in the provider's
// invalid-request shape, before anything is created or remembered; a key
// of 255 is remembered and replayed. On the old code a 60 KB key was
// accepted, and its session's cache held about 100 KB for it.
func TestIdempotencyKeyLength(t *testing.T) {
	tests := []struct {
		name   string
		method string
		key    string
		status int
		kept   int // keys the session remembers after the request
	}{
		{"255 characters", "POST", strings.Repeat("k", 255), http.StatusOK, 1},
		{"256 characters", "POST", strings.Repeat("k", 256), http.StatusBadRequest, 0},
		{"60 KB", "POST", strings.Repeat("k", 60<<10), http.StatusBadRequest, 0},
		{"a GET carries no key the twin keeps", "GET", strings.Repeat("k", 60<<10), http.StatusOK, 0},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newCheckout(t, Options{})
			url := httpTwin(t, e)
			name := fmt.Sprint("idem", i)
			h := sessionHeader(name)
			h["Idempotency-Key"] = []string{tt.key}
			body := ""
			if tt.method == "POST" {
				body = "description=x"
			}
			rep := send(t, context.Background(), tt.method, url+"/v1/customers", formType, body, h)
			if rep.status != tt.status {
				t.Fatalf("want %d, have %d %s", tt.status, rep.status, rep.body)
			}
			var kept, entities int
			e.Store().Get(name).Do(func(st *session.State) { kept, entities = st.ReplayCount(), st.ChangeCount() })
			if kept != tt.kept {
				t.Errorf("keys remembered: want %d, have %d", tt.kept, kept)
			}
			if rep.status != http.StatusBadRequest {
				return
			}
			errObj, _ := rep.json["error"].(map[string]any)
			if errObj["type"] != "invalid_request_error" || !strings.Contains(fmt.Sprint(errObj["message"]), "Invalid Idempotency-Key: the key must be at most 255 characters long") {
				t.Errorf("want Stripe's invalid_request_error naming the 255-character limit, have %s", rep.body)
			}
			if have := rep.header.Get("X-Wraith-Limit"); have != "idempotency-key-too-long" {
				t.Errorf("X-Wraith-Limit: want idempotency-key-too-long, have %q", have)
			}
			if entities != 0 {
				t.Errorf("a refused create made %d entities", entities)
			}
		})
	}
}

// TestIdempotencyCacheIsAccounted: what a session's idempotency cache
// holds is in the store's memory account, and leaves it when the session
// is reset or deleted.
func TestIdempotencyCacheIsAccounted(t *testing.T) {
	e := newCheckout(t, Options{})
	url := httpTwin(t, e)
	mem := e.Store().Memory()
	for _, sess := range []string{"a", "b"} {
		for i := range 3 {
			h := sessionHeader(sess)
			h["Idempotency-Key"] = []string{fmt.Sprint("key-", i)}
			if rep := send(t, context.Background(), "POST", url+"/v1/customers", formType, "description=x", h); rep.status != http.StatusOK {
				t.Fatalf("create: %d %s", rep.status, rep.body)
			}
		}
	}
	full := mem.Idempotency()
	if full <= 0 {
		t.Fatalf("six remembered keys: want their bytes accounted, have %d", full)
	}
	e.Store().Get("a").Reset()
	if have := mem.Idempotency(); have <= 0 || have >= full {
		t.Errorf("after a reset of one of two sessions: want about half of %d, have %d", full, have)
	}
	e.Store().Delete("b")
	if have := mem.Idempotency(); have != 0 {
		t.Errorf("after the reset and a delete: want 0 bytes, have %d", have)
	}
}
