package server

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"testing"
)

// TestDotSessionNamesRefused: "." and ".." are not session names, from any
// source. A path resolves them away, so the viewer's reset of ".." was
// POST /__wraith/reset (every session) and its reset of "." provisioned a
// session called reset; nor could such a session be reset or deleted by
// name. Before, the header, the credential, the provisioning body and the
// fork body all made one.
func TestDotSessionNamesRefused(t *testing.T) {
	srv := startServer(t, "checkout")
	do(t, srv.URL(), call{method: "POST", path: "/__wraith/session", json: `{"session":"src"}`})
	basic := func(user string) string { return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":")) }
	type row struct {
		name string
		call call
		want int
		code string
	}
	var tests []row
	for _, name := range []string{".", ".."} {
		tests = append(tests,
			row{"header " + name, call{path: "/v1/balance", session: name}, 400, "invalid-session"},
			row{"bearer credential " + name, call{path: "/v1/balance", header: map[string]string{"Authorization": "Bearer sk_test_123.wraith." + name}}, 400, "invalid-session"},
			row{"basic credential " + name, call{path: "/v1/balance", header: map[string]string{"Authorization": basic("sk_test_123.wraith." + name)}}, 400, "invalid-session"},
			row{"path prefix " + name, call{path: "/__s/" + name + "/v1/balance"}, 400, "invalid-session"},
			row{"provisioning body " + name, call{method: "POST", path: "/__wraith/session", json: `{"session":"` + name + `"}`}, 400, "invalid-session"},
			row{"fork body " + name, call{method: "POST", path: "/__wraith/session/src/fork", json: `{"session":"` + name + `"}`}, 400, "invalid-session"},
		)
	}
	tests = append(tests,
		row{"path prefix %2e%2e", call{path: "/__s/%2e%2e/v1/balance"}, 400, "invalid-session"},
		row{"header %2E%2e", call{path: "/v1/balance", session: "%2E%2e"}, 400, "invalid-session"},
		row{"control path %2e%2e", call{method: "POST", path: "/__wraith/session/%2e%2e/reset"}, 400, "invalid-path"},
		row{"control path .", call{method: "DELETE", path: "/__wraith/session/%2E"}, 400, "invalid-path"},
	)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := do(t, srv.URL(), tt.call)
			if resp.StatusCode != tt.want || errorCode(body) != tt.code {
				t.Fatalf("want %d %s, have %d %s", tt.want, tt.code, resp.StatusCode, body)
			}
		})
	}
	if have := sessionNames(t, srv); !slices.Equal(have, []string{"src"}) {
		t.Errorf("sessions after the refused names: want [src], have %q", have)
	}
}

// TestNamesWithDotsAndColons: names that are not dot segments keep
// working through every control path, the viewer's reset and delete
// included.
func TestNamesWithDotsAndColons(t *testing.T) {
	srv := startServer(t, "checkout")
	for _, name := range []string{"a:b", "x.y", "...", ".x", "x.."} {
		t.Run(name, func(t *testing.T) {
			steps := []struct {
				call call
				want int
			}{
				{call{method: "POST", path: "/__wraith/session", json: `{"session":"` + name + `"}`}, 201},
				{call{method: "POST", path: "/v1/customers", session: name, form: "email=a%40example.com"}, 200},
				{call{path: "/__wraith/session/" + name + "/journal"}, 200},
				{call{method: "POST", path: "/__wraith/session/" + name + "/reset"}, 200},
				{call{path: "/__wraith/session/" + name + "/digest"}, 200},
				{call{method: "POST", path: "/__wraith/session/" + name + "/fork", json: `{"session":"` + name + `.fork"}`}, 201},
				{call{method: "DELETE", path: "/__wraith/session/" + name + ".fork"}, 200},
				{call{method: "DELETE", path: "/__wraith/session/" + name}, 200},
			}
			for _, s := range steps {
				resp, body := do(t, srv.URL(), s.call)
				if resp.StatusCode != s.want {
					t.Fatalf("%s %s: want %d, have %d %s", s.call.method, s.call.path, s.want, resp.StatusCode, body)
				}
			}
		})
	}
	if have := sessionNames(t, srv); len(have) != 0 {
		t.Errorf("sessions after deleting them all: want none, have %q", have)
	}
}

// sessionNames lists the sessions of srv, in the control plane's order.
func sessionNames(tb testing.TB, srv *Server) []string {
	tb.Helper()
	resp, body := do(tb, srv.URL(), call{path: "/__wraith/session"})
	if resp.StatusCode != 200 {
		tb.Fatalf("GET /__wraith/session: %d %s", resp.StatusCode, body)
	}
	var list struct{ Sessions []struct{ Session string } }
	if err := json.Unmarshal(body, &list); err != nil {
		tb.Fatal(err)
	}
	var names []string
	for _, s := range list.Sessions {
		names = append(names, s.Session)
	}
	return names
}
