package scrub

import "testing"

func TestIsCredential(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"access_token", true}, {"refresh_token", true}, {"id_token", true}, {"refreshToken", true},
		{"token", true}, {"X-Auth-Token", true}, {"csrfmiddlewaretoken", true},
		{"client_secret", true}, {"secretKey", true}, {"password", true}, {"db_passwd", true},
		{"pwd", true}, {"new_password_confirmation", true}, {"passphrase", true},
		{"api_key", true}, {"apiKey", true}, {"APIKey", true}, {"X-Goog-Api-Key", true}, {"x-api-key", true},
		{"aws_access_key_id", true}, {"private_key", true},
		{"auth", true}, {"Authorization", true}, {"Proxy-Authorization", true}, {"oauth_verifier", true},
		{"authorization_code", true}, {"x-auth-user", true}, {"authKey", true},
		{"signature", true}, {"Stripe-Signature", true}, {"X-Hub-Signature-256", true}, {"sig", true},
		{"credentials", true}, {"X-Amz-Credential", true}, {"cookie", true}, {"Set-Cookie", true},
		{"cvc", true}, {"card_cvv", true}, {"otp", true}, {"tokens", true},
		// not credentials
		{"author", false}, {"author_association", false}, {"authority", false}, {"authored_at", false},
		{"authenticated", false}, {"authentication_flow", false}, {"Www-Authenticate", false},
		{"tokenization_method", false}, {"token_type", false}, {"token_type_hint", false},
		{"idempotency_key", false}, {"publishable_key", false}, {"key", false}, {"session_id", false},
		{"description", false}, {"id", false}, {"signal", false}, {"design", false}, {"email", false},
	} {
		if have := IsCredential(tc.name); have != tc.want {
			t.Errorf("IsCredential(%q): want %v, have %v", tc.name, tc.want, have)
		}
	}
}

func TestCountable(t *testing.T) {
	for _, name := range []string{"max_tokens", "tokens_used", "total_tokens", "tokens"} {
		if have := classify(name); have != countable {
			t.Errorf("classify(%q): want countable, have %v", name, have)
		}
	}
}

func TestIsCredentialHeader(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"X-Session-Id", true}, {"Key", true}, {"X-Wraith-Session", false},
		{"Idempotency-Key", false}, {"Stripe-Account", false}, {"Location", false},
	} {
		if have := IsCredentialHeader(tc.name); have != tc.want {
			t.Errorf("IsCredentialHeader(%q): want %v, have %v", tc.name, tc.want, have)
		}
	}
}

func TestWords(t *testing.T) {
	for in, want := range map[string]string{
		"refreshToken": "refresh token", "APIKey": "api key", "X-Goog-Api-Key": "x goog api key",
		"customer[email]": "customer email", "": "", "a1B2": "a1 b2",
	} {
		have := ""
		for i, w := range words(in) {
			if i > 0 {
				have += " "
			}
			have += w
		}
		if have != want {
			t.Errorf("words(%q): want %q, have %q", in, want, have)
		}
	}
}
