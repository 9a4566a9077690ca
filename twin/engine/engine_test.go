package engine

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/dialect/stripe"
	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/session"
)

func serve(tb testing.TB, e *Engine, method, target, session, form string) (*httptest.ResponseRecorder, map[string]any) {
	tb.Helper()
	w := httptest.NewRecorder()
	e.ServeHTTP(w, newRequest(tb, method, target, session, form))
	var m map[string]any
	json.Unmarshal(w.Body.Bytes(), &m)
	return w, m
}

func ids(m map[string]any) []string {
	var out []string
	data, _ := m["data"].([]any)
	for _, d := range data {
		o, _ := d.(map[string]any)
		id, _ := o["id"].(string)
		out = append(out, id)
	}
	return out
}

func TestListPaginationAndFilters(t *testing.T) {
	// A clock after the recordings, so the session's creates are the newest.
	e := newCheckout(t, Options{Defaults: session.Settings{Clock: session.Clock{Mode: session.ClockDeterministic, BaseEpoch: 1800000000, Step: time.Second}}})
	var created []string
	for _, email := range []string{"a@example.com", "b@example.com", "c@example.com", "b@example.com"} {
		_, c := serve(t, e, "POST", "/v1/customers", "p", "email="+email)
		created = append(created, c["id"].(string))
	}
	// Newest first: the session's creates (later clock) come before the
	// recorded customers.
	_, page := serve(t, e, "GET", "/v1/customers?limit=2", "p", "")
	if have := ids(page); strings.Join(have, ",") != created[3]+","+created[2] || page["has_more"] != true {
		t.Fatalf("first page: want %s,%s with has_more, have %v %v", created[3], created[2], have, page["has_more"])
	}
	_, next := serve(t, e, "GET", "/v1/customers?limit=2&starting_after="+created[2], "p", "")
	if have := ids(next); strings.Join(have, ",") != created[1]+","+created[0] {
		t.Errorf("starting_after: want %s,%s, have %v", created[1], created[0], have)
	}
	_, prev := serve(t, e, "GET", "/v1/customers?limit=1&ending_before="+created[1], "p", "")
	if have := ids(prev); strings.Join(have, ",") != created[2] || prev["has_more"] != true {
		t.Errorf("ending_before: want %s with has_more, have %v %v", created[2], have, prev["has_more"])
	}
	w, filtered := serve(t, e, "GET", "/v1/customers?email=b%40example.com&created[gte]=5", "p", "")
	if have := ids(filtered); strings.Join(have, ",") != created[3]+","+created[1] {
		t.Errorf("email filter (compared by token): want %s,%s, have %v", created[3], created[1], have)
	}
	if have := w.Header().Get("X-Wraith-Ignored-Params"); have != "" {
		t.Errorf("ignored params: want none (created[gte] is the dialect's range), have %q", have)
	}
	// The third and fourth creates are later than the second's clock.
	_, second := serve(t, e, "GET", "/v1/customers/"+created[1], "p", "")
	after := strconv.FormatFloat(second["created"].(float64)+1, 'f', 0, 64)
	if _, later := serve(t, e, "GET", "/v1/customers?created[gte]="+after+"&email=b%40example.com", "p", ""); strings.Join(ids(later), ",") != created[3] {
		t.Errorf("created[gte]=%s: want %s, have %v", after, created[3], ids(later))
	}
	for _, bad := range []string{"limit=0", "limit=101", "limit=x", "starting_after=cus_nope", "starting_after=a&ending_before=b"} {
		if w, _ := serve(t, e, "GET", "/v1/customers?"+bad, "p", ""); w.Code != http.StatusBadRequest {
			t.Errorf("%s: want 400, have %d %s", bad, w.Code, w.Body)
		}
	}
}

func TestApplyParams(t *testing.T) {
	base := `{"id":"x","object":"thing","amount":0,"active":false,"name":null,"metadata":{"keep":"1","drop":"2"},"address":{"city":null},"items":{"object":"list","data":[],"total_count":0}}`
	tests := []struct {
		name    string
		params  map[string]any
		want    string
		ignored string
		err     string
	}{
		{"types convert", map[string]any{"amount": "250", "active": "true", "name": "N"},
			`{"id":"x","object":"thing","amount":250,"active":true,"name":"N","metadata":{"keep":"1","drop":"2"},"address":{"city":null},"items":{"object":"list","data":[],"total_count":0}}`, "", ""},
		{"metadata merges and deletes", map[string]any{"metadata": map[string]any{"drop": "", "new": "3"}},
			`{"id":"x","object":"thing","amount":0,"active":false,"name":null,"metadata":{"keep":"1","new":"3"},"address":{"city":null},"items":{"object":"list","data":[],"total_count":0}}`, "", ""},
		{"metadata cleared", map[string]any{"metadata": ""},
			`{"id":"x","object":"thing","amount":0,"active":false,"name":null,"metadata":{},"address":{"city":null},"items":{"object":"list","data":[],"total_count":0}}`, "", ""},
		{"list into envelope", map[string]any{"items": []any{map[string]any{"price": "p1"}}},
			`{"id":"x","object":"thing","amount":0,"active":false,"name":null,"metadata":{"keep":"1","drop":"2"},"address":{"city":null},"items":{"object":"list","data":[{"price":"p1"}],"total_count":1}}`, "", ""},
		{"unknown and expand", map[string]any{"colour": "red", "expand": []any{"x"}}, base, "colour", ""},
		{"bad integer", map[string]any{"amount": "lots"}, "", "", "Invalid integer: lots"},
		{"bad boolean", map[string]any{"active": "maybe"}, "", "", "Invalid boolean: maybe"},
		{"immutable", map[string]any{"id": "y"}, "", "", "You cannot change `id`."},
		{"scalar into object", map[string]any{"address": "Main St"}, "", "", "Invalid object for address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := object.Parse([]byte(base))
			if err != nil {
				t.Fatal(err)
			}
			w := setter{d: stripe.New()}
			ignored, err := w.apply(o, reqParams{tree: tt.params}, map[string]bool{"id": true, "object": true}, nil)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("want error %q, have %v", tt.err, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if have := string(o.AppendJSON(nil)); have != tt.want {
				t.Errorf("want %s\nhave %s", tt.want, have)
			}
			if have := strings.Join(ignored, ","); have != tt.ignored {
				t.Errorf("ignored: want %q, have %q", tt.ignored, have)
			}
		})
	}
}

func TestRouteMissCreatesNoSession(t *testing.T) {
	e := newCheckout(t, Options{})
	w, body := serve(t, e, "GET", "/v1/nothing", "ghost", "")
	if w.Code != http.StatusNotImplemented || w.Header().Get("X-Wraith-Provenance") != "miss" {
		t.Fatalf("want 501 miss, have %d %v", w.Code, body)
	}
	if e.Store().Get("ghost") != nil {
		t.Error("a route miss created a session")
	}
	w, _ = serve(t, e, "PUT", "/v1/customers", "ghost", "")
	if !strings.Contains(w.Body.String(), "no PUT route") {
		t.Errorf("wrong method on a known path: want it named, have %s", w.Body)
	}
}

func TestSessionLimitIsAnError(t *testing.T) {
	e := newCheckout(t, Options{MaxSessions: 2})
	for _, s := range []string{"a", "b"} {
		if w, _ := serve(t, e, "GET", "/v1/customers/cus_123", s, ""); w.Code != http.StatusOK {
			t.Fatalf("session %s: %d", s, w.Code)
		}
	}
	w, body := serve(t, e, "GET", "/v1/customers/cus_123", "c", "")
	errBody, _ := body["error"].(map[string]any)
	if w.Code != http.StatusServiceUnavailable || errBody["code"] != "session-limit" {
		t.Errorf("third session: want 503 session-limit, have %d %v", w.Code, body)
	}
	if w, _ := serve(t, e, "GET", "/v1/customers/cus_123", "a", ""); w.Code != http.StatusOK {
		t.Errorf("an existing session must keep working at the limit: %d", w.Code)
	}
}
