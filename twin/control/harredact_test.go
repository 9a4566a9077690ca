package control

import "testing"

func TestRedactJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":1,"password":"p","b":[true,null,{"api_key":{"x":[1]}}],"c":"<&>"}`, `{"a":1,"password":"[redacted]","b":[true,null,{"api_key":"[redacted]"}],"c":"<&>"}`},
		{`[{"token":"t"},{"author":3}]`, `[{"token":"[redacted]"},{"author":3}]`},
		{`{"a":1.50,"n":-0e3}`, `{"a":1.50,"n":-0e3}`},
		// Cut off: shown up to where it breaks, never a credential's start.
		{`{"a":"x","password":"hunt`, `{"a":"x","password":`},
		{`{"a":{"secret":{"k":"v"`, `{"a":{"secret":`},
		{`{"a":"x", "b":[1,2`, `{"a":"x","b":[1,2`},
		{`not json`, ``},
	} {
		if have := string(redactJSON([]byte(tc.in), false)); have != tc.want {
			t.Errorf("redactJSON(%s):\nwant %s\nhave %s", tc.in, tc.want, have)
		}
	}
}
