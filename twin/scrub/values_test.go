package scrub

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

func TestSecretToken(t *testing.T) {
	s := New([]byte(testKey), Policy{})
	for _, tc := range []struct{ in, shape string }{
		{"pi_3NabcDEF123_secret_Xyz987qwe", `^pi_tok[0-9a-f]{12}_secret_tok[0-9a-f]{12}$`},
		{"sk_live_51HabcDEFghi", `^sk_live_tok[0-9a-f]{12}$`},
		{"hunter_two", `^tok[0-9a-f]{12}$`},
		{"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl", `^tok[0-9a-f]{12}\.tok[0-9a-f]{12}\.tok[0-9a-f]{12}$`},
		{"пароль", `^tok[0-9a-f]{12}$`},
		{"", `^$`},
	} {
		have := s.SecretToken(tc.in)
		if !regexp.MustCompile(tc.shape).MatchString(have) {
			t.Errorf("SecretToken(%q): want %s, have %q", tc.in, tc.shape, have)
		}
		if again := s.SecretToken(have); again != have {
			t.Errorf("SecretToken twice on %q: want %q, have %q", tc.in, have, again)
		}
		if other := New([]byte(testKey+"x"), Policy{}).SecretToken(tc.in); tc.in != "" && other == have {
			t.Errorf("SecretToken(%q): want another token under another key, have the same %q", tc.in, have)
		}
	}
}

func TestCards(t *testing.T) {
	s := New([]byte(testKey), Policy{})
	for _, tc := range []struct {
		in   string
		want string // card shapes as <<…>>, each a token of the same layout
	}{
		{"4242424242424242", "<<4242424242424242>>"},
		{"card 4242 4242 4242 4242 declined", "card <<4242 4242 4242 4242>> declined"},
		{"5555-5555-5555-4444", "<<5555-5555-5555-4444>>"},
		{"378282246310005", "<<378282246310005>>"},
		{"4242424242424242 2024", "<<4242424242424242>> 2024"},
		{"4242424242424241", "4242424242424241"},         // not Luhn-valid
		{"ch_4242424242424242", "ch_4242424242424242"},   // part of an id
		{"42424242424242424242", "42424242424242424242"}, // 20 digits
		{"1234", "1234"},
		{"0000424242424241", "0000424242424241"},
	} {
		have := s.cards(tc.in, nil)
		var cards []string
		re := regexp.MustCompile(`<<([^>]*)>>`)
		want := re.ReplaceAllStringFunc(tc.want, func(m string) string {
			cards = append(cards, m[2:len(m)-2])
			return s.cardToken(m[2 : len(m)-2])
		})
		if have != want {
			t.Errorf("cards(%q): want %q, have %q", tc.in, want, have)
		}
		for _, c := range cards {
			tok := s.cardToken(c)
			if len(tok) != len(c) || !luhn(tok) || !strings.HasPrefix(strings.NewReplacer(" ", "", "-", "").Replace(tok), cardTokPrefix) {
				t.Errorf("cardToken(%q) = %q: want the same layout, Luhn-valid, starting %s", c, tok, cardTokPrefix)
			}
		}
		if again := s.cards(have, nil); again != have {
			t.Errorf("cards twice on %q: want %q, have %q", tc.in, have, again)
		}
	}
}

func TestKnownCredentials(t *testing.T) {
	s := New([]byte(testKey), Policy{})
	for _, v := range []string{
		"sk_live_51HabcdefGHIJKLMNOP", "rk_test_abcdefghij12345", "whsec_abcdefghijklmnop1234",
		"ghp_abcdefghijklmnopqrstuvwxyz0123456789", "github_pat_11ABCDEFG0123456789_abcdefghij",
		"AKIAIOSFODNN7EXAMPLE", "AIzaSyA-abcdefghijklmnopqrstuvwxyz012345",
		"xoxb-123456789012-abcdefghij", "Authorization: Bearer abcdefghijklmnop1234",
		"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc",
	} {
		if FindKnownCredential(v) == "" {
			t.Errorf("FindKnownCredential(%q): want a match, have none", v)
		}
		scrubbed := s.Value(v)
		if name := FindKnownCredential(scrubbed); name != "" {
			t.Errorf("Value(%q) = %q: still holds a %s", v, scrubbed, name)
		}
		if again := s.Value(scrubbed); again != scrubbed {
			t.Errorf("Value twice on %q: want %q, have %q", v, scrubbed, again)
		}
	}
	for _, v := range []string{"pk_live_abcdefghijkl", "sk_live_tok0123456789ab", "Bearer tok0123456789ab", "sketchy", "ghost"} {
		if name := FindKnownCredential(v); name != "" {
			t.Errorf("FindKnownCredential(%q): want none, have %s", v, name)
		}
	}
}

func TestPassEchoes(t *testing.T) {
	s := New([]byte(testKey), Policy{})
	p := s.NewPass()
	p.Secret("sk_live_injected")
	h := p.Headers(http.Header{
		"Authorization": {"Basic " + "dXNlcjpodW50ZXIyMg=="}, // user:hunter22
		"Location":      {"https://x.example/cb?code=1&access_token=leaked-token&email=a%40b.co#id_token=leaked-id&state=s"},
		"Link":          {`<https://x.example/?page=2&api_key=leaked-key>; rel="next"`},
		"X-Echo":        {"key sk_live_injected"},
	})
	if _, ok := h["Authorization"]; ok {
		t.Errorf("Headers: want Authorization removed, have %q", h["Authorization"])
	}
	req, err := p.RequestJSON([]byte(`{"password":"hunter22","nested":{"refresh_token":"r-0123456789","max_tokens":5},"emails":["jenny@example.com"],"card":"4242424242424242"}`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(req), "password") || strings.Contains(string(req), "refresh_token") || !strings.Contains(string(req), `"max_tokens":5`) {
		t.Errorf("RequestJSON: want credential members removed and counts kept, have %s", req)
	}
	resp, err := p.EchoJSON([]byte(`{"error":"password hunter22 too weak for jenny@example.com","card":"x 4242424242424242","key":"sk_live_injected","seen":"r-0123456789"}`))
	if err != nil {
		t.Fatal(err)
	}
	all := string(req) + string(resp) + strings.Join(h["Location"], "") + strings.Join(h["Link"], "") + p.EchoHeaders(h).Get("X-Echo")
	for _, planted := range []string{"hunter22", "leaked-token", "leaked-id", "leaked-key", "a@b.co", "jenny@example.com", "4242424242424242", "sk_live_injected", "r-0123456789"} {
		if strings.Contains(all, planted) {
			t.Errorf("want %q nowhere, have it in %s", planted, all)
		}
	}
	if !json.Valid(resp) || !strings.Contains(h.Get("Location"), "code=1") || !strings.Contains(h.Get("Location"), "state=s") {
		t.Errorf("want the rest kept, have %s and %q", resp, h.Get("Location"))
	}
}

func TestResponseJSONTokenizes(t *testing.T) {
	s := New([]byte(testKey), Policy{})
	in := `{"access_token":"gho_abcdefghijklmnopqrstuvwxyz012345","refresh_token":"r1-abcdef","token_type":"bearer","expires_in":3600,"client_secret":"pi_3Nabc123_secret_Xyz987"}`
	have, err := s.JSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(have, &m)
	if !regexp.MustCompile(`^gho_tok[0-9a-f]{12}$`).MatchString(m["access_token"].(string)) ||
		!regexp.MustCompile(`^pi_tok[0-9a-f]{12}_secret_tok[0-9a-f]{12}$`).MatchString(m["client_secret"].(string)) ||
		m["token_type"] != "bearer" || m["expires_in"] != 3600.0 || strings.Contains(string(have), "r1-abcdef") {
		t.Errorf("JSON(%s): want shape-keeping secret tokens, have %s", in, have)
	}
}
