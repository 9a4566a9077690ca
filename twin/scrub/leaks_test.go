package scrub

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
)

// azureKey is an Azure storage account key: 64 bytes in base64.
var azureKey = base64.StdEncoding.EncodeToString([]byte(strings.Repeat("azure-storage-key!", 4)[:64]))

// TestAzureKeys: an Azure storage account key is scrubbed in a connection
// string under any name, under its usual JSON names, as an 88-character
// base64 value under a neutral name (listKeys' "value"), and in the
// headers that carry Azure keys; the names around it are kept.
func TestAzureKeys(t *testing.T) {
	s := New([]byte(testKey), Policy{})
	conn := "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=" + azureKey + ";EndpointSuffix=core.windows.net"
	bus := "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=root;SharedAccessKey=" + azureKey[:44]
	for _, tc := range []struct{ name, body, keep string }{
		{"connection string under a neutral name", `{"setting":"` + conn + `"}`, "AccountName=acme;AccountKey="},
		{"service bus connection string", `{"setting":"` + bus + `"}`, "SharedAccessKey="},
		{"connection string in text", `{"note":"use ` + conn + ` here"}`, "EndpointSuffix=core.windows.net"},
		{"connectionString name", `{"connectionString":"` + conn + `"}`, `"connectionString"`},
		{"listKeys value", `{"keys":[{"keyName":"key1","value":"` + azureKey + `","permissions":"FULL"}]}`, `"keyName":"key1"`},
		{"primaryKey", `{"primaryKey":"` + azureKey[:20] + `","secondaryKey":"` + azureKey[20:40] + `"}`, `"primaryKey"`},
		{"primaryMasterKey", `{"primaryMasterKey":"` + azureKey[:30] + `"}`, `"primaryMasterKey"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, part := range []string{azureKey, azureKey[:20], azureKey[20:40], azureKey[:30]} {
				if !strings.Contains(tc.body, part) {
					continue
				}
				for _, req := range []bool{false, true} {
					p := s.NewPass()
					have, err := p.json([]byte(tc.body), req, false)
					if err != nil {
						t.Fatal(err)
					}
					if strings.Contains(string(have), part) {
						t.Errorf("request %v: want %q scrubbed, have %s", req, part, have)
					}
					if !req && !strings.Contains(string(have), tc.keep) {
						t.Errorf("response: want %q kept, have %s", tc.keep, have)
					}
				}
			}
		})
	}
	p := s.NewPass()
	h := p.Headers(http.Header{
		"X-Ms-Encryption-Key":       {azureKey},
		"Ocp-Apim-Subscription-Key": {"0123456789abcdef0123456789abcdef"},
		"X-Functions-Key":           {"functionkey0123456789"},
		"X-Ms-Copy-Source":          {"https://acme.blob.core.windows.net/c/b?sv=2020-08-04&sig=c2lnbmF0dXJlMDEyMzQ1Njc4OQ%3D%3D"},
		"X-Ms-Meta-Note":            {conn},
		"Idempotency-Key":           {"k-0123456789"},
		"X-Ms-Version":              {"2020-08-04"},
	})
	all := strings.Join(h.Values("X-Ms-Copy-Source"), "") + strings.Join(h.Values("X-Ms-Meta-Note"), "")
	for _, gone := range []string{"X-Ms-Encryption-Key", "Ocp-Apim-Subscription-Key", "X-Functions-Key"} {
		if _, ok := h[gone]; ok {
			t.Errorf("header %s: want it removed, have %q", gone, h[gone])
		}
	}
	for _, secret := range []string{azureKey, "c2lnbmF0dXJlMDEyMzQ1Njc4OQ"} {
		if strings.Contains(all, secret) {
			t.Errorf("headers: want %q scrubbed, have %s", secret, all)
		}
	}
	if h.Get("Idempotency-Key") != "k-0123456789" || h.Get("X-Ms-Version") != "2020-08-04" || !strings.Contains(all, "AccountName=acme") {
		t.Errorf("headers: want Idempotency-Key, X-Ms-Version and the account name kept, have %v", h)
	}
}

// TestOAuthCodes: an authorization code is removed from the query of an
// OAuth callback, from a token exchange's form and JSON body, and from a
// Location that redirects to a callback; "code" elsewhere is kept, and
// authorization_code, refresh_token and id_token are credentials
// wherever they appear.
func TestOAuthCodes(t *testing.T) {
	s := New([]byte(testKey), Policy{})
	const code = "SplxlOBeZQQYbYS6WxSbIA"
	for _, tc := range []struct{ name, in, want string }{
		{"callback query", "code=" + code + "&state=xyz", "state=xyz"},
		{"OIDC callback", "session_state=abc&code=" + code, "session_state=abc"},
		{"token exchange", "grant_type=authorization_code&code=" + code + "&redirect_uri=https%3A%2F%2Fapp.example%2Fcb", "grant_type=authorization_code&redirect_uri=https%3A%2F%2Fapp.example%2Fcb"},
		{"PKCE", "code=" + code + "&code_verifier=" + code + "x", ""},
		{"named authorization_code", "authorization_code=" + code, ""},
		{"refresh", "grant_type=refresh_token&refresh_token=" + code, "grant_type=refresh_token"},
		{"id_token", "id_token=" + code + "&x=1", "x=1"},
		{"a code that is not OAuth", "code=US&limit=3", "code=US&limit=3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if have := s.Form(tc.in); have != tc.want {
				t.Errorf("Form(%q): want %q, have %q", tc.in, tc.want, have)
			}
		})
	}
	p := s.NewPass()
	body, err := p.RequestJSON([]byte(`{"note":"grant_type first in a string","code":"` + code + `","client_id":"app","grant_type":"authorization_code"}`))
	if err != nil || strings.Contains(string(body), code) || !strings.Contains(string(body), `"client_id":"app"`) {
		t.Errorf("JSON token exchange: want code removed and client_id kept, have %s (%v)", body, err)
	}
	if body, _ := p.RequestJSON([]byte(`{"code":"card_declined","message":"no"}`)); string(body) != `{"code":"card_declined","message":"no"}` {
		t.Errorf("an error code outside OAuth: want it kept, have %s", body)
	}
	h := p.Headers(http.Header{"Location": {"https://app.example/cb?code=" + code + "&state=xyz"}})
	if loc := h.Get("Location"); strings.Contains(loc, code) || !strings.Contains(loc, "state=xyz") {
		t.Errorf("Location to a callback: want the code removed and state kept, have %q", loc)
	}
	// Having removed it, the pass replaces its echoes.
	if have := p.EchoText("invalid_grant: code " + code + " was used"); strings.Contains(have, code) {
		t.Errorf("echo of the code: want it replaced, have %q", have)
	}
}

// TestEmailHeaders: an email in a request header is tokenized: the whole
// value of From and of headers with personal names, and an address inside
// any other header's value.
func TestEmailHeaders(t *testing.T) {
	s := New([]byte(testKey), Policy{})
	p := s.NewPass()
	const mail = "jenny.rosen@example.com"
	tok := s.Token("", mail)
	h := p.Headers(http.Header{
		"From":              {mail},
		"X-User-Email":      {mail},
		"X-Forwarded-Email": {"<" + mail + ">"},
		"X-Requested-By":    {"Jenny <" + mail + "> via SSO"},
		"X-Real-Ip":         {"203.0.113.7"},
		"Content-Type":      {"application/json"},
	})
	for name, want := range map[string]string{
		"From": tok, "X-User-Email": tok, "X-Requested-By": "Jenny <" + tok + "> via SSO",
		"Content-Type": "application/json",
	} {
		if have := h.Get(name); have != want {
			t.Errorf("%s: want %q, have %q", name, want, have)
		}
	}
	for name, vs := range h {
		for _, v := range vs {
			if strings.Contains(v, mail) || strings.Contains(v, "203.0.113.7") {
				t.Errorf("%s: want no personal data, have %q", name, v)
			}
		}
	}
	if have := p.EchoText("sent by " + mail); strings.Contains(have, mail) {
		t.Errorf("echo of a header's email: want it replaced, have %q", have)
	}
}

// TestMask: Mask zeroes card numbers by the Luhn check, in their layout,
// and replaces known credential shapes, with no key.
func TestMask(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"card[number]=4242424242424242&x=1", "card[number]=0000000000000000&x=1"},
		{`{"n":"4000 0566 5566 5556","m":"1234567890123"}`, `{"n":"0000 0000 0000 0000","m":"1234567890123"}`},
		{"pay 5555-5555-5555-4444 now", "pay 0000-0000-0000-0000 now"},
		{"key sk_live_51HabcdefGHIJKLMNOP!", "key [redacted]!"},
		{"order 1234567890123456", "order 1234567890123456"}, // not Luhn-valid
	} {
		if have := Mask(tc.in, "[redacted]"); have != tc.want {
			t.Errorf("Mask(%q): want %q, have %q", tc.in, tc.want, have)
		}
		if again := Mask(Mask(tc.in, "[redacted]"), "[redacted]"); again != tc.want {
			t.Errorf("Mask twice on %q: want %q, have %q", tc.in, tc.want, again)
		}
	}
}
