package scrub

import (
	"net/http"
	"strings"
)

// Headers returns a copy of h without credentials: Authorization,
// Proxy-Authorization, Cookie, Set-Cookie, X-Api-Key, Api-Key and any header
// whose name contains "token" or "secret", in any case. Stripe-Account is
// kept: it names a connected account and grants nothing by itself. The copy
// shares no memory with h. A nil h gives nil.
func Headers(h http.Header) http.Header {
	if h == nil {
		return nil
	}
	out := make(http.Header, len(h))
	for name, values := range h {
		if isCredentialHeader(name) {
			continue
		}
		out[name] = append([]string(nil), values...)
	}
	return out
}

func isCredentialHeader(name string) bool {
	switch http.CanonicalHeaderKey(name) {
	case "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie",
		"X-Api-Key", "Api-Key":
		return true
	}
	name = strings.ToLower(name)
	return strings.Contains(name, "token") || strings.Contains(name, "secret")
}
