package engine_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/engine"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/scrub"
)

// herald is the toy dialect that follows no route: all it hears of is
// what the twin declares as events, each noted as "EVENT ROUTE STATUS
// BEFORE?" (the entity before the write, for those that change one).
type herald struct {
	toy
	mu    *sync.Mutex
	heard *[]string
}

func (herald) Handles(string) bool                         { return false }
func (herald) Handle(*dialect.Call) (dialect.Answer, bool) { return dialect.Answer{}, false }
func (herald) Follows(string) bool                         { return false }

func (h herald) Answered(c *dialect.Call, status int, body []byte) []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	*h.heard = append(*h.heard, fmt.Sprintf("%s %s %d before=%t world=%t", c.Event, c.Route, status, c.Before != nil, c.World != nil))
	return nil
}

// heraldTwin's widgets declare an event for each write; its gadgets
// declare none.
const heraldTwin = `format = 1
name = "toys"

[[resources]]
name = "widget"
collection = "/widgets"
item = "/widgets/{id}"
id_prefix = "wid"
required = ["label"]
skeleton = '{"id":"","label":"","status":"open"}'
[[resources.actions]]
name = "close"
from = ["open"]
[[resources.actions.rules]]
set = { status = "closed" }
[[resources.actions]]
name = "polish"
[resources.events]
create = "widget.created"
update = "widget.updated"
delete = "widget.deleted"
actions = { close = "widget.closed" }

[[resources]]
name = "gadget"
collection = "/gadgets"
item = "/gadgets/{id}"
id_prefix = "gad"
skeleton = '{"id":"","label":""}'
`

// TestDeclaredEventsReachAnswered: each 2xx write of a resource that
// declares an event reaches the dialect's Answered with that event,
// though the dialect follows no route; a refused write, a replayed one,
// an action without an event and a resource without events do not.
func TestDeclaredEventsReachAnswered(t *testing.T) {
	tw, err := format.Load(fstest.MapFS{"twin.toml": {Data: []byte(heraldTwin)}}, "toys")
	if err != nil {
		t.Fatal(err)
	}
	h := herald{toy: toy{}, mu: &sync.Mutex{}, heard: new([]string)}
	e, err := engine.New(tw, engine.Options{
		Dialect:  h,
		Scrubber: scrub.New(scrub.DeriveKey([]byte(tw.Digest)), scrub.Policy{}),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e)
	defer srv.Close()
	send := func(method, path, form, key string) int {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(form))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Wraith-Session", "s")
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode
	}
	steps := []struct {
		method, path, form, key string
		status                  int
	}{
		{"POST", "/widgets", "label=cog", "k1", 201},
		{"POST", "/widgets", "label=cog", "k1", 201}, // replayed: the first answer, no second event
		{"POST", "/widgets", "", "", 422},            // refused: no label
		{"POST", "/widgets/wid-0001", "label=gear", "", 200},
		{"POST", "/widgets/wid-0001/polish", "", "", 200}, // an action that declares no event
		{"POST", "/widgets/wid-0001/close", "", "", 200},
		{"POST", "/widgets/wid-0001/close", "", "", 400}, // closed already: refused by from
		{"POST", "/gadgets", "label=g", "", 201},         // a resource without events
		{"POST", "/gadgets/gad-0002", "label=h", "", 200},
		{"DELETE", "/widgets/wid-0001", "", "", 204},
	}
	for i, s := range steps {
		if have := send(s.method, s.path, s.form, s.key); have != s.status {
			t.Fatalf("step %d, %s %s: want %d, have %d", i, s.method, s.path, s.status, have)
		}
	}
	want := []string{
		"widget.created POST /widgets 201 before=false world=true",
		"widget.updated POST /widgets/{id} 200 before=true world=true",
		"widget.closed POST /widgets/{id}/close 200 before=true world=true",
		"widget.deleted DELETE /widgets/{id} 204 before=true world=true",
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if have := *h.heard; strings.Join(have, "\n") != strings.Join(want, "\n") {
		t.Errorf("Answered heard:\nwant %s\nhave %s", strings.Join(want, "\n"), strings.Join(have, "\n"))
	}
}
