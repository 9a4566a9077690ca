package control_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// call sends one request to the twin at base and decodes its JSON answer.
func call(tb testing.TB, base, method, path, ctype, body, sess string) (int, map[string]any, []byte) {
	tb.Helper()
	r, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	if ctype != "" {
		r.Header.Set("Content-Type", ctype)
	}
	if sess != "" {
		r.Header.Set("X-Wraith-Session", sess)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	return resp.StatusCode, m, b
}

// TestSessionPIIVerbatim: provisioning's pii_verbatim serves an agent's
// own email as sent in that session only; it takes part in the conflict
// rule, shows in the session list, and survives reset, fork and a
// snapshot round trip.
func TestSessionPIIVerbatim(t *testing.T) {
	h, eng := newCheckout(t)
	mux := http.NewServeMux()
	mux.Handle("/__wraith/", h)
	mux.Handle("/", eng)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	base := srv.URL
	const jsonType, formType = "application/json", "application/x-www-form-urlencoded"
	const email = "jenny@example.com"
	form := "email=" + url.QueryEscape(email)

	status, m, b := call(t, base, "POST", "/__wraith/session", jsonType, `{"session":"keep","pii_verbatim":["Email","email"]}`, "")
	if status != http.StatusCreated {
		t.Fatalf("provision: want 201, have %d %s", status, b)
	}
	if have, _ := json.Marshal(m["pii_verbatim"]); string(have) != `["email"]` {
		t.Errorf("provisioning answer: want pii_verbatim [\"email\"], have %s", have)
	}
	if status, _, b = call(t, base, "POST", "/__wraith/session/keep", jsonType, `{"pii_verbatim":["email"]}`, ""); status != http.StatusOK {
		t.Errorf("same settings again: want 200, have %d %s", status, b)
	}
	if status, _, b = call(t, base, "POST", "/__wraith/session/keep", jsonType, `{"pii_verbatim":["name"]}`, ""); status != http.StatusConflict || !bytes.Contains(b, []byte("session-provision-conflict")) {
		t.Errorf("other fields: want 409 session-provision-conflict, have %d %s", status, b)
	}
	for _, bad := range []string{`["a b"]`, `[""]`, `"email"`} {
		if status, _, b = call(t, base, "POST", "/__wraith/session", jsonType, `{"session":"bad","pii_verbatim":`+bad+`}`, ""); status != http.StatusBadRequest {
			t.Errorf("pii_verbatim %s: want 400, have %d %s", bad, status, b)
		}
	}
	if status, _, b = call(t, base, "POST", "/__wraith/session", jsonType, `{"session":"bad","pii_verbatim":["a b"]}`, ""); !bytes.Contains(b, []byte(`"invalid-pii-verbatim"`)) {
		t.Errorf("bad field name: want invalid-pii-verbatim, have %d %s", status, b)
	}

	created := func(sess string) string {
		t.Helper()
		status, m, b := call(t, base, "POST", "/v1/customers", formType, form, sess)
		if status != http.StatusOK {
			t.Fatalf("create in %s: want 200, have %d %s", sess, status, b)
		}
		e, _ := m["email"].(string)
		return e
	}
	if have := created("keep"); have != email {
		t.Errorf("session keep: want email %q as sent, have %q", email, have)
	}
	if have := created("plain"); have == email || have == "" {
		t.Errorf("session plain: want the email tokenized, have %q", have)
	}
	// A list filter compares the way the session stored the field.
	if status, m, b = call(t, base, "GET", "/v1/customers?"+form, "", "", "keep"); status != http.StatusOK || len(m["data"].([]any)) != 1 {
		t.Errorf("filter by a verbatim email: want 200 and 1 customer, have %d %.300s", status, b)
	}
	if _, _, b = call(t, base, "GET", "/__wraith/session", "", "", ""); !bytes.Contains(b, []byte(`"session":"keep"`)) || bytes.Count(b, []byte(`"pii_verbatim":["email"]`)) != 1 {
		t.Errorf("session list: want keep shown with pii_verbatim, and no other, have %s", b)
	}

	if status, _, b = call(t, base, "POST", "/__wraith/session/keep/reset", "", "", ""); status != http.StatusOK {
		t.Fatalf("reset: %d %s", status, b)
	}
	if have := created("keep"); have != email {
		t.Errorf("after reset: want email %q, have %q", email, have)
	}
	if status, _, b = call(t, base, "POST", "/__wraith/session/keep/fork", jsonType, `{"session":"forked"}`, ""); status != http.StatusCreated {
		t.Fatalf("fork: want 201, have %d %s", status, b)
	}
	if have := created("forked"); have != email {
		t.Errorf("fork: want email %q, have %q", email, have)
	}
	status, _, snap := call(t, base, "GET", "/__wraith/session/keep/snapshot", "", "", "")
	if status != http.StatusOK || !bytes.Contains(snap, []byte(`"pii_verbatim":["email"]`)) {
		t.Fatalf("snapshot: want 200 with pii_verbatim in its settings, have %d %.300s", status, snap)
	}
	if status, _, b = call(t, base, "PUT", "/__wraith/session/restored/snapshot", jsonType, string(snap), ""); status != http.StatusCreated {
		t.Fatalf("restore: want 201, have %d %s", status, b)
	}
	if have := created("restored"); have != email {
		t.Errorf("restored: want email %q, have %q", email, have)
	}
}
