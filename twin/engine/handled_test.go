package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
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

// tally is the toy dialect with state of its own: named counters kept in
// a session's attachment, answered by GET and POST /tallies/{name}, and a
// count of the widgets the engine created, which it learns through
// Answered. No provider speaks it.
type tally struct{ toy }

type tallies struct {
	mu sync.Mutex
	n  map[string]int
}

func (t *tallies) Fork() dialect.Attachment {
	t.mu.Lock()
	defer t.mu.Unlock()
	return &tallies{n: maps.Clone(t.n)}
}
func (t *tallies) Snapshot() ([]byte, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return json.Marshal(t.n)
}
func (t *tallies) Size() int64 { return int64(16 * len(t.n)) }

func (tally) NewAttachment() dialect.Attachment { return &tallies{n: map[string]int{}} }
func (tally) RestoreAttachment(b []byte) (dialect.Attachment, error) {
	t := &tallies{}
	return t, json.Unmarshal(b, &t.n)
}

func (tally) Handles(route string) bool { return strings.Contains(route, "/tallies/") }

func (tally) Handle(c *dialect.Call) (dialect.Answer, bool) {
	name := c.Path("name")
	if name == "declined" {
		return dialect.Answer{}, false
	}
	if c.Method == http.MethodGet {
		t, _ := c.Attachment.(*tallies)
		if t == nil {
			return dialect.Answer{Status: http.StatusNotFound, Body: []byte(`{"toy":{"missing":"` + name + `"}}`)}, true
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		return dialect.Answer{Status: http.StatusOK, Body: fmt.Appendf(nil, `{"name":%q,"count":%d}`, name, t.n[name])}, true
	}
	t := c.Attach().(*tallies)
	by := 1
	if v, ok := c.Params["by"].(string); ok {
		fmt.Sscan(v, &by)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n[name] += by
	return dialect.Answer{Status: http.StatusOK, Body: fmt.Appendf(nil, `{"name":%q,"count":%d}`, name, t.n[name]), Changed: true}, true
}

// A Handler missing a method would be none, silently: the engine asserts.
var _ dialect.Handler = tally{}

func (tally) Follows(route string) bool {
	return route == "POST /widgets/{id}" || route == "POST /widgets"
}

func (tally) Answered(c *dialect.Call, status int, body []byte) []byte {
	if c.Route != "POST /widgets/{id}" || status != http.StatusOK {
		if c.Route == "POST /widgets" && status == http.StatusCreated {
			t := c.Attach().(*tallies)
			t.mu.Lock()
			t.n["widgets"]++
			t.mu.Unlock()
		}
		return nil
	}
	// An update's answer is completed with the widget as the session
	// holds it, read through Entity: the same body, marked.
	return append(append([]byte(`{"stored":`), c.Entity("widget")...), '}')
}

const tallyTwin = toyTwin + `
[[routes]]
method = "GET"
path = "/tallies/{name}"
body = '{"name":"","count":0}'

[[routes]]
method = "POST"
path = "/tallies/{name}"
body = '{"name":"","count":0}'
`

// TestDialectHandler serves routes a dialect answers from its own
// per-session state: answers come from the dialect (provenance handler)
// unless it declines, a read of a session that never wrote finds no
// state, the engine's own creates reach the dialect, and a fork's state
// diverges from its source's.
func TestDialectHandler(t *testing.T) {
	tw, err := format.Load(fstest.MapFS{"twin.toml": {Data: []byte(tallyTwin)}}, "toys")
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(tw, engine.Options{
		Dialect:  tally{},
		Scrubber: scrub.New(scrub.DeriveKey([]byte(tw.Digest)), scrub.Policy{}),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e)
	defer srv.Close()
	send := func(sess, method, path, form string) (int, string, string) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(form))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Wraith-Session", sess)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(b), resp.Header.Get("X-Wraith-Provenance")
	}
	type step struct {
		sess, method, path, form string
		status                   int
		want, prov               string
	}
	run := func(steps []step) {
		t.Helper()
		for _, s := range steps {
			status, body, prov := send(s.sess, s.method, s.path, s.form)
			if status != s.status || body != s.want || prov != s.prov {
				t.Errorf("%s %s %s: want %d %s (%s), have %d %s (%s)", s.sess, s.method, s.path, s.status, s.want, s.prov, status, body, prov)
			}
		}
	}
	run([]step{
		{"a", "GET", "/tallies/x", "", 404, `{"toy":{"missing":"x"}}`, "handler"},
		{"a", "POST", "/tallies/x", "by=2", 200, `{"name":"x","count":2}`, "handler"},
		{"a", "POST", "/tallies/x", "", 200, `{"name":"x","count":3}`, "handler"},
		{"a", "GET", "/tallies/x", "", 200, `{"name":"x","count":3}`, "handler"},
		{"a", "GET", "/tallies/declined", "", 200, `{"name":"","count":0}`, "template"},
		{"a", "POST", "/widgets", "label=cog", 201, `{"id":"wid-0001","label":"cog","size":0}`, "handler"},
		{"a", "GET", "/tallies/widgets", "", 200, `{"name":"widgets","count":1}`, "handler"},
		{"a", "POST", "/widgets/wid-0001", "size=3", 200, `{"stored":{"id":"wid-0001","label":"cog","size":3}}`, "handler"},
		{"b", "GET", "/tallies/x", "", 404, `{"toy":{"missing":"x"}}`, "handler"},
	})

	src, err := e.Session("a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Store().Fork(context.Background(), src, "a2"); err != nil {
		t.Fatal(err)
	}
	run([]step{
		{"a2", "POST", "/tallies/x", "by=10", 200, `{"name":"x","count":13}`, "handler"},
		{"a", "GET", "/tallies/x", "", 200, `{"name":"x","count":3}`, "handler"},
		{"a2", "GET", "/tallies/x", "", 200, `{"name":"x","count":13}`, "handler"},
	})
	if err := src.Reset(); err != nil {
		t.Fatal(err)
	}
	run([]step{{"a", "GET", "/tallies/x", "", 404, `{"toy":{"missing":"x"}}`, "handler"}})
}

// TestDialectHandlerMemoryLimit: past --max-memory a write the dialect
// would answer is refused as the engine's own writes are, and reads go on.
func TestDialectHandlerMemoryLimit(t *testing.T) {
	tw, err := format.Load(fstest.MapFS{"twin.toml": {Data: []byte(tallyTwin)}}, "toys")
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(tw, engine.Options{
		Dialect:   tally{},
		MaxMemory: 1, // every heap is past one byte
		Scrubber:  scrub.New(scrub.DeriveKey([]byte(tw.Digest)), scrub.Policy{}),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e)
	defer srv.Close()
	for _, tc := range []struct {
		method string
		status int
	}{{"POST", engine.StatusMemoryFull}, {"GET", http.StatusNotFound}} {
		req, err := http.NewRequest(tc.method, srv.URL+"/tallies/x", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s /tallies/x past --max-memory: want %d, have %d", tc.method, tc.status, resp.StatusCode)
		}
	}
}
