package scrub

import (
	"bytes"
	"strings"

	"github.com/wraithdev/wraith/twin/wire"
)

// class is what a field, key or header name says about its value.
type class uint8

const (
	notCredential class = iota
	credential
	// countable names hold counts as often as secrets ("max_tokens",
	// "tokens_used"): their strings are credentials, their numbers are not.
	countable
)

// credentialParts are substrings of a name, lowercased with its separators
// removed, that make it a credential wherever they occur: "X-Goog-Api-Key"
// joins to "xgoogapikey", "client_secret" to "clientsecret".
var credentialParts = byteStrings(
	"secret", "password", "passwd", "passphrase", "credential",
	"apikey", "privatekey", "accesskey", "signingkey", "authkey",
	"signature", "cookie",
	// Azure: storage account keys (AccountKey, primaryKey, key1's
	// "value" aside), Cosmos DB's primaryMasterKey, API Management's
	// subscription keys, customer-provided encryption keys; connection
	// strings carry account keys and passwords.
	"accountkey", "primarykey", "secondarykey", "sharedkey", "masterkey",
	"subscriptionkey", "encryptionkey", "connectionstring",
	// PKCE's code_verifier proves the holder may redeem a code.
	"codeverifier",
)

func byteStrings(ss ...string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

// credentialWords are whole words (split at separators and camelCase) that
// make a name a credential.
var credentialWords = map[string]bool{
	"pwd": true, "sig": true, "otp": true, "cvc": true, "cvv": true, "csc": true,
	"auth": true, "oauth": true, "authn": true, "authz": true, "authorization": true,
	"csrf": true, "xsrf": true,
}

// tokenNeutral are words that, after "token", describe a token rather
// than hold one: "token_type", "token_type_hint", "token_endpoint".
var tokenNeutral = map[string]bool{
	"type": true, "hint": true, "endpoint": true, "url": true, "uri": true,
	"count": true, "limit": true, "usage": true,
}

// wordHints are in every name that words can find to be a credential.
var wordHints = byteStrings("token", "auth", "pwd", "sig", "otp", "cvc", "cvv", "csc", "csrf", "xsrf")

func containsAny(b []byte, subs [][]byte) bool {
	for _, s := range subs {
		if bytes.Contains(b, s) {
			return true
		}
	}
	return false
}

// IsCredential reports whether values under name are credentials, by
// pattern rather than by list (see the package doc, "Credentials"):
// "refresh_token", "X-Goog-Api-Key", "client_secret", "db_password",
// "Stripe-Signature", "oauth_verifier" are; "author", "authority",
// "tokens_used", "tokenization_method", "idempotency_key" are not.
func IsCredential(name string) bool {
	return classify(name) != notCredential
}

func classify[T string | []byte](name T) class {
	var buf [stackName]byte
	joined := buf[:0]
	for i := 0; i < len(name); i++ {
		if c := name[i]; isAlnum(c) {
			joined = append(joined, toLower(c))
		}
	}
	for _, part := range credentialParts {
		if bytes.Contains(joined, part) {
			return credential
		}
	}
	if !containsAny(joined, wordHints) {
		return notCredential // most names: no need to split them into words
	}
	c := notCredential
	ws := words(name)
	for i, w := range ws {
		switch {
		case credentialWords[w]:
			return credential
		case w == "tokens":
			c = countable
		case strings.HasPrefix(w, "tokeniz"): // tokenization_method
		case strings.Contains(w, "token"):
			if i+1 < len(ws) && tokenNeutral[ws[i+1]] {
				continue // "token_type": "bearer"
			}
			return credential
		// "authkey", "authcode", but not "author", "authority",
		// "authored", "authenticated", "authentication_flow".
		case strings.HasPrefix(w, "auth") && !strings.HasPrefix(w, "author") && !strings.HasPrefix(w, "authentic"):
			return credential
		}
	}
	return c
}

// words splits name into lowercase words at every byte that is not a
// letter or digit and at camelCase boundaries: "refreshToken" and
// "refresh-token" both give ["refresh" "token"], "APIKey" gives
// ["api" "key"].
func words[T string | []byte](name T) []string {
	var out []string
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, strings.ToLower(string(name[start:end])))
		}
		start = -1
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isAlnum(c) {
			flush(i)
			continue
		}
		if start >= 0 && isUpper(c) {
			prev := name[i-1]
			if !isUpper(prev) || i+1 < len(name) && isLowerByte(name[i+1]) {
				flush(i)
			}
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(name))
	return out
}

// isCredentialHeader is IsCredential for header names, plus session
// headers ("X-Session-Id": cookies' stand-in for clients that send no
// cookies) and a bare "Key". X-Wraith-Session names a sandbox, not a login.
func isCredentialHeader(name string) bool {
	if IsCredential(name) {
		return true
	}
	switch {
	case strings.EqualFold(name, "Key"):
		return true
	case strings.EqualFold(name, wire.SessionHeader):
		return false
	}
	ws := words(name)
	for _, w := range ws {
		if strings.HasPrefix(w, "session") {
			return true
		}
	}
	// A header named "…-Key" carries one: Ocp-Apim-Subscription-Key,
	// X-Functions-Key, X-Ms-Encryption-Key, X-Amz-…-Customer-Key. An
	// Idempotency-Key grants nothing and is kept.
	if n := len(ws); n > 1 && ws[n-1] == "key" && ws[n-2] != "idempotency" {
		return true
	}
	return false
}

// isCredentialKey is IsCredential for a query or form key, checked per
// bracket segment ("card[cvc]"), plus the bare names that carry keys and
// sessions in URLs: "key" (Google's ?key=AIza…), "sid", "sessionid",
// "phpsessid", "jsessionid".
func isCredentialKey(key string, oauth bool) class {
	if oauth && strings.EqualFold(key, "code") {
		return credential // an OAuth authorization code
	}
	c := notCredential
	for rest := key; rest != ""; {
		i := strings.IndexAny(rest, "[]")
		if i < 0 {
			i = len(rest)
		}
		if seg := rest[:i]; seg != "" {
			switch strings.ToLower(seg) {
			case "key", "sid", "sessionid", "phpsessid", "jsessionid":
				return credential
			}
			switch classify(seg) {
			case credential:
				return credential
			case countable:
				c = countable
			}
		}
		rest = rest[min(i+1, len(rest)):]
	}
	return c
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isUpper(c byte) bool     { return 'A' <= c && c <= 'Z' }
func isLowerByte(c byte) bool { return 'a' <= c && c <= 'z' }

func toLower(c byte) byte {
	if isUpper(c) {
		return c + 'a' - 'A'
	}
	return c
}

// oauthNames are the names beside which a bare "code" is an OAuth
// authorization code: a callback carries "state" (and OpenID Connect's
// "session_state"), a token exchange "grant_type", "redirect_uri" and
// PKCE's "code_verifier". "code" alone is too common a name (an error
// code, a country code) to remove everywhere.
var oauthNames = []string{"state", "session_state", "grant_type", "redirect_uri", "code_verifier"}

func isOAuthName[T string | []byte](name T) bool {
	for _, n := range oauthNames {
		if len(name) == len(n) && strings.EqualFold(string(name), n) {
			return true
		}
	}
	return false
}

// oauthPairs reports whether a raw query or form names an OAuth callback
// or token exchange: one of its keys is in oauthNames.
func oauthPairs(raw string) bool {
	for rest := raw; rest != ""; {
		var pair string
		pair, rest, _ = strings.Cut(rest, "&")
		key, _, _ := strings.Cut(pair, "=")
		if isOAuthName(key) {
			return true
		}
	}
	return false
}

// oauthJSON is oauthPairs for a JSON document: a member name in
// oauthNames anywhere in it.
func oauthJSON(body []byte) bool {
	for _, name := range oauthNames {
		for rest := body; ; {
			i := bytes.Index(rest, []byte(name))
			if i < 0 {
				break
			}
			if i > 0 && i+len(name) < len(rest) && rest[i-1] == '"' && rest[i+len(name)] == '"' {
				return true
			}
			rest = rest[i+len(name):]
		}
	}
	return false
}
