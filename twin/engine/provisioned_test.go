package engine

import (
	"encoding/base64"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/session"
)

// TestRequireProvisioned: under RequireProvisioned a request to a session
// that does not exist is 409 session-not-provisioned and creates nothing,
// while a provisioned session is served as usual. Without it, the first
// request creates the session, as it always has.
func TestRequireProvisioned(t *testing.T) {
	for _, tc := range []struct {
		name      string
		require   bool
		provision bool
		method    string
		path      string
		status    int
		code      string
		exists    bool // the session exists afterwards
	}{
		{name: "off: a first read creates the session", method: "GET", path: "/v1/customers/cus_123", status: 200, exists: true},
		{name: "off: a first write creates the session", method: "POST", path: "/v1/customers", status: 200, exists: true},
		{name: "on: a read of a session never provisioned", require: true, method: "GET", path: "/v1/customers/cus_123", status: 409, code: "session-not-provisioned"},
		{name: "on: a write to a session never provisioned", require: true, method: "POST", path: "/v1/customers", status: 409, code: "session-not-provisioned"},
		{name: "on: a provisioned session is served", require: true, provision: true, method: "POST", path: "/v1/customers", status: 200, exists: true},
		{name: "on: a route miss stays a miss", require: true, method: "GET", path: "/v1/nothing", status: 501, code: "route-miss"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newCheckout(t, Options{RequireProvisioned: tc.require})
			const name = "agent-1"
			if tc.provision {
				if _, err := e.Provision(name, session.Settings{Seed: 7}); err != nil {
					t.Fatal(err)
				}
			}
			form := ""
			if tc.method == "POST" {
				form = "description=x"
			}
			w := httptest.NewRecorder()
			e.ServeHTTP(w, newRequest(t, tc.method, tc.path, name, form))
			if w.Code != tc.status {
				t.Fatalf("status: want %d, have %d: %s", tc.status, w.Code, w.Body)
			}
			if tc.code != "" && !strings.Contains(w.Body.String(), `{"error":{"code":"`+tc.code+`"`) {
				t.Errorf("body: want Wraith's error shape with code %s, have %s", tc.code, w.Body)
			}
			if have := e.store.Get(name) != nil; have != tc.exists {
				t.Errorf("session %s exists afterwards: want %v, have %v", name, tc.exists, have)
			}
		})
	}
}

// TestBasicSessionColon: a session named in a Basic user name cannot hold
// ':' (RFC 7617 ends the user name at the first one), so a credential
// whose session part is followed by more than one ':' is refused rather
// than served as the name before the colon.
func TestBasicSessionColon(t *testing.T) {
	e := newCheckout(t, Options{})
	basic := func(userPass string) string { return "Basic " + base64.StdEncoding.EncodeToString([]byte(userPass)) }
	for _, tc := range []struct {
		name, auth, header string
		status             int
		session, code      string
	}{
		{name: "a colon in the session, empty password", auth: basic("sk_test_x.wraith.team:agent-1:"), status: 400, code: "invalid-session"},
		{name: "a colon in the session and a password", auth: basic("sk_test_x.wraith.team:agent-1:pw"), status: 400, code: "invalid-session"},
		{name: "a session and a plain password", auth: basic("sk_test_x.wraith.team-agent-1:pw"), status: 200, session: "team-agent-1"},
		{name: "a password with colons, no session in the user", auth: basic("sk_test_x:p:w"), status: 200, session: "default"},
		{name: "the header may carry a colon", header: "team:agent-1", status: 200, session: "team:agent-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRequest(t, "GET", "/v1/customers/cus_123", tc.header, "")
			if tc.auth != "" {
				r.Header.Set("Authorization", tc.auth)
			}
			w := httptest.NewRecorder()
			e.ServeHTTP(w, r)
			if w.Code != tc.status {
				t.Fatalf("status: want %d, have %d: %s", tc.status, w.Code, w.Body)
			}
			if have := w.Header().Get(SessionHeader); tc.session != "" && have != tc.session {
				t.Errorf("session: want %q, have %q", tc.session, have)
			}
			if tc.code != "" && !strings.Contains(w.Body.String(), `"code":"`+tc.code+`"`) {
				t.Errorf("body: want code %s, have %s", tc.code, w.Body)
			}
			if tc.code != "" && !strings.Contains(w.Body.String(), "RFC 7617") {
				t.Errorf("body: want the reason (RFC 7617) in the message, have %s", w.Body)
			}
		})
	}
}
