package engine

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/scrub"
)

// describedTwin is a twin as an API description yields it: no recordings,
// route shapes declared in twin.toml, a DELETE that acts, a client secret.
const describedTwin = `format = 1
name = "described"
provider = "stripe"

[[routes]]
method = "GET"
path = "/v1/balance"
body = '{"object":"balance","available":[]}'

[[routes]]
method = "POST"
path = "/v1/tokens"
status = 201
body = '{"object":"token","id":"tok_x"}'

[[resources]]
name = "subscription"
collection = "/v1/subscriptions"
item = "/v1/subscriptions/{id}"
id_prefix = "sub_"
skeleton = '{"id":"","object":"subscription","status":"active","canceled_at":null,"client_secret":null}'
delete = "action"

[[resources.create]]
set = { client_secret = "$secret" }

[resources.on_delete]
name = "cancel"
from = ["active"]
[[resources.on_delete.rules]]
set = { status = "canceled", canceled_at = "$now" }
`

func newDescribed(tb testing.TB) *Engine {
	tb.Helper()
	return newDescribedWith(tb, "")
}

// newDescribedWith serves describedTwin with more TOML after it.
func newDescribedWith(tb testing.TB, more string) *Engine {
	tb.Helper()
	fsys := fstest.MapFS{"twin.toml": {Data: []byte(describedTwin + more)}}
	tw, err := format.Load(fsys, "described")
	if err != nil {
		tb.Fatal(err)
	}
	e, err := New(tw, Options{Scrubber: scrub.New(scrub.DeriveKey([]byte(tw.Digest)), scrub.Policy{})})
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

func TestRouteBodyIsTheTemplate(t *testing.T) {
	e := newDescribed(t)
	tests := []struct {
		method, path string
		status       int
		body         string
	}{
		{"GET", "/v1/balance", 200, `{"object":"balance","available":[]}`},
		{"POST", "/v1/tokens", 201, `{"object":"token","id":"tok_x"}`},
	}
	for _, tt := range tests {
		w, _ := serve(t, e, tt.method, tt.path, "s", "")
		if w.Code != tt.status || w.Body.String() != tt.body || w.Header().Get("X-Wraith-Provenance") != ProvTemplate {
			t.Errorf("%s %s: want %d %s (template), have %d %s (%s)", tt.method, tt.path, tt.status, tt.body, w.Code, w.Body, w.Header().Get("X-Wraith-Provenance"))
		}
	}
}

func TestDeleteAsAction(t *testing.T) {
	e := newDescribed(t)
	_, sub := serve(t, e, "POST", "/v1/subscriptions", "s", "")
	id, _ := sub["id"].(string)
	if secret, _ := sub["client_secret"].(string); !strings.HasPrefix(secret, id+"_secret_") || len(secret) != len(id)+8+24 {
		t.Errorf("client_secret: want %s_secret_ and 24 characters, have %q", id, secret)
	}
	w, del := serve(t, e, "DELETE", "/v1/subscriptions/"+id, "s", "")
	if w.Code != 200 || del["status"] != "canceled" || del["canceled_at"] == nil || del["id"] != id {
		t.Fatalf("delete: want 200 with status canceled, have %d %s", w.Code, w.Body)
	}
	if w, got := serve(t, e, "GET", "/v1/subscriptions/"+id, "s", ""); w.Code != 200 || got["status"] != "canceled" {
		t.Errorf("read after cancel: want the kept entity, status canceled; have %d %s", w.Code, w.Body)
	}
	if w, _ := serve(t, e, "DELETE", "/v1/subscriptions/"+id, "s", ""); w.Code != 400 {
		t.Errorf("second cancel: want 400 (from active only), have %d %s", w.Code, w.Body)
	}
	_, other := serve(t, e, "POST", "/v1/subscriptions", "t", "")
	if other["client_secret"] != sub["client_secret"] {
		t.Errorf("two sessions alike: want the same secret, have %v and %v", sub["client_secret"], other["client_secret"])
	}
}

func TestDeclaredRouteBesideItem(t *testing.T) {
	e := newDescribedWith(t, `
[[routes]]
method = "GET"
path = "/v1/subscriptions/search"
body = '{"object":"search_result","data":[]}'
`)
	w, m := serve(t, e, "GET", "/v1/subscriptions/search", "s", "")
	if w.Code != 200 || m["object"] != "search_result" || w.Header().Get("X-Wraith-Route") != "GET /v1/subscriptions/search" {
		t.Errorf("want the declared search route, not the item's, have %d %s (%s)", w.Code, w.Body, w.Header().Get("X-Wraith-Route"))
	}
}
