package engine

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestValidationModes: one invalid create of the checkout twin (whose
// requests.json is Stripe's) under each --validate mode.
func TestValidationModes(t *testing.T) {
	// An unknown name: under warn and off the twin serves it (and ignores
	// it, as the twin did before it validated); a value it cannot store in
	// its field's type is still refused by the setter in every mode, so
	// that no answer holds text where a client decodes a number.
	const body = "email=a@example.com&favourite_colour=blue"
	for _, tc := range []struct {
		mode    string
		status  int
		invalid string // X-Wraith-Invalid
	}{
		{Strict, http.StatusBadRequest, ""},
		{Warn, http.StatusOK, "Received unknown parameter: favourite_colour"},
		{Off, http.StatusOK, ""},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			url := httpTwin(t, newCheckout(t, Options{Validate: tc.mode}))
			rep := send(t, context.Background(), "POST", url+"/v1/customers", formType, body, sessionHeader("modes"))
			if rep.status != tc.status {
				t.Fatalf("status: want %d, have %d %s", tc.status, rep.status, rep.body)
			}
			if have := rep.header.Get("X-Wraith-Invalid"); have != tc.invalid {
				t.Errorf("X-Wraith-Invalid: want %q, have %q", tc.invalid, have)
			}
			if tc.mode == Strict {
				var e struct {
					Error struct{ Message, Param, Type string }
				}
				if err := json.Unmarshal(rep.body, &e); err != nil || e.Error.Message != "Received unknown parameter: favourite_colour" || e.Error.Param != "favourite_colour" || e.Error.Type != "invalid_request_error" {
					t.Errorf("want Stripe's invalid_request_error naming favourite_colour, have %s", rep.body)
				}
				if prov := rep.header.Get("X-Wraith-Provenance"); prov != "handler" {
					t.Errorf("provenance: want handler, have %q", prov)
				}
			}
		})
	}
}

// TestRefusedRequestKeepsIdempotencyKeyFree: Stripe keeps no idempotent
// result for a request that failed validation, so the key can be used
// again with corrected parameters.
func TestRefusedRequestKeepsIdempotencyKeyFree(t *testing.T) {
	url := httpTwin(t, newCheckout(t, Options{}))
	h := sessionHeader("idem")
	h["Idempotency-Key"] = []string{"k1"}
	if rep := send(t, context.Background(), "POST", url+"/v1/customers", formType, "balance=lots", h); rep.status != http.StatusBadRequest {
		t.Fatalf("invalid create: want 400, have %d %s", rep.status, rep.body)
	}
	rep := send(t, context.Background(), "POST", url+"/v1/customers", formType, "balance=30", h)
	if rep.status != http.StatusOK {
		t.Fatalf("the same key with valid parameters: want 200, have %d %s", rep.status, rep.body)
	}
	var c struct{ Balance json.RawMessage }
	if err := json.Unmarshal(rep.body, &c); err != nil || string(c.Balance) != "30" {
		t.Errorf("balance: want the number 30, have %s (%v)", c.Balance, err)
	}
}

// TestStoredInSchemaTypes: form text is stored in the type the request
// schema names, in top-level and nested fields alike.
func TestStoredInSchemaTypes(t *testing.T) {
	url := httpTwin(t, newCheckout(t, Options{}))
	rep := send(t, context.Background(), "POST", url+"/v1/customers", formType,
		"balance=30&invoice_settings[footer]=hi&tax_exempt=none&preferred_locales[0]=en", sessionHeader("typed"))
	if rep.status != http.StatusOK {
		t.Fatalf("create: want 200, have %d %s", rep.status, rep.body)
	}
	var c map[string]json.RawMessage
	if err := json.Unmarshal(rep.body, &c); err != nil {
		t.Fatal(err)
	}
	for field, want := range map[string]string{"balance": `30`, "tax_exempt": `"none"`, "preferred_locales": `["en"]`} {
		if have := string(c[field]); have != want {
			t.Errorf("%s: want %s, have %s", field, want, have)
		}
	}
	if !strings.Contains(string(c["invoice_settings"]), `"footer":"hi"`) {
		t.Errorf("invoice_settings: want footer hi, have %s", c["invoice_settings"])
	}
}

// TestCreateTakesTheIDItsSchemaTakes: Stripe's coupon create takes an id
// (id=25OFF), which no write may change otherwise; a second create with
// the same id is refused as Stripe refuses it, and the first coupon stays.
func TestCreateTakesTheIDItsSchemaTakes(t *testing.T) {
	url := httpTwin(t, newEmbedded(t, "stripe", Options{}))
	h := sessionHeader("coupons")
	rep := send(t, context.Background(), "POST", url+"/v1/coupons", formType, "id=25OFF&percent_off=25&duration=once", h)
	if rep.status != http.StatusOK || !strings.Contains(string(rep.body), `"id":"25OFF"`) {
		t.Fatalf("create with an id: want 200 with id 25OFF, have %d %s", rep.status, rep.body)
	}
	rep = send(t, context.Background(), "POST", url+"/v1/coupons", formType, "id=25OFF&percent_off=50&duration=once", h)
	var e struct {
		Error struct{ Message, Param string }
	}
	if err := json.Unmarshal(rep.body, &e); err != nil || rep.status != http.StatusBadRequest || e.Error.Message != "Coupon already exists." || e.Error.Param != "id" {
		t.Fatalf("the same id again: want 400 Coupon already exists. naming id, have %d %s", rep.status, rep.body)
	}
	rep = send(t, context.Background(), "GET", url+"/v1/coupons/25OFF", "", "", h)
	if !strings.Contains(string(rep.body), `"percent_off":25`) {
		t.Errorf("the first coupon: want percent_off 25 kept, have %s", rep.body)
	}
	rep = send(t, context.Background(), "POST", url+"/v1/coupons/25OFF", formType, "id=other", h)
	if rep.status != http.StatusBadRequest {
		t.Errorf("an update naming id: want 400 (the update's schema takes no id), have %d %s", rep.status, rep.body)
	}
}

// TestMultipartUploadIsNotChecked: a file upload's multipart body is not
// read as parameters, so it is not checked either (its required file
// would be "missing"), and is served as before.
func TestMultipartUploadIsNotChecked(t *testing.T) {
	url := httpTwin(t, newEmbedded(t, "stripe", Options{}))
	const boundary = "wraith-boundary"
	body := "--" + boundary + "\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\ndispute_evidence\r\n" +
		"--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\nhello\r\n" +
		"--" + boundary + "--\r\n"
	rep := send(t, context.Background(), "POST", url+"/v1/files", "multipart/form-data; boundary="+boundary, body, sessionHeader("upload"))
	if rep.status == http.StatusBadRequest {
		t.Fatalf("upload: want it served, have 400 %s", rep.body)
	}
}

// TestGitHubBodyNotJSON: GitHub reads a JSON body whatever its
// Content-Type, and answers one that is not JSON 400 Problems parsing
// JSON, while a JSON body it refuses is 422 Validation Failed.
func TestGitHubBodyNotJSON(t *testing.T) {
	url := httpTwin(t, newEmbedded(t, "github", Options{}))
	h := sessionHeader("gh")
	if rep := send(t, context.Background(), "POST", url+"/user/repos", "application/json", `{"name":"demo"}`, h); rep.status != http.StatusCreated {
		t.Fatalf("create repository: want 201, have %d %s", rep.status, rep.body)
	}
	for _, tc := range []struct {
		name, ctype, body string
		status            int
		want              string
	}{
		{"form text", formType, "title=hello", 400, `{"message":"Problems parsing JSON","documentation_url":"https://docs.github.com/rest"}`},
		{"broken JSON", "application/json", `{"title":`, 400, `{"message":"Problems parsing JSON","documentation_url":"https://docs.github.com/rest"}`},
		{"JSON sent as a form", formType, `{"title":"hello"}`, 201, `"title":"hello"`},
		{"no title", "application/json", `{"body":"x"}`, 422, `{"documentation_url":"https://docs.github.com/rest","errors":[{"code":"missing_field","field":"title","resource":"Issue"}],"message":"Validation Failed"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := send(t, context.Background(), "POST", url+"/repos/wraith-user/demo/issues", tc.ctype, tc.body, h)
			if rep.status != tc.status || !strings.Contains(string(rep.body), tc.want) {
				t.Errorf("want %d %s, have %d %s", tc.status, tc.want, rep.status, rep.body)
			}
		})
	}
}
