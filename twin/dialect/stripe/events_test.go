package stripe

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
)

// memWorld is a dialect.World in memory, for emit's logic: entities by
// resource in the order kept, ids numbered. The engine's own World is
// driven end to end in twin/server (TestStripeWebhooks*).
type memWorld struct {
	has  map[string]bool
	kept map[string][]*object.Object
	n    int
	now  int64
	out  []dialect.Delivery
}

func newMemWorld(resources ...string) *memWorld {
	w := &memWorld{has: map[string]bool{}, kept: map[string][]*object.Object{}, now: 1_700_000_000}
	for _, r := range resources {
		w.has[r] = true
	}
	return w
}

func (w *memWorld) Has(r string) bool { return w.has[r] }
func (w *memWorld) Get(r, id string) []byte {
	for _, o := range w.kept[r] {
		if o.String("id") == id {
			return o.AppendJSON(nil)
		}
	}
	return nil
}

func (w *memWorld) Each(r string, fn func([]byte) bool) {
	list := w.kept[r]
	for i := len(list) - 1; i >= 0; i-- {
		if !fn(list[i].AppendJSON(nil)) {
			return
		}
	}
}

func (w *memWorld) Newest(r string) []byte {
	list := w.kept[r]
	if len(list) == 0 {
		return nil
	}
	return list[len(list)-1].AppendJSON(nil)
}

func (w *memWorld) New(r string) (*object.Object, error) {
	if !w.has[r] {
		return nil, fmt.Errorf("no %s", r)
	}
	if r == "event" {
		return object.Parse([]byte(`{"account":"","api_version":null,"context":"","created":0,"data":{"object":{}},"id":"` + w.NewID("evt_") + `","livemode":false,"object":"event","pending_webhooks":0,"request":null,"type":""}`))
	}
	return object.Parse([]byte(`{"id":"` + w.NewID(r+"_") + `","object":"` + r + `"}`))
}

func (w *memWorld) Put(r, id string, body []byte) error {
	o, err := object.Parse(body)
	if err != nil {
		return err
	}
	list := w.kept[r]
	for i, cur := range list {
		if cur.String("id") == id {
			list[i] = o
			return nil
		}
	}
	w.kept[r] = append(list, o)
	return nil
}

func (w *memWorld) NewID(prefix string) string { w.n++; return fmt.Sprintf("%s%d", prefix, w.n) }
func (w *memWorld) Now() int64                 { return w.now }
func (w *memWorld) Deliver(d dialect.Delivery) { w.out = append(w.out, d) }

// endpoint keeps an endpoint as POST /v1/webhook_endpoints leaves it.
func (w *memWorld) endpoint(tb testing.TB, status, version string, events ...string) string {
	tb.Helper()
	o := object.New(6)
	id := w.NewID("we_")
	o.Set("id", id)
	o.Set("object", "webhook_endpoint")
	if version == "" {
		o.Set("api_version", nil)
	} else {
		o.Set("api_version", version)
	}
	list := make([]any, len(events))
	for i, e := range events {
		list[i] = e
	}
	o.Set("enabled_events", list)
	o.Set("status", status)
	o.Set("url", "http://127.0.0.1:9/"+id)
	if err := w.Put("webhook_endpoint", id, o.AppendJSON(nil)); err != nil {
		tb.Fatal(err)
	}
	return id
}

func call(header ...string) *dialect.Call {
	h := http.Header{}
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	return &dialect.Call{Header: h}
}

func customer(id string) *object.Object {
	o := object.New(2)
	o.Set("id", id)
	o.Set("object", "customer")
	return o
}

func TestEmitDeliversToTheEndpointsThatListen(t *testing.T) {
	w := newMemWorld("event", "webhook_endpoint")
	all := w.endpoint(t, "enabled", "", "*")
	named := w.endpoint(t, "enabled", "2024-06-20", "customer.created", "charge.refunded")
	w.endpoint(t, "disabled", "", "*")
	w.endpoint(t, "enabled", "", "invoice.paid")
	emit(w, call("Stripe-Version", "2025-03-31.basil", "Idempotency-Key", "k1"), "customer.created", customer("cus_1"), nil)

	var urls []string
	for _, d := range w.out {
		urls = append(urls, strings.TrimPrefix(d.URL, "http://127.0.0.1:9/"))
		if d.Secret != endpointSecret(strings.TrimPrefix(d.URL, "http://127.0.0.1:9/")) || !strings.HasPrefix(d.Secret, "whsec_") {
			t.Errorf("delivery to %s: want the endpoint's secret, have %q", d.URL, d.Secret)
		}
		if have := d.Header.Get("Content-Type"); have != "application/json; charset=utf-8" {
			t.Errorf("delivery to %s: want Stripe's Content-Type, have %q", d.URL, have)
		}
	}
	if want := []string{all, named}; !slices.Equal(urls, want) {
		t.Fatalf("want deliveries to %v (enabled, listening, oldest first), have %v", want, urls)
	}
	ev := decode(w.Get("event", w.out[0].Event))
	for _, tc := range []struct{ field, want string }{
		{"type", `"customer.created"`},
		{"api_version", `"2025-03-31.basil"`}, // the request's version: the account's default
		{"pending_webhooks", `2`},
		{"created", `0`}, // the fake's skeleton; the engine's New sets the session's time
		{"request", `{"id":"req_6","idempotency_key":"k1"}`},
		{"livemode", `false`},
	} {
		v, _ := ev.Get(tc.field)
		if have := string(object.AppendValue(nil, v)); have != tc.want {
			t.Errorf("event %s: want %s, have %s", tc.field, tc.want, have)
		}
	}
	if ev.Has("account") || ev.Has("context") {
		t.Errorf("an event of the twin's single account names no connected account: %s", ev.AppendJSON(nil))
	}
	// Each endpoint gets the event in its own version; only that differs.
	if have := decode(w.out[1].Body).String("api_version"); have != "2024-06-20" {
		t.Errorf("the endpoint created with api_version 2024-06-20 got %q", have)
	}
	if a, b := strings.Replace(string(w.out[1].Body), "2024-06-20", "2025-03-31.basil", 1), string(w.out[0].Body); a != b {
		t.Errorf("the endpoints' bodies differ beyond api_version:\n%s\n%s", a, b)
	}
}

func TestEmitOnTheClockSpeaksTheLastRequestsVersion(t *testing.T) {
	w := newMemWorld("event", "webhook_endpoint")
	w.endpoint(t, "enabled", "", "*")
	emit(w, call("Stripe-Version", "2025-03-31.basil"), "customer.created", customer("cus_1"), nil)
	emit(w, nil, "invoice.created", customer("in_1"), nil)
	ev := decode(w.out[1].Body)
	if ev.String("api_version") != "2025-03-31.basil" {
		t.Errorf("the clock's event: want the version the session's clients speak, have %q", ev.String("api_version"))
	}
	if v, _ := ev.Get("request"); v != nil {
		t.Errorf("the clock's event: want request null, have %v", v)
	}

	fresh := newMemWorld("event", "webhook_endpoint")
	emit(fresh, call("Stripe-Version", "not a version"), "customer.created", customer("cus_1"), nil)
	if have := decode(fresh.Get("event", "evt_1")).String("api_version"); have != defaultAPIVersion {
		t.Errorf("want the twin's own version for a header that is none, have %q", have)
	}
}

func TestEmitWithoutEventsRecordsNothing(t *testing.T) {
	w := newMemWorld("webhook_endpoint") // a recorded twin that has no events
	w.endpoint(t, "enabled", "", "*")
	emit(w, call(), "customer.created", customer("cus_1"), nil)
	if len(w.out) != 0 || len(w.kept["event"]) != 0 {
		t.Fatalf("want no event and no delivery, have %d and %d", len(w.kept["event"]), len(w.out))
	}
}

func TestUpdatedNamesWhatChanged(t *testing.T) {
	w := newMemWorld("event", "customer")
	before := customer("cus_1")
	before.Set("email", "a@example.com")
	before.Set("name", "A")
	emit(w, call(), "customer.created", before, nil)
	after := customer("cus_1")
	after.Set("email", "b@example.com")
	after.Set("name", "A")
	c := call()
	c.Method, c.Route, c.Event = "POST", "POST /v1/customers/{id}", "customer.updated"
	c.World, c.Before = w, before.AppendJSON(nil)
	New().Answered(c, 200, after.AppendJSON(nil))
	ev := decode(w.kept["event"][1].AppendJSON(nil))
	data, _ := ev.Get("data")
	prev, _ := data.(*object.Object).Get("previous_attributes")
	if have := string(object.AppendValue(nil, prev)); have != `{"email":"a@example.com"}` {
		t.Errorf("want previous_attributes {email: a@example.com}, have %s", have)
	}
}

func TestSignIsStripesV1(t *testing.T) {
	h := http.Header{}
	Dialect{}.Sign(h, "whsec_test", []byte(`{"id":"evt_1"}`), 1_700_000_000)
	// HMAC-SHA256("whsec_test", "1700000000.{"id":"evt_1"}"), computed
	// independently with openssl dgst -sha256 -hmac.
	want := "t=1700000000,v1=" + wantV1
	if have := h.Get("Stripe-Signature"); have != want {
		t.Errorf("want %s, have %s", want, have)
	}
}

func TestValidVersion(t *testing.T) {
	for _, tc := range []struct {
		v  string
		ok bool
	}{
		{"2025-03-31.basil", true}, {"2020-08-27", true}, {"2026-08-26.dahlia", true},
		{"", false}, {"latest", false}, {"2025-3-31.basil", false}, {"2025-03-31.Basil\r\n", false},
		{"2025-03-31." + strings.Repeat("x", 40), false},
	} {
		if have := validVersion(tc.v); have != tc.ok {
			t.Errorf("validVersion(%q): want %v, have %v", tc.v, tc.ok, have)
		}
	}
}

const wantV1 = "c89214b5b5da833daed6f0b8c5bb6bd58cea9022bd80ccc78230f3942d632925"

// TestChangedShowsNestedDifferences: previous_attributes name a nested
// hash's changed members only (a new one as null) and a changed array
// whole, as Stripe's events have since 2015-01-26 and 2017-05-25.
func TestChangedShowsNestedDifferences(t *testing.T) {
	for _, tc := range []struct {
		name, was, now, want string
	}{
		{"a member changed", `{"address":{"line1":"Foo","line2":"Bar"}}`, `{"address":{"line1":"Foo","line2":"Baz"}}`, `{"address":{"line2":"Bar"}}`},
		{"a member added", `{"metadata":{}}`, `{"metadata":{"order":"7"}}`, `{"metadata":{"order":null}}`},
		{"a member removed", `{"metadata":{"order":"7"}}`, `{"metadata":{}}`, `{"metadata":{"order":"7"}}`},
		{"an array changed", `{"tags":["a","b"]}`, `{"tags":["a","c"]}`, `{"tags":["a","b"]}`},
		{"a hash that was null", `{"shipping":null}`, `{"shipping":{"name":"A"}}`, `{"shipping":null}`},
		{"nothing changed", `{"address":{"line1":"Foo"},"email":"a@x"}`, `{"address":{"line1":"Foo"},"email":"a@x"}`, `{}`},
	} {
		was, now := decode([]byte(tc.was)), decode([]byte(tc.now))
		if have := string(changed(was, now).AppendJSON(nil)); have != tc.want {
			t.Errorf("%s: want %s, have %s", tc.name, tc.want, have)
		}
	}
}

// TestEventVersion reads an event's own api_version, not that of the
// object it carries (a webhook endpoint has one too), in either order.
func TestEventVersion(t *testing.T) {
	for _, tt := range []struct{ name, body, want string }{
		{"the event's first", `{"api_version":"2025-03-31.basil","data":{"object":{"api_version":"2020-08-27","object":"webhook_endpoint"}}}`, "2025-03-31.basil"},
		{"the object's first", `{"data":{"object":{"api_version":"2020-08-27","object":"webhook_endpoint"}},"api_version":"2025-03-31.basil"}`, "2025-03-31.basil"},
		{"null", `{"api_version":null,"data":{"object":{"api_version":"2020-08-27"}}}`, ""},
		{"escaped", `{"api_version":"2025-03-31.b\u0061sil","data":{}}`, "2025-03-31.basil"},
		{"none", `{"data":{}}`, ""},
		{"no event", ``, ""},
	} {
		if have := eventVersion([]byte(tt.body)); have != tt.want {
			t.Errorf("%s: want %q, have %q", tt.name, tt.want, have)
		}
	}
}

// TestEndpointsReadEscapedTypes: an endpoint whose enabled_events are
// written with escapes still gets the event; the shortcut that skips
// reading an endpoint that cannot list the type does not skip it.
func TestEndpointsReadEscapedTypes(t *testing.T) {
	for _, tt := range []struct {
		events string
		want   bool
	}{
		{`["customer.created"]`, true},
		{`["customer\u002ecreated"]`, true},
		{`["\u002a"]`, true},
		{`["*"]`, true},
		{`["charge.failed","charge.succeeded"]`, false},
		{`["customer.created.extra"]`, false},
	} {
		body := `{"id":"we_1","object":"webhook_endpoint","status":"enabled","url":"http://127.0.0.1:1/h","enabled_events":` + tt.events + `}`
		w := rawWorld{newMemWorld("webhook_endpoint"), [][]byte{[]byte(body)}}
		if have := len(endpoints(w, "customer.created")) == 1; have != tt.want {
			t.Errorf("enabled_events %s: delivered %v, want %v", tt.events, have, tt.want)
		}
	}
}

// rawWorld gives Each its bodies as they are written, escapes and all.
type rawWorld struct {
	*memWorld
	bodies [][]byte
}

func (w rawWorld) Each(_ string, fn func([]byte) bool) {
	for _, b := range w.bodies {
		if !fn(b) {
			return
		}
	}
}
