package control_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// startCheckout serves the embedded checkout twin and its control plane
// on 127.0.0.1:0.
func startCheckout(tb testing.TB) string {
	tb.Helper()
	h, eng := newCheckout(tb)
	mux := http.NewServeMux()
	mux.Handle("/__wraith/", h)
	mux.Handle("/", eng)
	srv := httptest.NewServer(mux)
	tb.Cleanup(srv.Close)
	return srv.URL
}

func provision(tb testing.TB, base, sess string) {
	tb.Helper()
	if status, _, b := call(tb, base, "POST", "/__wraith/session", "application/json", `{"session":"`+sess+`"}`, ""); status != http.StatusCreated {
		tb.Fatalf("provision %s: want 201, have %d %s", sess, status, b)
	}
}

// harStrings returns every string in the HAR of session sess, decoded
// from the HAR's own JSON: what a tool reading the file sees.
func harStrings(tb testing.TB, base, sess string) (raw []byte, strs []string) {
	tb.Helper()
	status, _, b := call(tb, base, "GET", "/__wraith/session/"+sess+"/journal?format=har", "", "", "")
	if status != http.StatusOK {
		tb.Fatalf("HAR: want 200, have %d %s", status, b)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		tb.Fatalf("HAR is not JSON: %v\n%s", err, b)
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			strs = append(strs, v)
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for k, x := range v {
				strs = append(strs, k)
				walk(x)
			}
		}
	}
	walk(doc)
	return b, strs
}

// TestHARKeepsEscapes: what the journal kept escaped, the HAR writes
// escaped. A key an agent sent as "\u0073\u006b…" in JSON, percent-encoded
// in a form or a query, never appears in plain text in the HAR, neither in
// its bytes nor in any of its strings once the HAR itself is decoded
// (before, the export decoded JSON strings and query pairs and so wrote
// the key out).
func TestHARKeepsEscapes(t *testing.T) {
	base := startCheckout(t)
	provision(t, base, "esc")
	const key = "sk_live_Ab/Cd+Ef=Gh_51HxYzQ9"
	allU := ""
	for i := 0; i < len(key); i++ {
		allU += fmt.Sprintf(`\u%04x`, key[i])
	}
	pct := strings.ReplaceAll(url.QueryEscape(key), "s", "%73")
	// Paths the twin does not serve: the answer (a route miss) does not
	// echo the request, so only the request side can hold the key.
	for _, c := range []struct{ method, path, ctype, body string }{
		{"POST", "/v1/customers", "application/json", `{"note":"` + allU + `","nested":[{"n":"\u0073` + key[1:] + `"}]}`},
		{"POST", "/v1/customers", "application/json", `{"note":"` + strings.ReplaceAll(key, "/", `\/`) + `"}`},
		{"POST", "/v1/customers", "application/x-www-form-urlencoded", "note=" + pct},
		{"POST", "/v1/customers", "", "note=" + pct},
		{"GET", "/v1/notes?note=" + pct + "&other=" + strings.ToLower(url.QueryEscape(key)), "", ""},
	} {
		call(t, base, c.method, c.path, c.ctype, c.body, "esc")
	}
	raw, strs := harStrings(t, base, "esc")
	if strings.Contains(string(raw), key) {
		t.Errorf("the HAR's bytes hold the key in plain text:\n%s", raw)
	}
	for _, s := range strs {
		if strings.Contains(s, key) {
			t.Errorf("a string of the HAR holds the key in plain text: %q", s)
		}
	}
	for _, kept := range []string{allU, `\u0073` + key[1:], `Ab\/Cd`, pct} {
		found := false
		for _, s := range strs {
			found = found || strings.Contains(s, kept)
		}
		if !found {
			t.Errorf("want %q in the HAR as the agent sent it, not found", kept)
		}
	}
}

// TestHARMasksCards: card numbers an agent sent are masked in the HAR's
// request, as the recorder masks them on the wire: in form params and
// text, JSON, a text body, the query and headers, found by the Luhn check;
// other numbers are kept.
func TestHARMasksCards(t *testing.T) {
	base := startCheckout(t)
	provision(t, base, "cards")
	cards := []string{"4242424242424242", "5555 5555 5555 4444", "4000-0566-5566-5556", "378282246310005", "6011111111111117"}
	for _, c := range []struct{ method, path, ctype, body string }{
		{"POST", "/v1/payment_methods", "application/x-www-form-urlencoded", "type=card&card[number]=" + cards[0] + "&card[exp_month]=12&metadata[order]=1234567890123456"},
		{"POST", "/v1/payment_methods", "application/x-www-form-urlencoded", "card[number]=" + url.QueryEscape(cards[1])},
		{"POST", "/v1/payment_methods", "application/json", `{"card":{"number":"` + cards[2] + `","cvc_check":"x"},"list":["` + cards[3] + `"]}`},
		{"POST", "/v1/customers", "text/plain", "please charge " + cards[4] + " today"},
		{"GET", "/v1/customers?card=" + cards[0], "", ""},
	} {
		call(t, base, c.method, c.path, c.ctype, c.body, "cards")
	}
	r, _ := http.NewRequest("GET", base+"/v1/customers", nil)
	r.Header.Set("X-Wraith-Session", "cards")
	r.Header.Set("X-Card", cards[3])
	if resp, err := http.DefaultClient.Do(r); err == nil {
		resp.Body.Close()
	}
	raw, strs := harStrings(t, base, "cards")
	for _, card := range cards {
		digits := strings.NewReplacer(" ", "", "-", "").Replace(card)
		for _, s := range append(strs, string(raw)) {
			for _, form := range []string{card, digits, url.QueryEscape(card)} {
				if strings.Contains(s, form) {
					t.Errorf("the HAR holds card %s as %q in %.200q", card, form, s)
				}
			}
		}
	}
	joined := strings.Join(strs, "\n")
	for _, want := range []string{"card[number]=0000000000000000", "0000+0000+0000+0000", "0000-0000-0000-0000", "please charge 0000000000000000 today", "metadata[order]=1234567890123456", "card[exp_month]=12"} {
		if !strings.Contains(joined, want) {
			t.Errorf("want %q in the HAR, not found", want)
		}
	}
}
