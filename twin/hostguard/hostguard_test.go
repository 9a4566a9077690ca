package hostguard

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name   string
		host   string // "" keeps 127.0.0.1:1234
		header map[string]string
		policy Policy
		want   Reason // 0: allowed
		by     string // the header that decided
	}{
		{"curl", "", nil, LoopbackOrigins, 0, ""},
		{"curl, strict", "", nil, SameOriginOnly, 0, ""},
		{"localhost", "localhost:1234", nil, SameOriginOnly, 0, ""},
		{"IPv6 loopback", "[::1]:1234", nil, SameOriginOnly, 0, ""},
		{"rebinding", "attacker.example:1234", nil, LoopbackOrigins, ForeignHost, "Host"},
		{"rebinding, strict", "attacker.example:1234", map[string]string{"Sec-Fetch-Site": "same-origin"}, SameOriginOnly, ForeignHost, "Host"},
		{"no Host", "-", nil, LoopbackOrigins, ForeignHost, "Host"},
		{"cross-site form", "", map[string]string{"Origin": "https://attacker.example"}, LoopbackOrigins, ForeignOrigin, "Origin"},
		{"null origin", "", map[string]string{"Origin": "null"}, SameOriginOnly, ForeignOrigin, "Origin"},
		// What a page the twin replays under its sandbox sends: an opaque
		// origin, though its URL (the Referer) is the twin's own.
		{"sandboxed page", "", map[string]string{"Origin": "null", "Referer": "http://127.0.0.1:1234/search?q=x", "Sec-Fetch-Site": "cross-site"}, LoopbackOrigins, ForeignOrigin, "Origin"},
		{"cross-site Referer", "", map[string]string{"Referer": "https://attacker.example/page"}, LoopbackOrigins, ForeignOrigin, "Referer"},
		{"loopback Origin", "", map[string]string{"Origin": "http://localhost:5173", "Sec-Fetch-Site": "cross-site"}, LoopbackOrigins, 0, ""},
		{"loopback Origin, strict", "", map[string]string{"Origin": "http://localhost:5173", "Sec-Fetch-Site": "cross-site"}, SameOriginOnly, ForeignOrigin, "Sec-Fetch-Site"},
		{"same-site, strict", "", map[string]string{"Origin": "http://127.0.0.1:8080", "Sec-Fetch-Site": "same-site"}, SameOriginOnly, ForeignOrigin, "Sec-Fetch-Site"},
		{"same-site", "", map[string]string{"Origin": "http://127.0.0.1:8080", "Sec-Fetch-Site": "same-site"}, LoopbackOrigins, 0, ""},
		{"hidden origin, cross-site", "", map[string]string{"Sec-Fetch-Site": "cross-site"}, LoopbackOrigins, ForeignOrigin, "Sec-Fetch-Site"},
		{"hidden origin, unknown value", "", map[string]string{"Sec-Fetch-Site": "elsewhere"}, LoopbackOrigins, ForeignOrigin, "Sec-Fetch-Site"},
		{"same-origin", "", map[string]string{"Origin": "http://127.0.0.1:1234", "Sec-Fetch-Site": "same-origin"}, SameOriginOnly, 0, ""},
		{"typed URL", "", map[string]string{"Sec-Fetch-Site": "none"}, SameOriginOnly, 0, ""},
		{"upper-case value", "", map[string]string{"Sec-Fetch-Site": "Cross-Site"}, SameOriginOnly, ForeignOrigin, "Sec-Fetch-Site"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:1234/v1/charges", nil)
			switch tt.host {
			case "":
			case "-":
				r.Host = ""
			default:
				r.Host = tt.host
			}
			for k, v := range tt.header {
				r.Header.Set(k, v)
			}
			have := Check(r, tt.policy)
			switch {
			case tt.want == 0 && have != nil:
				t.Errorf("want allowed, have refused by %s %q", have.Header, have.Value)
			case tt.want != 0 && have == nil:
				t.Errorf("want refused by %s, have allowed", tt.by)
			case have != nil && (have.Reason != tt.want || have.Header != tt.by):
				t.Errorf("want reason %d by %s, have %d by %s", tt.want, tt.by, have.Reason, have.Header)
			}
		})
	}
}

func TestListenAddr(t *testing.T) {
	for _, tt := range []struct{ host, want string }{
		{"127.0.0.1", "127.0.0.1:80"},
		{"::1", "[::1]:80"},
		{"[::1]", "[::1]:80"},
		{"", ":80"},
		{"localhost", "localhost:80"},
	} {
		if have := ListenAddr(tt.host, 80); have != tt.want {
			t.Errorf("ListenAddr(%q, 80): want %q, have %q", tt.host, tt.want, have)
		}
	}
}

func TestLoopbackBind(t *testing.T) {
	dns := func(_ context.Context, host string) ([]netip.Addr, error) {
		if host == "twin.loop" {
			return []netip.Addr{netip.MustParseAddr("::1")}, nil
		}
		return nil, errors.New("no such host")
	}
	for _, tt := range []struct {
		host    string
		want    bool
		wantErr bool
	}{
		{"[::1]", true, false}, {"::1", true, false}, {"twin.loop", true, false},
		{"[::]", false, false}, {"", false, false}, {"nowhere.invalid", false, true},
	} {
		have, err := LoopbackBind(tt.host, dns)
		if have != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("LoopbackBind(%q): want %v (error %v), have %v (%v)", tt.host, tt.want, tt.wantErr, have, err)
		}
	}
}

func TestToken(t *testing.T) {
	tok := NewToken("s3cret")
	if !tok.Set() || !tok.Matches("s3cret") || tok.Matches("s3cre") || tok.Matches("") {
		t.Error("a token matches itself only")
	}
	if (Token{}).Set() || (Token{}).Matches("") || NewToken("").Set() {
		t.Error("the zero Token is no token and matches nothing")
	}
	h := http.Header{}
	if _, err := Bearer(h); err == nil {
		t.Error("no header: want ErrNoBearer")
	}
	h.Set("Authorization", "bearer  s3cret ")
	if have, err := Bearer(h); err != nil || have != "s3cret" {
		t.Errorf("Bearer: want s3cret, have %q %v", have, err)
	}
	h.Add("Authorization", "Bearer s3cret")
	if _, err := Bearer(h); err == nil {
		t.Error("two headers: want ErrNoBearer")
	}
}

func TestTokenFromEnv(t *testing.T) {
	env := map[string]string{"GOOD": "abc", "BLANK": "  ", "SPACED": " abc"}
	getenv := func(k string) string { return env[k] }
	if tok, err := TokenFromEnv("--x-token-env", "GOOD", getenv); err != nil || tok != "abc" {
		t.Errorf("GOOD: want abc, have %q %v", tok, err)
	}
	for name, want := range map[string]string{
		"UNSET":        "--x-token-env UNSET: the variable UNSET is unset or empty",
		"BLANK":        "unset or empty",
		"SPACED":       "white space",
		"abc/def+ghi=": "the name of an environment variable",
	} {
		_, err := TokenFromEnv("--x-token-env", name, getenv)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: want an error saying %q, have %v", name, want, err)
		}
		if err != nil && strings.Contains(err.Error(), "abc/def") {
			t.Errorf("the message repeats what may be the token: %v", err)
		}
	}
}
