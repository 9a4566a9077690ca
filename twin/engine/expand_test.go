package engine

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestExpandAnswerOnly: expansion is the answer's alone. A create that
// expands answers the entity, and a repeated Idempotency-Key replays that
// answer; what the session keeps holds the id, so a plain read answers
// it, and a read that expands answers the entity again, or its tombstone
// once deleted. The checkout twin
// declares no expandable fields: an id the session holds expands.
func TestExpandAnswerOnly(t *testing.T) {
	e := newCheckout(t, Options{UnknownEntity: NotFound})
	_, cus := serve(t, e, "POST", "/v1/customers", "x", "email=jenny%40example.com")
	cusID, _ := cus["id"].(string)
	if cusID == "" {
		t.Fatalf("customer create: %v", cus)
	}
	create := func() *httptest.ResponseRecorder {
		r := newRequest(t, "POST", "/v1/payment_intents", "x", "amount=2000&currency=usd&customer="+cusID+"&expand[]=customer")
		r.Header.Set("Idempotency-Key", "pi-1")
		w := httptest.NewRecorder()
		e.ServeHTTP(w, r)
		return w
	}
	first := create()
	var pi map[string]any
	if err := json.Unmarshal(first.Body.Bytes(), &pi); err != nil {
		t.Fatalf("create: %v: %s", err, first.Body)
	}
	piID, _ := pi["id"].(string)
	if c, ok := pi["customer"].(map[string]any); !ok || c["id"] != cusID || c["object"] != "customer" {
		t.Fatalf("create with expand[]=customer: want the customer object, have %v (%d %s)", pi["customer"], first.Code, first.Body)
	}
	again := create()
	if again.Header().Get("Idempotent-Replayed") != "true" || again.Body.String() != first.Body.String() {
		t.Errorf("a repeated key: want the expanded answer replayed, have %s %s", again.Header().Get("Idempotent-Replayed"), again.Body)
	}
	_, plain := serve(t, e, "GET", "/v1/payment_intents/"+piID, "x", "")
	if have := plain["customer"]; have != cusID {
		t.Errorf("a plain read: want the stored id %s, have %v", cusID, have)
	}
	_, expanded := serve(t, e, "GET", "/v1/payment_intents/"+piID+"?expand[]=customer", "x", "")
	if c, ok := expanded["customer"].(map[string]any); !ok || c["id"] != cusID {
		t.Errorf("a read that expands: want the customer object, have %v", expanded["customer"])
	}
	_, list := serve(t, e, "GET", "/v1/payment_intents?customer="+cusID+"&expand[]=data.customer", "x", "")
	data, _ := list["data"].([]any)
	if len(data) != 1 {
		t.Fatalf("list filtered by customer: want 1, have %v", list)
	}
	if c, ok := data[0].(map[string]any)["customer"].(map[string]any); !ok || c["id"] != cusID {
		t.Errorf("a list that expands data.customer: want the customer object, have %v", data[0])
	}
	serve(t, e, "DELETE", "/v1/customers/"+cusID, "x", "")
	_, gone := serve(t, e, "GET", "/v1/payment_intents/"+piID+"?expand[]=customer", "x", "")
	if c, ok := gone["customer"].(map[string]any); !ok || c["id"] != cusID || c["deleted"] != true {
		t.Errorf("a deleted customer expanded: want its tombstone, as a read of it answers, have %v", gone["customer"])
	}
	_, unknown := serve(t, e, "GET", "/v1/payment_intents/"+piID+"?expand[]=description", "x", "")
	if unknown["description"] != nil {
		t.Errorf("a field that names no entity: want it as stored (null), have %v", unknown["description"])
	}
}

// BenchmarkListExpand lists 10 payment intents, plain and with each one's
// customer expanded (data.customer): what expansion adds to a list.
func BenchmarkListExpand(b *testing.B) {
	e := newCheckout(b, Options{UnknownEntity: NotFound})
	_, cus := serve(b, e, "POST", "/v1/customers", "b", "email=a%40example.com")
	for range 10 {
		serve(b, e, "POST", "/v1/payment_intents", "b", "amount=100&currency=usd&customer="+cus["id"].(string))
	}
	for _, tc := range []struct{ name, query string }{
		{"plain", "limit=10"},
		{"data.customer", "limit=10&expand[]=data.customer"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			r := newRequest(b, "GET", "/v1/payment_intents?"+tc.query, "b", "")
			w := &sink{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				w.reset()
				e.ServeHTTP(w, r)
			}
			if w.status != http.StatusOK {
				b.Fatalf("list: %d", w.status)
			}
		})
	}
}
