package server

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// target is the server a hostile request goes to.
type target int

const (
	open    target = iota // loopback, no token: the default serve
	guarded               // loopback with --control-token-env
	tight                 // --max-sessions 2 --max-entities 2, already full
)

// hostileReq is one bad request. Most fields mirror call; the rest send
// what call cannot.
type hostileReq struct {
	method, path, session string
	form, json            string
	header                map[string]string
	add                   [][2]string // headers added after header; repeats allowed
	host                  string      // the Host header, when not the server's address
	big                   int64       // a form body of this many bytes
	chunked               bool        // send big without Content-Length
	raw                   string      // bytes sent as they are on a new connection
}

type hostileCase struct {
	name string
	to   target
	req  hostileReq
	want int
	// code is error.code of Wraith's shape or error.type of the provider's
	// shape; "" where Go's server answers in plain text before any handler
	// runs (malformed HTTP, 431).
	code string
}

// hostileWorld is what the table runs against: three servers, and what
// was created in them before the table.
type hostileWorld struct {
	base     map[target]string
	client   *http.Client
	victim   string // a customer the victim session created
	pi       string // a payment intent of session "hostile", requires_payment_method
	snapshot func(tb testing.TB) string
}

const (
	megabyte    = 1 << 20
	defaultBody = 10 * megabyte
	bearerOK    = "Bearer " + testToken
)

func hostileCases(w *hostileWorld) []hostileCase {
	long := strings.Repeat("a", 129)
	deep := strings.Repeat("a[b]", 40)
	deepJSON := strings.Repeat(`{"a":`, 40) + "1" + strings.Repeat("}", 40)
	evil := map[string]string{"Origin": "http://evil.example"}
	return []hostileCase{
		// Session header values.
		{"session header too long", open, hostileReq{path: "/v1/customers", session: long}, 400, "invalid-session"},
		{"session header traversal", open, hostileReq{path: "/v1/customers", session: "../x"}, 400, "invalid-session"},
		{"session header with a space", open, hostileReq{path: "/v1/customers", session: "a b"}, 400, "invalid-session"},
		{"session header empty", open, hostileReq{path: "/v1/customers", header: map[string]string{"X-Wraith-Session": ""}}, 400, "invalid-session"},
		{"session header not ASCII", open, hostileReq{path: "/v1/customers", session: "agént"}, 400, "invalid-session"},
		{"session header percent-encoded", open, hostileReq{path: "/v1/customers", session: "%2e%2e"}, 400, "invalid-session"},
		{"session header on a create", open, hostileReq{method: "POST", path: "/v1/customers", session: "a/b", form: "description=x"}, 400, "invalid-session"},

		// Bodies.
		{"body over 10 MiB, declared", open, hostileReq{method: "POST", path: "/v1/customers", session: "hostile", big: defaultBody + 1, header: map[string]string{"Expect": "100-continue"}}, 413, "body-too-large"},
		{"body over 10 MiB, chunked", open, hostileReq{method: "POST", path: "/v1/customers", session: "hostile", big: defaultBody + 1024, chunked: true}, 413, "body-too-large"},
		{"control body over 1 MiB", open, hostileReq{method: "POST", path: "/__wraith/session", big: megabyte + 1024, chunked: true}, 413, "body-too-large"},
		{"form: unclosed bracket", open, hostileReq{method: "POST", path: "/v1/customers", session: "hostile", form: "a[=1"}, 400, "invalid_request_error"},
		{"form: value and object", open, hostileReq{method: "POST", path: "/v1/customers", session: "hostile", form: "metadata=1&metadata[a]=2"}, 400, "invalid_request_error"},
		{"form: 40 levels deep", open, hostileReq{method: "POST", path: "/v1/customers", session: "hostile", form: deep + "=1"}, 400, "invalid_request_error"},
		{"form: bad escape", open, hostileReq{method: "POST", path: "/v1/customers", session: "hostile", form: "description=%zz"}, 400, "invalid_request_error"},
		{"query: bad escape", open, hostileReq{path: "/v1/customers?email=%zz", session: "hostile"}, 400, "invalid_request_error"},
		{"JSON: truncated", open, hostileReq{method: "POST", path: "/v1/customers", session: "hostile", json: `{"description":`}, 400, "invalid_request_error"},
		{"JSON: not an object", open, hostileReq{method: "POST", path: "/v1/customers", session: "hostile", json: `[1,2]`}, 400, "invalid_request_error"},
		{"JSON: 40 levels deep", open, hostileReq{method: "POST", path: "/v1/customers", session: "hostile", json: deepJSON}, 400, "invalid_request_error"},
		{"wrong type: amount", open, hostileReq{method: "POST", path: "/v1/payment_intents", session: "hostile", form: "amount=abc&currency=usd"}, 400, "invalid_request_error"},
		{"wrong type: amount object", open, hostileReq{method: "POST", path: "/v1/payment_intents", session: "hostile", form: "amount[x]=1&currency=usd"}, 400, "invalid_request_error"},

		// Methods and paths.
		{"app: wrong method", open, hostileReq{method: "PATCH", path: "/v1/customers", session: "hostile"}, 501, "route-miss"},
		{"app: unknown path", open, hostileReq{path: "/v2/secrets", session: "hostile"}, 501, "route-miss"},
		{"app: traversal", open, hostileReq{path: "/v1/customers/../../etc/passwd", session: "hostile"}, 501, "route-miss"},
		{"app: encoded traversal", open, hostileReq{path: "/v1/customers/..%2F..%2Fetc%2Fpasswd", session: "hostile"}, 501, "route-miss"},
		{"control prefix without slash", open, hostileReq{path: "/__wraith"}, 501, "route-miss"},
		{"control: unknown path", open, hostileReq{path: "/__wraith/nope"}, 404, "control-not-found"},
		{"control: unknown session path", open, hostileReq{path: "/__wraith/session/victim/nope"}, 404, "control-not-found"},
		{"control: PUT session", open, hostileReq{method: "PUT", path: "/__wraith/session", json: `{"session":"x"}`}, 405, "method-not-allowed"},
		{"control: DELETE health", open, hostileReq{method: "DELETE", path: "/__wraith/health"}, 405, "method-not-allowed"},
		{"control: GET reset", open, hostileReq{path: "/__wraith/reset"}, 405, "method-not-allowed"},
		{"control: dot segments", open, hostileReq{method: "POST", path: "/__wraith/session/x/../../reset"}, 400, "invalid-path"},
		{"control: encoded traversal in a session", open, hostileReq{method: "POST", path: "/__wraith/session/..%2Fvictim/reset"}, 400, "invalid-path"},
		{"control: doubled slash", open, hostileReq{method: "POST", path: "/__wraith//reset"}, 400, "invalid-path"},

		// Provisioning bodies.
		{"provision: truncated JSON", open, hostileReq{method: "POST", path: "/__wraith/session", json: `{"session":`}, 400, "invalid-json"},
		{"provision: unknown field", open, hostileReq{method: "POST", path: "/__wraith/session", json: `{"session":"p1","colour":"blue"}`}, 400, "invalid-json"},
		{"provision: nested unknown field", open, hostileReq{method: "POST", path: "/__wraith/session", json: `{"session":"p1","clock":{"mode":"fixed","tz":"UTC"}}`}, 400, "invalid-json"},
		{"provision: session is a number", open, hostileReq{method: "POST", path: "/__wraith/session", json: `{"session":5}`}, 400, "invalid-json"},
		{"provision: array body", open, hostileReq{method: "POST", path: "/__wraith/session", json: `[{"session":"p1"}]`}, 400, "invalid-json"},
		{"provision: trailing data", open, hostileReq{method: "POST", path: "/__wraith/session", json: `{"session":"p1"}{"session":"p2"}`}, 400, "invalid-json"},
		{"provision: trailing brace", open, hostileReq{method: "POST", path: "/__wraith/session", json: `{"session":"p1"}}`}, 400, "invalid-json"},
		{"provision: no session", open, hostileReq{method: "POST", path: "/__wraith/session", json: `{"seed":1}`}, 400, "invalid-session"},
		{"provision: traversal session", open, hostileReq{method: "POST", path: "/__wraith/session", json: `{"session":"../x"}`}, 400, "invalid-session"},
		{"provision: session too long", open, hostileReq{method: "POST", path: "/__wraith/session", json: `{"session":"` + long + `"}`}, 400, "invalid-session"},
		{"provision: path and body disagree", open, hostileReq{method: "POST", path: "/__wraith/session/p1", json: `{"session":"victim"}`}, 400, "session-mismatch"},
		{"provision: traversal fixture", open, hostileReq{method: "POST", path: "/__wraith/session", json: `{"session":"p1","fixture":"../x"}`}, 404, "fixture-not-found"},
		{"provision: qualified traversal fixture", open, hostileReq{method: "POST", path: "/__wraith/session", json: `{"session":"p1","fixture":"checkout:../../etc/passwd"}`}, 404, "fixture-not-found"},
		{"provision: other settings for victim", open, hostileReq{method: "POST", path: "/__wraith/session", json: `{"session":"victim","seed":8}`}, 409, "session-provision-conflict"},
		{"seed: negative", open, hostileReq{method: "POST", path: "/__wraith/session", json: `{"session":"p1","seed":-1}`}, 400, "invalid-seed"},
		{"seed: fraction", open, hostileReq{method: "POST", path: "/__wraith/session", json: `{"session":"p1","seed":1.5}`}, 400, "invalid-seed"},
		{"seed: exponent", open, hostileReq{method: "POST", path: "/__wraith/session", json: `{"session":"p1","seed":1e400}`}, 400, "invalid-seed"},
		{"seed: past uint64", open, hostileReq{method: "POST", path: "/__wraith/session", json: `{"session":"p1","seed":18446744073709551616}`}, 400, "invalid-seed"},
		{"seed: string", open, hostileReq{method: "POST", path: "/__wraith/session", json: `{"session":"p1","seed":"abc"}`}, 400, "invalid-json"},
		{"seed: bool", open, hostileReq{method: "POST", path: "/__wraith/session", json: `{"session":"p1","seed":true}`}, 400, "invalid-json"},
		{"clock: unknown mode", open, hostileReq{method: "POST", path: "/__wraith/session", json: `{"session":"p1","clock":{"mode":"sundial"}}`}, 400, "invalid-clock"},
		{"clock: negative epoch", open, hostileReq{method: "POST", path: "/__wraith/session", json: `{"session":"p1","clock":{"mode":"fixed","base_epoch":-5}}`}, 400, "invalid-clock"},
		{"clock: epoch past 2199", open, hostileReq{method: "POST", path: "/__wraith/session", json: `{"session":"p1","clock":{"mode":"fixed","base_epoch":99999999999}}`}, 400, "invalid-clock"},
		{"clock: two epochs disagree", open, hostileReq{method: "POST", path: "/__wraith/session", json: `{"session":"p1","clock":{"mode":"fixed","base_epoch":1,"base_epoch_secs":2}}`}, 400, "invalid-clock"},
		{"clock: epoch is a string", open, hostileReq{method: "POST", path: "/__wraith/session", json: `{"session":"p1","clock":{"mode":"fixed","base_epoch":"1"}}`}, 400, "invalid-json"},
		{"clock: epoch past int64", open, hostileReq{method: "POST", path: "/__wraith/session", json: `{"session":"p1","clock":{"mode":"fixed","base_epoch":1e30}}`}, 400, "invalid-json"},

		// Session endpoints.
		{"clock move: missing session", open, hostileReq{method: "POST", path: "/__wraith/session/ghost/clock", json: `{"advance_secs":1}`}, 404, "session-not-found"},
		{"clock move: both fields", open, hostileReq{method: "POST", path: "/__wraith/session/clocked/clock", json: `{"advance_secs":1,"set_epoch":5}`}, 400, "invalid-clock"},
		{"clock move: no field", open, hostileReq{method: "POST", path: "/__wraith/session/clocked/clock", json: `{}`}, 400, "invalid-clock"},
		{"clock move: backwards", open, hostileReq{method: "POST", path: "/__wraith/session/clocked/clock", json: `{"advance_secs":-1}`}, 400, "invalid-clock"},
		{"clock move: past 2199", open, hostileReq{method: "POST", path: "/__wraith/session/clocked/clock", json: `{"advance_secs":9000000000000000000}`}, 400, "invalid-clock"},
		{"clock move: set past 2199", open, hostileReq{method: "POST", path: "/__wraith/session/clocked/clock", json: `{"set_epoch":9223372036854775807}`}, 400, "invalid-clock"},
		{"clock move: string", open, hostileReq{method: "POST", path: "/__wraith/session/clocked/clock", json: `{"advance_secs":"60"}`}, 400, "invalid-json"},
		{"clock move: a real clock", open, hostileReq{method: "POST", path: "/__wraith/session/hostile/clock", json: `{"advance_secs":60}`}, 409, "clock-not-movable"},
		{"reset: missing session", open, hostileReq{method: "POST", path: "/__wraith/session/ghost/reset"}, 404, "session-not-found"},
		{"delete: missing session", open, hostileReq{method: "DELETE", path: "/__wraith/session/ghost"}, 404, "session-not-found"},
		{"delete: invalid session", open, hostileReq{method: "DELETE", path: "/__wraith/session/a%20b"}, 400, "invalid-session"},
		{"state: without --debug", open, hostileReq{path: "/__wraith/session/victim/state"}, 404, "debug-disabled"},

		// App semantics.
		{"list: limit 0", open, hostileReq{path: "/v1/customers?limit=0", session: "hostile"}, 400, "invalid_request_error"},
		{"list: limit not a number", open, hostileReq{path: "/v1/customers?limit=abc", session: "hostile"}, 400, "invalid_request_error"},
		{"list: limit 101", open, hostileReq{path: "/v1/customers?limit=101", session: "hostile"}, 400, "invalid_request_error"},
		{"list: limit negative", open, hostileReq{path: "/v1/customers?limit=-1", session: "hostile"}, 400, "invalid_request_error"},
		{"list: unknown cursor", open, hostileReq{path: "/v1/customers?starting_after=cus_nope", session: "hostile"}, 400, "invalid_request_error"},
		{"list: both cursors", open, hostileReq{path: "/v1/customers?starting_after=a&ending_before=b", session: "hostile"}, 400, "invalid_request_error"},
		{"list: another session's id as cursor", open, hostileReq{path: "/v1/customers?starting_after=" + w.victim, session: "hostile"}, 400, "invalid_request_error"},
		{"idempotency key with another body", open, hostileReq{method: "POST", path: "/v1/customers", session: "hostile", form: "description=second", header: map[string]string{"Idempotency-Key": "hk-1"}}, 400, "idempotency_error"},
		{"idempotency key on another path", open, hostileReq{method: "POST", path: "/v1/products", session: "hostile", form: "description=first", header: map[string]string{"Idempotency-Key": "hk-1"}}, 400, "idempotency_error"},
		{"action from the wrong state", open, hostileReq{method: "POST", path: "/v1/payment_intents/" + w.pi + "/capture", session: "hostile"}, 400, "payment_intent_unexpected_state"},

		// Browsers and DNS rebinding, on a loopback bind.
		{"Host: rebinding name", open, hostileReq{method: "POST", path: "/__wraith/reset", host: "evil.example"}, 403, "control-forbidden-host"},
		{"Host: rebinding name with port", open, hostileReq{method: "DELETE", path: "/__wraith/session/victim", host: "evil.example:8080"}, 403, "control-forbidden-host"},
		{"Host: localhost as a subdomain", open, hostileReq{method: "POST", path: "/__wraith/reset", host: "localhost.evil.example"}, 403, "control-forbidden-host"},
		{"Host: loopback as a subdomain", open, hostileReq{method: "POST", path: "/__wraith/reset", host: "127.0.0.1.nip.io"}, 403, "control-forbidden-host"},
		{"Host: userinfo trick", open, hostileReq{method: "POST", path: "/__wraith/reset", host: "127.0.0.1@evil.example"}, 403, "control-forbidden-host"},
		{"Host: absolute-form request target", open, hostileReq{raw: "POST http://evil.example/__wraith/reset HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n"}, 403, "control-forbidden-host"},
		{"Host: none (HTTP/1.0)", open, hostileReq{raw: "POST /__wraith/reset HTTP/1.0\r\nContent-Length: 0\r\n\r\n"}, 403, "control-forbidden-host"},
		{"Origin: another site", open, hostileReq{method: "DELETE", path: "/__wraith/session/victim", header: evil}, 403, "control-forbidden-origin"},
		{"Origin: null", open, hostileReq{method: "POST", path: "/__wraith/reset", header: map[string]string{"Origin": "null"}}, 403, "control-forbidden-origin"},
		{"Origin: look-alike", open, hostileReq{method: "POST", path: "/__wraith/reset", header: map[string]string{"Origin": "http://localhost.evil.example"}}, 403, "control-forbidden-origin"},
		{"Origin: one good, one evil", open, hostileReq{method: "POST", path: "/__wraith/reset", add: [][2]string{{"Origin", "http://localhost"}, {"Origin", "http://evil.example"}}}, 403, "control-forbidden-origin"},
		{"Referer: another site", open, hostileReq{method: "POST", path: "/__wraith/session/victim/reset", header: map[string]string{"Referer": "http://evil.example/page"}}, 403, "control-forbidden-origin"},

		// Bearer tokens on a token-protected server.
		{"token: none", guarded, hostileReq{method: "POST", path: "/__wraith/reset"}, 401, "control-unauthorized"},
		{"token: wrong", guarded, hostileReq{method: "DELETE", path: "/__wraith/session/victim", header: map[string]string{"Authorization": "Bearer wrong"}}, 401, "control-unauthorized"},
		{"token: empty bearer", guarded, hostileReq{method: "GET", path: "/__wraith/session", header: map[string]string{"Authorization": "Bearer "}}, 401, "control-unauthorized"},
		{"token: Basic scheme", guarded, hostileReq{method: "POST", path: "/__wraith/reset", header: map[string]string{"Authorization": "Basic " + testToken}}, 401, "control-unauthorized"},
		{"token: in the query", guarded, hostileReq{method: "POST", path: "/__wraith/reset?token=" + testToken}, 401, "control-unauthorized"},
		{"token: in a cookie", guarded, hostileReq{method: "POST", path: "/__wraith/reset", header: map[string]string{"Cookie": "token=" + testToken}}, 401, "control-unauthorized"},
		{"token: right and wrong together", guarded, hostileReq{method: "POST", path: "/__wraith/reset", add: [][2]string{{"Authorization", bearerOK}, {"Authorization", "Bearer wrong"}}}, 401, "control-unauthorized"},
		{"token: right, but a rebinding Host", guarded, hostileReq{method: "POST", path: "/__wraith/reset", host: "evil.example", header: map[string]string{"Authorization": bearerOK}}, 403, "control-forbidden-host"},
		{"token: right, but body unknown field", guarded, hostileReq{method: "POST", path: "/__wraith/session", json: `{"session":"g2","x":1}`, header: map[string]string{"Authorization": bearerOK}}, 400, "invalid-json"},

		// Limits.
		{"session limit: new session by traffic", tight, hostileReq{path: "/v1/customers", session: "t3"}, 503, "session-limit"},
		{"session limit: provisioning", tight, hostileReq{method: "POST", path: "/__wraith/session", json: `{"session":"t3"}`}, 503, "session-limit"},
		{"entity limit: create", tight, hostileReq{method: "POST", path: "/v1/customers", session: "t1", form: "description=third"}, 507, "session-entity-limit"},
		{"entity limit: update an untouched id", tight, hostileReq{method: "POST", path: "/v1/customers/cus_untouched", session: "t1", form: "description=x"}, 507, "session-entity-limit"},
		{"idempotency limit: a new key", tight, hostileReq{method: "POST", path: "/v1/customers", session: "t2", form: "description=k3", header: map[string]string{"Idempotency-Key": "k3"}}, 507, "session-idempotency-limit"},
		{"header over 64 KiB", open, hostileReq{path: "/v1/customers", session: "hostile", header: map[string]string{"X-Padding": strings.Repeat("p", 100<<10)}}, 431, ""},
		{"URL over 64 KiB", open, hostileReq{path: "/v1/customers/" + strings.Repeat("c", 100<<10), session: "hostile"}, 431, ""},

		// Malformed HTTP: Go's server answers before any handler.
		{"HTTP: garbage request line", open, hostileReq{raw: "GARBAGE\r\n\r\n"}, 400, ""},
		{"HTTP: Host with a space", open, hostileReq{raw: "GET /v1/customers HTTP/1.1\r\nHost: a b\r\n\r\n"}, 400, ""},
		{"HTTP: Content-Length not a number", open, hostileReq{raw: "POST /v1/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n"}, 400, ""},
		{"HTTP: two Content-Lengths", open, hostileReq{raw: "POST /v1/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"}, 400, ""},
		{"HTTP: unknown Transfer-Encoding", open, hostileReq{raw: "POST /v1/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: gzip\r\n\r\n"}, 501, ""},
	}
}

// TestHostileTable sends every bad request twice, one after another and
// then all at once, and checks each answer's status and code. Afterwards
// the servers still serve, and the sessions set up before the table hold
// the same data byte for byte.
func TestHostileTable(t *testing.T) {
	w := newHostileWorld(t)
	cases := hostileCases(w)
	if len(cases) < 40 {
		t.Fatalf("the table has %d cases; the issue asks for at least 40", len(cases))
	}
	before := w.snapshot(t)

	check := func(t *testing.T, tc hostileCase) {
		status, body, err := w.send(tc.to, tc.req)
		if err != nil {
			t.Fatalf("send: %v", err)
		}
		if have := errorCode(body); status != tc.want || have != tc.code {
			t.Errorf("want %d %q, have %d %q: %.300s", tc.want, tc.code, status, have, body)
		}
		if tc.code != "" && !json.Valid(body) {
			t.Errorf("the error body is not JSON: %.300s", body)
		}
	}
	t.Run("sequential", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) { check(t, tc) })
		}
	})
	t.Run("concurrent", func(t *testing.T) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				check(t, tc)
			})
		}
	})

	for to, base := range w.base {
		if resp, body := do(t, base, call{path: "/__wraith/health"}); resp.StatusCode != http.StatusOK {
			t.Errorf("server %d after the table: health %d %s", to, resp.StatusCode, body)
		}
	}
	if resp, body := do(t, w.base[open], call{path: "/v1/customers/cus_known", session: "hostile"}); resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"id":"cus_known"`) {
		t.Errorf("a known good request after the table: %d %s", resp.StatusCode, body)
	}
	if after := w.snapshot(t); after != before {
		t.Errorf("session data changed during the table\nwent:\n%s\ncame:\n%s", missing(before, after), missing(after, before))
	}
}

func newHostileWorld(t *testing.T) *hostileWorld {
	t.Helper()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.ExpectContinueTimeout = 5 * time.Second
	t.Cleanup(tr.CloseIdleConnections)
	w := &hostileWorld{
		base:   map[target]string{},
		client: &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
	}
	w.base[open] = startServer(t, "checkout").URL()
	g, err := openWith(t, map[string]string{"WRAITH_CONTROL_TOKEN": testToken}, nil, "--control-token-env", "WRAITH_CONTROL_TOKEN")
	if err != nil {
		t.Fatal(err)
	}
	serveWith(t, g)
	w.base[guarded] = g.URL()
	w.base[tight] = startServer(t, "checkout", "--max-sessions", "2", "--max-entities", "2").URL()

	mustStatus := func(to target, c call, want int) []byte {
		t.Helper()
		resp, body := do(t, w.base[to], c)
		if resp.StatusCode != want {
			t.Fatalf("setup %s %s on server %d: want %d, have %d %s", c.method, c.path, to, want, resp.StatusCode, body)
		}
		return body
	}
	idOf := func(body []byte) string {
		var o struct{ ID string }
		json.Unmarshal(body, &o)
		return o.ID
	}
	const victim = `{"session":"victim","fixture":"checkout:happy-path","seed":7,"clock":{"mode":"deterministic","base_epoch":1700000000}}`
	mustStatus(open, call{method: "POST", path: "/__wraith/session", json: victim}, http.StatusCreated)
	w.victim = idOf(mustStatus(open, call{method: "POST", path: "/v1/customers", session: "victim", form: "description=victim&metadata[k]=v"}, http.StatusOK))
	mustStatus(open, call{method: "POST", path: "/v1/customers", session: "hostile", form: "description=first", header: map[string]string{"Idempotency-Key": "hk-1"}}, http.StatusOK)
	w.pi = idOf(mustStatus(open, call{method: "POST", path: "/v1/payment_intents", session: "hostile", form: "amount=100&currency=usd"}, http.StatusOK))
	mustStatus(open, call{method: "POST", path: "/__wraith/session", json: `{"session":"clocked","clock":{"mode":"fixed","base_epoch":1000}}`}, http.StatusCreated)

	bearer := map[string]string{"Authorization": bearerOK}
	mustStatus(guarded, call{method: "POST", path: "/__wraith/session", json: victim, header: bearer}, http.StatusCreated)
	mustStatus(guarded, call{method: "POST", path: "/v1/customers", session: "victim", form: "description=victim"}, http.StatusOK)

	for i := range 2 {
		mustStatus(tight, call{method: "POST", path: "/v1/customers", session: "t1", form: fmt.Sprintf("description=t1-%d", i)}, http.StatusOK)
		mustStatus(tight, call{method: "POST", path: "/v1/customers", session: "t2", form: fmt.Sprintf("description=t2-%d", i), header: map[string]string{"Idempotency-Key": fmt.Sprintf("k%d", i)}}, http.StatusOK)
	}

	// What must not change: the victims' entities and lists as their
	// sessions see them, and their settings and entity counts.
	w.snapshot = func(tb testing.TB) string {
		tb.Helper()
		var b strings.Builder
		reads := []struct {
			to   target
			path string
		}{
			{open, "/v1/customers/" + w.victim},
			{open, "/v1/customers?limit=100"},
			{open, "/v1/payment_intents?limit=100"},
			{guarded, "/v1/customers?limit=100"},
			{tight, "/v1/customers?limit=100"},
		}
		for _, r := range reads {
			session := "victim"
			if r.to == tight {
				session = "t1"
			}
			resp, body := do(tb, w.base[r.to], call{path: r.path, session: session})
			fmt.Fprintf(&b, "%d %s %d %s\n", r.to, r.path, resp.StatusCode, body)
		}
		for _, to := range []target{open, guarded, tight} {
			_, body := do(tb, w.base[to], call{path: "/__wraith/session", header: bearer})
			var list struct {
				Sessions []map[string]any
			}
			json.Unmarshal(body, &list)
			for _, s := range list.Sessions {
				delete(s, "requests") // reads count as requests
				line, _ := json.Marshal(s)
				fmt.Fprintf(&b, "%d %s\n", to, line)
			}
		}
		return b.String()
	}
	return w
}

// missing returns the lines of a that b lacks, each cut short.
func missing(a, b string) string {
	have := map[string]bool{}
	for _, l := range strings.Split(b, "\n") {
		have[l] = true
	}
	var out strings.Builder
	for _, l := range strings.Split(a, "\n") {
		if !have[l] {
			fmt.Fprintf(&out, "%.400s\n", l)
		}
	}
	return out.String()
}

// send sends one hostile request and returns the status and body.
func (w *hostileWorld) send(to target, r hostileReq) (int, []byte, error) {
	base := w.base[to]
	if r.raw != "" {
		return sendRaw(strings.TrimPrefix(base, "http://"), r.raw)
	}
	method := r.method
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	ctype := ""
	switch {
	case r.big > 0:
		body = io.LimitReader(repeatReader('a'), r.big)
		if !r.chunked {
			body = &sized{Reader: body}
		}
		ctype = "application/x-www-form-urlencoded"
	case r.form != "":
		body, ctype = strings.NewReader(r.form), "application/x-www-form-urlencoded"
	case r.json != "":
		body, ctype = strings.NewReader(r.json), "application/json"
	}
	req, err := http.NewRequest(method, base+r.path, body)
	if err != nil {
		return 0, nil, err
	}
	if r.big > 0 {
		req.ContentLength = -1
		if !r.chunked {
			req.ContentLength = r.big
		}
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if r.session != "" {
		req.Header.Set("X-Wraith-Session", r.session)
	}
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	for _, kv := range r.add {
		req.Header.Add(kv[0], kv[1])
	}
	if r.host != "" {
		req.Host = r.host
	}
	resp, err := w.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// sendRaw writes raw on a new connection to addr and reads one response.
func sendRaw(addr, raw string) (int, []byte, error) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return 0, nil, err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, raw); err != nil {
		return 0, nil, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = nil // Go's plain-text error answers close without a length
	}
	return resp.StatusCode, b, err
}

// repeatReader is an endless stream of one byte.
type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// sized hides a reader's type so net/http trusts ContentLength as given.
type sized struct{ io.Reader }
