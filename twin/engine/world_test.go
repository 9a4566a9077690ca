package engine_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/engine"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/scrub"
	"github.com/wraithdev/wraith/twin/session"
)

// ledger is the toy dialect with behaviour: every widget created writes a
// note (an entity of another resource) through the session's World and
// queues a delivery; every whole day the session's clock passes writes a
// "day" note (Ticker). No provider speaks it.
type ledger struct{ toy }

var (
	_ dialect.Handler = ledger{}
	_ dialect.Ticker  = ledger{}
)

func (ledger) Handles(string) bool { return false }
func (ledger) Handle(*dialect.Call) (dialect.Answer, bool) {
	return dialect.Answer{}, false
}
func (ledger) Follows(route string) bool { return route == "POST /widgets" }

func (ledger) Answered(c *dialect.Call, status int, body []byte) []byte {
	var made struct{ ID, Label string }
	if json.Unmarshal(body, &made) != nil {
		return nil
	}
	note(c.World, "made "+made.Label)
	c.World.Deliver(dialect.Delivery{URL: "http://127.0.0.1:1/hook", Event: made.ID, Body: body})
	// The widget's id names a widget: the World keeps no note under it.
	if c.World.Put("note", made.ID, []byte(`{"id":"`+made.ID+`","text":"a widget?"}`)) == nil {
		return append(body[:len(body)-1:len(body)-1], `,"noted":true,"moved":true}`...)
	}
	return append(body[:len(body)-1:len(body)-1], `,"noted":true}`...)
}

func (ledger) Tick(w dialect.World, from, to int64) {
	for day := from/86400 + 1; day <= to/86400; day++ {
		note(w, "day "+strconv.FormatInt(day, 10))
	}
}

// note keeps a note entity saying what.
func note(w dialect.World, what string) {
	o, err := w.New("note")
	if err != nil {
		panic(err)
	}
	var n map[string]any
	if err := json.Unmarshal(o.AppendJSON(nil), &n); err != nil {
		panic(err)
	}
	n["text"] = what
	b, _ := json.Marshal(n)
	if err := w.Put("note", n["id"].(string), b); err != nil {
		panic(err)
	}
}

// delivered records what the engine hands its Deliverer.
type delivered struct {
	mu  sync.Mutex
	got []string
}

func (d *delivered) Deliver(sess *session.Session, ds []dialect.Delivery) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, x := range ds {
		d.got = append(d.got, sess.Name()+" "+x.Event)
	}
}

func (d *delivered) Due(*session.Session, int64) {}

const ledgerTwin = toyTwin + `
[[resources]]
name = "note"
collection = "/notes"
item = "/notes/{id}"
id_prefix = "note"
timestamps = ["at"]
skeleton = '{"id":"","at":0,"text":""}'
omit = ["create", "update"]
`

// TestDialectWorld: a dialect's behaviour changes entities beside the
// request's own through the World, inside the request's idempotency (a
// repeated key makes no second note), its deliveries reach the Deliverer
// once the request is answered, and Engine.Tick runs what a moved clock
// made due, in the session alone.
func TestDialectWorld(t *testing.T) {
	tw, err := format.Load(fstest.MapFS{"twin.toml": {Data: []byte(ledgerTwin)}}, "toys")
	if err != nil {
		t.Fatal(err)
	}
	hooks := &delivered{}
	e, err := engine.New(tw, engine.Options{
		Dialect:  ledger{},
		Webhooks: hooks,
		Defaults: session.Settings{Seed: 1, Clock: session.Clock{Mode: session.ClockDeterministic, BaseEpoch: 1700000000, Step: time.Second}},
		Scrubber: scrub.New(scrub.DeriveKey([]byte(tw.Digest)), scrub.Policy{}),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e)
	defer srv.Close()
	send := func(sess, method, path, form, key string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(form))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Wraith-Session", sess)
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	notes := func(sess string) []string {
		t.Helper()
		status, body := send(sess, "GET", "/notes?size=10", "", "")
		var page struct{ Items []struct{ Text string } }
		if status != 200 || json.Unmarshal([]byte(body), &page) != nil {
			t.Fatalf("GET /notes in %s: %d %s", sess, status, body)
		}
		var out []string
		for _, n := range page.Items {
			out = append(out, n.Text)
		}
		return out
	}

	first, firstBody := send("a", "POST", "/widgets", "label=cog", "k1")
	again, againBody := send("a", "POST", "/widgets", "label=cog", "k1")
	if first != 201 || again != 201 || firstBody != againBody || !strings.HasSuffix(firstBody, `"noted":true}`) {
		t.Fatalf("create twice with one key: want 201 twice, the same body completed by the dialect; have %d %s, %d %s", first, firstBody, again, againBody)
	}
	if have, want := strings.Join(notes("a"), ","), "made cog"; have != want {
		t.Errorf("notes after a replayed create: want %q, have %q", want, have)
	}
	if have := notes("b"); len(have) != 0 {
		t.Errorf("notes of another session: want none, have %q", have)
	}
	hooks.mu.Lock()
	if have, want := strings.Join(hooks.got, ","), "a wid-0001"; have != want {
		t.Errorf("deliveries: want %q (one, for the request that ran), have %q", want, have)
	}
	hooks.mu.Unlock()

	sess, err := e.Session("a")
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Do(func(st *session.State) {
		from := st.Now(time.Now)
		st.Advance(2 * 86400)
		e.Tick(st, from, st.Now(time.Now))
	}); err != nil {
		t.Fatal(err)
	}
	if have, want := strings.Join(notes("a"), ","), "day 19677,day 19676,made cog"; have != want {
		t.Errorf("notes after two days: want %q (newest first), have %q", want, have)
	}
}
