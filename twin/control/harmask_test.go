package control_test

import (
	"strings"
	"testing"
)

// TestHARMasksHiddenCards: a card number or a credential an agent sent in
// a form the first masking did not read — a JSON number, a text body with
// percent escapes or HTML entities — is not shown in the HAR either.
func TestHARMasksHiddenCards(t *testing.T) {
	const key = "sk_live_51HxYzAbCdEfGhIjKlMnOpQr"
	for _, tc := range []struct {
		name, ctype, body string
		hidden            []string // none of these may be in the HAR
		kept              string   // and this is, to show the body is there
	}{
		{"json number", "application/json", `{"n":4242424242424242,"m":12}`, []string{"4242424242424242"}, `"m":12`},
		{"json number in an array", "application/json", `{"list":[1,4000056655665556]}`, []string{"4000056655665556"}, `[1,`},
		{"text percent", "text/plain", "charge 4242%204242%204242%204242 now", []string{"4242%204242"}, "charge "},
		{"text percent twice", "text/plain", "charge 4242%25204242%25204242%25204242 now", []string{"4242%25204242"}, " now"},
		{"text entity", "text/plain", "key=sk_live&#95;" + key[8:] + " end", []string{key[8:]}, " end"},
		{"text percent key", "text/plain", "key=sk%5Flive%5F" + key[8:] + " end", []string{key[8:]}, "key="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := startCheckout(t)
			provision(t, base, "hidden")
			call(t, base, "POST", "/v1/customers", tc.ctype, tc.body, "hidden")
			raw, strs := harStrings(t, base, "hidden")
			for _, s := range append(strs, string(raw)) {
				for _, h := range tc.hidden {
					if strings.Contains(s, h) {
						t.Errorf("the HAR holds %q in %.300q", h, s)
					}
				}
			}
			found := false
			for _, s := range strs {
				found = found || strings.Contains(s, tc.kept)
			}
			if !found {
				t.Errorf("want %q of the body in the HAR, not found", tc.kept)
			}
		})
	}
}
