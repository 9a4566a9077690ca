package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v82"
	"github.com/stripe/stripe-go/v82/webhook"
)

// hook is one delivery a test's endpoint got.
type hook struct {
	signature string
	header    http.Header
	body      []byte
}

// hookEndpoint is a loopback webhook endpoint: it answers the statuses
// given in turn (then 200) and hands every delivery to the channel.
func hookEndpoint(tb testing.TB, statuses ...int) (string, <-chan hook) {
	tb.Helper()
	got := make(chan hook, 64)
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		status := http.StatusOK
		if n < len(statuses) {
			status = statuses[n]
		}
		n++ // a session's deliveries come one at a time
		w.WriteHeader(status)
		got <- hook{r.Header.Get("Stripe-Signature"), r.Header.Clone(), b}
	}))
	tb.Cleanup(srv.Close)
	return srv.URL + "/stripe/webhook", got
}

// nextHook returns the endpoint's next delivery.
func nextHook(tb testing.TB, got <-chan hook) hook {
	tb.Helper()
	select {
	case h := <-got:
		return h
	case <-time.After(10 * time.Second):
		tb.Fatal("no webhook reached the endpoint")
		return hook{}
	}
}

// noHook fails when a delivery is waiting. Deliveries of a session go
// in order, so a test calls it after one that came later would have.
func noHook(tb testing.TB, got <-chan hook) {
	tb.Helper()
	select {
	case h := <-got:
		tb.Fatalf("an unexpected webhook came: %s", h.body)
	default:
	}
}

// webhookTwin serves the embedded stripe twin on the wall clock (the
// clients' verifiers compare a signature's time with theirs) and a fixed
// session clock, so that event bodies are the same in every run.
func webhookTwin(tb testing.TB) *Server {
	return startServerNow(tb, time.Now, "stripe", "--clock", "fixed", "--unknown-entity", "not_found")
}

// deliveries reads the delivery attempts of the session's journal once
// it holds n of them, within a deadline: the deliverer journals an
// attempt once the endpoint's answer is read, after the test saw it.
func deliveries(tb testing.TB, base, session string, n int) []entryJSON {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, b := do(tb, base, call{path: "/__wraith/session/" + session + "/journal"})
		var j struct{ Entries []entryJSON }
		if err := json.Unmarshal(b, &j); err != nil {
			tb.Fatalf("journal: %v: %s", err, b)
		}
		var out []entryJSON
		for _, e := range j.Entries {
			if e.Delivery != nil {
				out = append(out, e)
			}
		}
		if len(out) >= n || time.Now().After(deadline) {
			if len(out) < n {
				tb.Fatalf("want %d delivery attempts in the journal, have %d", n, len(out))
			}
			return out
		}
		time.Sleep(5 * time.Millisecond) // polls a condition, within the deadline
	}
}

// entryJSON is a journal entry as GET journal shows it.
type entryJSON struct {
	Index      int64
	Method     string
	Path       string
	Status     int
	Provenance string
	Delivery   *struct {
		URL     string
		Event   string
		Attempt int
		Error   string
		RetryAt string `json:"retry_at"`
	}
}

func TestStripeWebhooksVerifiedByTheClients(t *testing.T) {
	srv := webhookTwin(t)
	url, got := hookEndpoint(t)
	sc := stripeClient(srv.URL(), "hooks")
	ctx := t.Context()
	we, err := sc.V1WebhookEndpoints.Create(ctx, &stripe.WebhookEndpointCreateParams{
		URL:           stripe.String(url),
		EnabledEvents: stripe.StringSlice([]string{"customer.created", "customer.updated"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(we.Secret, "whsec_") || we.Status != "enabled" {
		t.Fatalf("want an enabled endpoint with a whsec_ secret, have %q %q", we.Status, we.Secret)
	}
	// Stripe shows the secret in the create answer only.
	if _, b := do(t, srv.URL(), call{path: "/v1/webhook_endpoints/" + we.ID, session: "hooks"}); strings.Contains(string(b), "secret") {
		t.Errorf("a retrieve shows the secret: %s", b)
	}
	if _, b := do(t, srv.URL(), call{path: "/v1/webhook_endpoints", session: "hooks"}); strings.Contains(string(b), "secret") || !strings.Contains(string(b), we.ID) {
		t.Errorf("the list shows the secret, or not the endpoint: %s", b)
	}
	cus, err := sc.V1Customers.Create(ctx, &stripe.CustomerCreateParams{Email: stripe.String("first@example.com")})
	if err != nil {
		t.Fatal(err)
	}
	h := nextHook(t, got)
	if have := h.header.Get("Content-Type"); have != "application/json; charset=utf-8" {
		t.Errorf("want Stripe's Content-Type, have %q", have)
	}
	if have := h.header.Get("User-Agent"); have != "Stripe/1.0 (+https://stripe.com/docs/webhooks)" {
		t.Errorf("want Stripe's User-Agent, have %q", have)
	}
	ev, err := webhook.ConstructEvent(h.body, h.signature, we.Secret)
	if err != nil {
		t.Fatalf("stripe-go refused the delivery: %v\n%s", err, h.body)
	}
	if ev.Type != "customer.created" || ev.Data.Object["id"] != cus.ID || ev.Data.Object["email"] != "first@example.com" {
		t.Errorf("want customer.created of %s, have %s of %v", cus.ID, ev.Type, ev.Data.Object["id"])
	}
	if ev.APIVersion != stripe.APIVersion || ev.Livemode || ev.PendingWebhooks != 1 || ev.Request == nil || !strings.HasPrefix(ev.Request.ID, "req_") {
		t.Errorf("want api_version %s (the client's), livemode false, 1 pending webhook and a request id; have %s %v %d %+v", stripe.APIVersion, ev.APIVersion, ev.Livemode, ev.PendingWebhooks, ev.Request)
	}
	if _, err := webhook.ConstructEvent(h.body, h.signature, "whsec_other"); err == nil {
		t.Error("stripe-go took the delivery with another endpoint's secret")
	}
	verifyWithNode(t, h, we.Secret, "customer.created")

	if _, err := sc.V1Customers.Update(ctx, cus.ID, &stripe.CustomerUpdateParams{Email: stripe.String("second@example.com")}); err != nil {
		t.Fatal(err)
	}
	h = nextHook(t, got)
	ev, err = webhook.ConstructEvent(h.body, h.signature, we.Secret)
	if err != nil {
		t.Fatalf("stripe-go refused the update's delivery: %v", err)
	}
	if ev.Type != "customer.updated" || ev.Data.Object["email"] != "second@example.com" || ev.Data.PreviousAttributes["email"] != "first@example.com" {
		t.Errorf("want customer.updated from first@ to second@, have %s %v (previous %v)", ev.Type, ev.Data.Object["email"], ev.Data.PreviousAttributes)
	}
	// Not listened for: no delivery, and the event is kept all the same.
	if _, err := sc.V1Customers.Delete(ctx, cus.ID, nil); err != nil {
		t.Fatal(err)
	}

	// The event log, newest first, filtered by type.
	var types []string
	for e, err := range sc.V1Events.List(ctx, &stripe.EventListParams{}) {
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, string(e.Type))
	}
	if want, have := "customer.deleted,customer.updated,customer.created", strings.Join(types, ","); want != have {
		t.Errorf("events: want %s, have %s", want, have)
	}
	var some []string
	for e, err := range sc.V1Events.List(ctx, &stripe.EventListParams{Types: stripe.StringSlice([]string{"customer.created", "customer.deleted"})}) {
		if err != nil {
			t.Fatal(err)
		}
		some = append(some, string(e.Type))
	}
	if want, have := "customer.deleted,customer.created", strings.Join(some, ","); want != have {
		t.Errorf("events of types[]: want %s, have %s", want, have)
	}
	var created []string
	for e, err := range sc.V1Events.List(ctx, &stripe.EventListParams{Type: stripe.String("customer.created")}) {
		if err != nil {
			t.Fatal(err)
		}
		created = append(created, e.ID)
	}
	first, err := sc.V1Events.Retrieve(ctx, created[0], nil)
	if err != nil || len(created) != 1 || first.Type != "customer.created" || first.Data.Object["id"] != cus.ID {
		t.Errorf("want the one customer.created event retrieved by its id, have %v %v", created, err)
	}
	noHook(t, got)

	attempts := deliveries(t, srv.URL(), "hooks", 2)
	for i, e := range attempts {
		if e.Provenance != "webhook" || e.Method != "POST" || e.Path != "/stripe/webhook" || e.Status != 200 || e.Delivery.Attempt != 1 || e.Delivery.URL != url {
			t.Errorf("journal attempt %d: want POST /stripe/webhook 200, first attempt, have %+v %+v", i, e, *e.Delivery)
		}
	}
}

// verifyWithNode has stripe-node's own verifier check the delivery h.
func verifyWithNode(t *testing.T, h hook, secret, typ string) {
	t.Helper()
	modules := filepath.Join("..", "..", "testdata", "node", "node_modules")
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(modules, "stripe"))
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true: node and stripe-node are needed (make node-clients): %v", err)
		}
		t.Logf("stripe-node's verifier not run: %v (make node-clients)", err)
		return
	}
	abs, _ := filepath.Abs(modules)
	cmd := exec.Command(node, "-e", `const stripe = require("stripe")("sk_test_node");
const ev = stripe.webhooks.constructEvent(process.env.PAYLOAD, process.env.SIGNATURE, process.env.SECRET);
console.log(ev.type, ev.data.object.id);`)
	cmd.Env = append(os.Environ(), "NODE_PATH="+abs, "PAYLOAD="+string(h.body), "SIGNATURE="+h.signature, "SECRET="+secret)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("stripe-node refused the delivery: %v\n%s", err, out)
	}
	if !strings.HasPrefix(string(out), typ+" ") {
		t.Errorf("stripe-node: want %s, have %s", typ, out)
	}
	cmd.Env[len(cmd.Env)-1] = "SECRET=whsec_other"
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Errorf("stripe-node took the delivery with another secret: %s", out)
	}
}

// TestStripeWebhookEndpointsRefused: an endpoint off loopback, and one
// that is the twin itself (its API or its control plane: a session could
// otherwise have the twin reset every session, or post events that make
// events for ever), are refused at delivery, journaled, not retried.
func TestStripeWebhookEndpointsRefused(t *testing.T) {
	srv := webhookTwin(t)
	self := strings.Replace(srv.URL(), "127.0.0.1", "localhost", 1)
	for _, tc := range []struct{ name, url, want string }{
		{"off loopback", "http://192.0.2.1/hook", "refused: 192.0.2.1 resolves to 192.0.2.1, not a loopback address"},
		{"the twin's control plane", srv.URL() + "/__wraith/reset", "refused: 127.0.0.1:"},
		{"the twin's API by name", self + "/v1/customers", "refused: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := strings.ReplaceAll(tc.name, " ", "-")
			s = strings.ReplaceAll(s, "'", "")
			for _, c := range []call{
				{method: "POST", path: "/v1/webhook_endpoints", session: s, form: "url=" + tc.url + "&enabled_events[]=*"},
				{method: "POST", path: "/v1/customers", session: s, form: "email=a@example.com"},
			} {
				if resp, b := do(t, srv.URL(), c); resp.StatusCode != 200 {
					t.Fatalf("%s %s: %d %s", c.method, c.path, resp.StatusCode, b)
				}
			}
			e := deliveries(t, srv.URL(), s, 1)[0]
			if e.Status != 0 || !strings.HasPrefix(e.Delivery.Error, tc.want) || e.Delivery.RetryAt != "" {
				t.Fatalf("want the delivery refused (%q…) and not retried, have %d %+v", tc.want, e.Status, *e.Delivery)
			}
			if !strings.Contains(e.Delivery.Error, "192.0.2.1") && !strings.Contains(e.Delivery.Error, "this twin's own address") {
				t.Errorf("want the refusal to say why, have %q", e.Delivery.Error)
			}
		})
	}
}

func TestStripeWebhookRetriedOnTheSessionClock(t *testing.T) {
	srv := webhookTwin(t)
	url, got := hookEndpoint(t, http.StatusInternalServerError)
	for _, c := range []call{
		{method: "POST", path: "/v1/webhook_endpoints", session: "retry", form: "url=" + url + "&enabled_events[]=customer.created"},
		{method: "POST", path: "/v1/customers", session: "retry", form: "email=a@example.com"},
	} {
		if resp, b := do(t, srv.URL(), c); resp.StatusCode != 200 {
			t.Fatalf("%s %s: %d %s", c.method, c.path, resp.StatusCode, b)
		}
	}
	first := nextHook(t, got)
	failed := deliveries(t, srv.URL(), "retry", 1)[0]
	if failed.Status != 500 || failed.Delivery.Attempt != 1 || failed.Delivery.RetryAt == "" {
		t.Fatalf("want attempt 1 answered 500 and retried, have %d %+v", failed.Status, *failed.Delivery)
	}
	// Not yet due: a minute short of an hour.
	advance := func(secs string) {
		t.Helper()
		if resp, b := do(t, srv.URL(), call{method: "POST", path: "/__wraith/session/retry/clock", json: `{"advance_secs":` + secs + `}`}); resp.StatusCode != 200 {
			t.Fatalf("clock: %d %s", resp.StatusCode, b)
		}
	}
	advance("3540")
	// A write after the clock moved is delivered after what was due
	// before it, so its absence shows the retry did not go.
	if resp, b := do(t, srv.URL(), call{method: "POST", path: "/v1/customers", session: "retry", form: "email=b@example.com"}); resp.StatusCode != 200 {
		t.Fatalf("customer: %d %s", resp.StatusCode, b)
	}
	second := nextHook(t, got)
	if string(second.body) == string(first.body) {
		t.Fatal("the retry went before the session's clock reached it")
	}
	advance("60")
	retried := nextHook(t, got)
	if string(retried.body) != string(first.body) {
		t.Fatalf("want the first event posted again, have %s", retried.body)
	}
	attempts := deliveries(t, srv.URL(), "retry", 3)
	if have := attempts[2]; have.Status != 200 || have.Delivery.Attempt != 2 || have.Delivery.Event != failed.Delivery.Event {
		t.Fatalf("want attempt 2 of %s delivered, have %d %+v", failed.Delivery.Event, have.Status, *have.Delivery)
	}

	// The HAR shows the first attempt as the post it was: the endpoint's
	// URL, the event as the body, the endpoint's 500.
	_, har := do(t, srv.URL(), call{path: "/__wraith/session/retry/journal?format=har"})
	var doc struct {
		Log struct {
			Entries []struct {
				Request struct {
					Method, URL string
					PostData    struct{ Text string }
				}
				Response struct{ Status int }
				Wraith   struct{ Provenance string } `json:"_wraith"`
			}
		}
	}
	if err := json.Unmarshal(har, &doc); err != nil {
		t.Fatalf("HAR: %v", err)
	}
	var posts []string
	for _, e := range doc.Log.Entries {
		if e.Wraith.Provenance == "webhook" {
			posts = append(posts, fmt.Sprintf("%s %s %d %v", e.Request.Method, e.Request.URL, e.Response.Status, e.Request.PostData.Text == string(first.body)))
		}
	}
	if want := "POST " + url + " 500 true"; len(posts) != 3 || posts[0] != want {
		t.Errorf("HAR: want the first of three attempts %q, have %q", want, posts)
	}
}

func TestStripeWebhooksTheSameInTwoSessions(t *testing.T) {
	srv := webhookTwin(t)
	url, got := hookEndpoint(t)
	bodies := map[string][]string{}
	for _, s := range []string{"one", "two"} {
		for _, c := range []call{
			{method: "POST", path: "/v1/webhook_endpoints", session: s, form: "url=" + url + "&enabled_events[]=*"},
			{method: "POST", path: "/v1/customers", session: s, form: "email=same@example.com&name=Same", header: map[string]string{"Idempotency-Key": "k1"}},
			{method: "POST", path: "/v1/customers", session: s, form: "email=other@example.com"},
		} {
			if resp, b := do(t, srv.URL(), c); resp.StatusCode != 200 {
				t.Fatalf("%s %s: %d %s", c.method, c.path, resp.StatusCode, b)
			}
		}
		for range 2 {
			bodies[s] = append(bodies[s], string(nextHook(t, got).body))
		}
	}
	for i := range bodies["one"] {
		if bodies["one"][i] != bodies["two"][i] {
			t.Errorf("event %d: the sessions' bodies differ:\n%s\n%s", i, bodies["one"][i], bodies["two"][i])
		}
	}
	if !strings.Contains(bodies["one"][0], `"idempotency_key":"k1"`) {
		t.Errorf("want the request's idempotency key in the event: %s", bodies["one"][0])
	}
}

// TestStripeWebhookRetriedByATestClock: Stripe's own test clock moves the
// session's clock, and the retry it makes due goes once it is answered.
func TestStripeWebhookRetriedByATestClock(t *testing.T) {
	srv := webhookTwin(t)
	url, got := hookEndpoint(t, http.StatusServiceUnavailable)
	sc := stripeClient(srv.URL(), "tc")
	ctx := t.Context()
	if _, err := sc.V1WebhookEndpoints.Create(ctx, &stripe.WebhookEndpointCreateParams{URL: stripe.String(url), EnabledEvents: stripe.StringSlice([]string{"customer.created"})}); err != nil {
		t.Fatal(err)
	}
	cus, err := sc.V1Customers.Create(ctx, &stripe.CustomerCreateParams{Email: stripe.String("tc@example.com")})
	if err != nil {
		t.Fatal(err)
	}
	first := nextHook(t, got)
	deliveries(t, srv.URL(), "tc", 1)
	clock, err := sc.V1TestHelpersTestClocks.Create(ctx, &stripe.TestHelpersTestClockCreateParams{FrozenTime: stripe.Int64(cus.Created)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sc.V1TestHelpersTestClocks.Advance(ctx, clock.ID, &stripe.TestHelpersTestClockAdvanceParams{FrozenTime: stripe.Int64(cus.Created + 3600)}); err != nil {
		t.Fatal(err)
	}
	if again := nextHook(t, got); string(again.body) != string(first.body) {
		t.Fatalf("want the customer.created event again, have %s", again.body)
	}
	if a := deliveries(t, srv.URL(), "tc", 2)[1]; a.Status != 200 || a.Delivery.Attempt != 2 {
		t.Fatalf("want attempt 2 delivered, have %d %+v", a.Status, *a.Delivery)
	}
}
