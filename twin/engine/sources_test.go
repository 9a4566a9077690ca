package engine

import (
	"context"
	"encoding/base64"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/ipc"
)

// TestSessionSources checks every place a session may be named, and that
// two places naming different sessions are refused.
func TestSessionSources(t *testing.T) {
	e := newCheckout(t, Options{})
	basic := func(user string) string {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"))
	}
	basicPass := func(user, pass string) string {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
	}
	for _, tc := range []struct {
		name, path, header, auth string
		status                   int
		session, code, route     string
	}{
		{name: "none", path: "/v1/customers/cus_123", status: 200, session: "default", route: "GET /v1/customers/{id}"},
		{name: "header", path: "/v1/customers/cus_123", header: "h1", status: 200, session: "h1"},
		{name: "path prefix", path: "/__s/agent-2/v1/customers/cus_123", status: 200, session: "agent-2", route: "GET /v1/customers/{id}"},
		{name: "bearer suffix", path: "/v1/customers/cus_123", auth: "Bearer sk_test_x.wraith.agent-1", status: 200, session: "agent-1"},
		// The stripe dialect reads Bearer and Basic credentials only: the
		// github dialect's "token" scheme (TestOctokitSessions) naming a
		// session is refused rather than served in the default session,
		// unless another source names it.
		{name: "token scheme is not the dialect's", path: "/v1/customers/cus_123", auth: "token ghp_x.wraith.agent-17", status: 400, code: "invalid-session"},
		{name: "token scheme beside a header", path: "/v1/customers/cus_123", header: "h2", auth: "token ghp_x.wraith.agent-17", status: 200, session: "h2"},
		{name: "token scheme naming no session", path: "/v1/customers/cus_123", auth: "token ghp_x", status: 200, session: "default"},
		{name: "basic user suffix", path: "/v1/customers/cus_123", auth: basic("sk_test_x.wraith.b-1"), status: 200, session: "b-1"},
		{name: "plain bearer", path: "/v1/customers/cus_123", auth: "Bearer sk_test_x", status: 200, session: "default"},
		// git sends a token as the Basic password (https://x:TOKEN@host).
		{name: "basic password suffix", path: "/v1/customers/cus_123", auth: basicPass("x", "ghp_x.wraith.p-1"), status: 200, session: "p-1"},
		{name: "basic password suffix with a colon before it", path: "/v1/customers/cus_123", auth: basicPass("x", "a:b.wraith.p-2"), status: 200, session: "p-2"},
		{name: "basic user suffix wins over the password", path: "/v1/customers/cus_123", auth: basicPass("k.wraith.u-1", "t"), status: 200, session: "u-1"},
		{name: "basic password suffix beside another header", path: "/v1/customers/cus_123", header: "h3", auth: basicPass("x", "t.wraith.p-3"), status: 400, code: "session-conflict"},
		{name: "header and path agree", path: "/__s/a/v1/customers/cus_123", header: "a", status: 200, session: "a"},
		{name: "header and path differ", path: "/__s/a/v1/customers/cus_123", header: "b", status: 400, code: "session-conflict"},
		{name: "header and credential differ", path: "/v1/customers/cus_123", header: "b", auth: "Bearer k.wraith.c", status: 400, code: "session-conflict"},
		{name: "path and credential differ", path: "/__s/a/v1/customers/cus_123", auth: "Bearer k.wraith.c", status: 400, code: "session-conflict"},
		{name: "bad path name", path: "/__s/a%20b/v1/customers/cus_123", status: 400, code: "invalid-session"},
		{name: "empty path name", path: "/__s//v1/customers/cus_123", status: 400, code: "invalid-session"},
		{name: "empty credential name", path: "/v1/customers", auth: "Bearer k.wraith.", status: 400, code: "invalid-session"},
		{name: "path prefix route miss", path: "/__s/a/v1/nothing", status: 501, session: "a", code: "route-miss"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRequest(t, "GET", tc.path, tc.header, "")
			if tc.auth != "" {
				r.Header.Set("Authorization", tc.auth)
			}
			w := httptest.NewRecorder()
			e.ServeHTTP(w, r)
			if w.Code != tc.status {
				t.Fatalf("status: want %d, have %d: %s", tc.status, w.Code, w.Body)
			}
			if tc.session != "" {
				if have := w.Header().Get(ipc.SessionHeader); have != tc.session {
					t.Errorf("session: want %q, have %q", tc.session, have)
				}
			}
			if tc.route != "" {
				if have := w.Header().Get("X-Wraith-Route"); have != tc.route {
					t.Errorf("route: want %q, have %q", tc.route, have)
				}
			}
			if tc.code != "" && !strings.Contains(w.Body.String(), `"code":"`+tc.code+`"`) {
				t.Errorf("body: want code %s, have %s", tc.code, w.Body)
			}
		})
	}
}

// TestPathPrefixReadsEscapedPath: the path prefix's session is read from
// the path as sent, over a real connection. Decoded first, /__s/a%2Fb/...
// named session "a" and asked for /b/v1/customers.
func TestPathPrefixReadsEscapedPath(t *testing.T) {
	e := newCheckout(t, Options{})
	url := httpTwin(t, e)
	for _, tc := range []struct {
		name, path    string
		status        int
		session, code string
		message       string // part of the route-miss message, for misses
	}{
		{name: "encoded slash", path: "/__s/a%2Fb/v1/customers", status: 400, code: "invalid-session"},
		{name: "encoded lower-case slash", path: "/__s/a%2fb/v1/customers", status: 400, code: "invalid-session"},
		{name: "encoded alphabet", path: "/__s/%61/v1/customers", status: 400, code: "invalid-session"},
		{name: "empty", path: "/__s//v1/customers", status: 400, code: "invalid-session"},
		{name: "dot dot", path: "/__s/../v1/customers", status: 400, code: "invalid-session"},
		{name: "dot", path: "/__s/./v1/customers", status: 400, code: "invalid-session"},
		{name: "encoded dot dot", path: "/__s/%2e%2e/v1/customers", status: 400, code: "invalid-session"},
		{name: "space", path: "/__s/a%20b/v1/customers", status: 400, code: "invalid-session"},
		{name: "plain", path: "/__s/p-1/v1/customers", status: 200, session: "p-1"},
		{name: "escapes after the prefix are the provider's", path: "/__s/p-2/v1/customers/cus%5F1", status: 200, session: "p-2"},
		{name: "no provider path", path: "/__s/p-3", status: 501, session: "p-3", code: "route-miss", message: "GET /\""},
		{name: "no provider path, trailing slash", path: "/__s/p-4/", status: 501, session: "p-4", code: "route-miss", message: "GET /\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := send(t, context.Background(), "GET", url+tc.path, "", "", nil)
			if rep.status != tc.status {
				t.Fatalf("status: want %d, have %d: %s", tc.status, rep.status, rep.body)
			}
			if tc.session != "" {
				if have := rep.header.Get(ipc.SessionHeader); have != tc.session {
					t.Errorf("session: want %q, have %q", tc.session, have)
				}
			}
			if tc.code != "" && !strings.Contains(string(rep.body), `"code":"`+tc.code+`"`) {
				t.Errorf("body: want code %s, have %s", tc.code, rep.body)
			}
			if tc.message != "" && !strings.Contains(string(rep.body), tc.message) {
				t.Errorf("body: want %s in the message, have %s", tc.message, rep.body)
			}
		})
	}
	for _, name := range []string{"a", "b", "..", "."} {
		if e.Store().Get(name) != nil {
			t.Errorf("a refused path prefix created session %q", name)
		}
	}
}
