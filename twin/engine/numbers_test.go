package engine

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
)

// TestNumberParams: a value that is not a finite number, or not an
// integer where the field holds one, is the provider's 400 naming the
// parameter, never a stored NaN or 1e999 that no JSON decoder reads back.
// Every answer, refused or not, must be valid JSON.
func TestNumberParams(t *testing.T) {
	// The setter's own number rules, which serve requests that validation
	// does not check (--validate off, a twin without requests.json);
	// package reqschema checks numbers against the schema.
	url := httpTwin(t, newCheckout(t, Options{Validate: Off}))
	for _, tc := range []struct {
		name, path, ctype, body string
		status                  int
		param, message, field   string
		want                    string // the stored field's JSON text when 200
	}{
		{name: "NaN", path: "/v1/payment_intents", ctype: formType, body: "amount=NaN&currency=usd", status: 400, param: "amount", message: "Invalid integer: NaN"},
		{name: "Inf", path: "/v1/payment_intents", ctype: formType, body: "amount=Inf&currency=usd", status: 400, param: "amount", message: "Invalid integer: Inf"},
		{name: "exponent", path: "/v1/payment_intents", ctype: formType, body: "amount=-1e308&currency=usd", status: 400, param: "amount", message: "Invalid integer: -1e308"},
		{name: "fraction", path: "/v1/payment_intents", ctype: formType, body: "amount=1.5&currency=usd", status: 400, param: "amount", message: "Invalid integer: 1.5"},
		{name: "hex", path: "/v1/payment_intents", ctype: formType, body: "amount=0x10&currency=usd", status: 400, param: "amount", message: "Invalid integer: 0x10"},
		{name: "underscore", path: "/v1/payment_intents", ctype: formType, body: "amount=1_000&currency=usd", status: 400, param: "amount", message: "Invalid integer: 1_000"},
		{name: "past int64", path: "/v1/payment_intents", ctype: formType, body: "amount=99999999999999999999&currency=usd", status: 400, param: "amount", message: "Invalid integer: 99999999999999999999"},
		{name: "integer", path: "/v1/payment_intents", ctype: formType, body: "amount=2000&currency=usd", status: 200, field: "amount", want: "2000"},
		{name: "leading zeros are written canonically", path: "/v1/payment_intents", ctype: formType, body: "amount=007&currency=usd", status: 200, field: "amount", want: "7"},
		{name: "json fraction", path: "/v1/payment_intents", ctype: "application/json", body: `{"amount":2.5,"currency":"usd"}`, status: 400, param: "amount", message: "Invalid integer: 2.5"},
		{name: "json integer", path: "/v1/payment_intents", ctype: "application/json", body: `{"amount":150,"currency":"usd"}`, status: 200, field: "amount", want: "150"},
		{name: "json overflow in metadata", path: "/v1/customers", ctype: "application/json", body: `{"metadata":{"a":1e999}}`, status: 400, param: "metadata[a]"},
		{name: "json overflow in a list", path: "/v1/customers", ctype: "application/json", body: `{"x":[1,-1E400]}`, status: 400, param: "x[1]"},
		{name: "json underflow is zero, and kept as sent", path: "/v1/customers", ctype: "application/json", body: `{"metadata":{"a":1e-400}}`, status: 200, field: "metadata", want: `{"a":1e-400}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := send(t, context.Background(), "POST", url+tc.path, tc.ctype, tc.body, sessionHeader("numbers"))
			if !json.Valid(rep.body) {
				t.Fatalf("answer is not valid JSON: %s", rep.body)
			}
			if rep.status != tc.status {
				t.Fatalf("status: want %d, have %d %s", tc.status, rep.status, rep.body)
			}
			if tc.status != http.StatusOK {
				e, _ := rep.json["error"].(map[string]any)
				if e["type"] != "invalid_request_error" || e["param"] != tc.param {
					t.Errorf("error: want invalid_request_error naming %q, have %s", tc.param, rep.body)
				}
				if tc.message != "" && e["message"] != tc.message {
					t.Errorf("message: want %q, have %q", tc.message, e["message"])
				}
				return
			}
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(rep.body, &fields); err != nil {
				t.Fatal(err)
			}
			if have := string(fields[tc.field]); have != tc.want {
				t.Errorf("%s: want %s, have %s", tc.field, tc.want, have)
			}
		})
	}
}
