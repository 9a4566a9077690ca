package scrub

import (
	"net/url"
	"strings"
)

// Query returns the raw URL query (without "?") with credential keys
// dropped and the values of personal keys tokenized. Pairs keep their order
// and, when untouched, their bytes; an unchanged query is returned as is.
//
// A key is personal when one of its bracket segments is a personal field and
// none is Verbatim, as in JSON: "customer[email]" and
// "customer[address][country]" are, "metadata[order_id]" is not.
func (s *Scrubber) Query(raw string) string {
	return s.pairs(raw)
}

// Form is Query for an application/x-www-form-urlencoded body.
//
// Credential keys are dropped from bodies too, although recordings of
// Stripe-style APIs never carry them there: an OAuth token exchange posts
// client_secret and password in its form body, and a recording must not
// keep them.
func (s *Scrubber) Form(body string) string {
	return s.pairs(body)
}

type action uint8

const (
	keep action = iota
	tokenize
	drop
)

func (s *Scrubber) pairs(raw string) string {
	changed := false
	for rest := raw; rest != "" && !changed; {
		var pair string
		pair, rest, _ = strings.Cut(rest, "&")
		changed = s.act(pair) != keep
	}
	if !changed {
		return raw
	}
	var b strings.Builder
	b.Grow(len(raw))
	first := true
	for rest := raw; ; {
		pair, more, found := strings.Cut(rest, "&")
		switch s.act(pair) {
		case keep:
			sep(&b, &first)
			b.WriteString(pair)
		case tokenize:
			sep(&b, &first)
			key, value, _ := strings.Cut(pair, "=")
			if v, err := url.QueryUnescape(value); err == nil {
				value = v
			}
			b.WriteString(key)
			b.WriteByte('=')
			b.WriteString(url.QueryEscape(s.Token("", value)))
		}
		if !found {
			return b.String()
		}
		rest = more
	}
}

// sep writes the "&" before every pair but the first.
func sep(b *strings.Builder, first *bool) {
	if !*first {
		b.WriteByte('&')
	}
	*first = false
}

// act decides what happens to one key=value pair.
func (s *Scrubber) act(pair string) action {
	key, value, _ := strings.Cut(pair, "=")
	if strings.ContainsAny(key, "%+") {
		if k, err := url.QueryUnescape(key); err == nil {
			key = k
		}
	}
	if isCredentialKey(key) {
		return drop
	}
	if value == "" {
		return keep
	}
	pii := false
	for rest := key; rest != ""; {
		i := strings.IndexAny(rest, "[]")
		if i < 0 {
			i = len(rest)
		}
		if seg := rest[:i]; seg != "" {
			if exempt(s, seg) {
				return keep
			}
			pii = pii || listed(s, seg)
		}
		rest = rest[min(i+1, len(rest)):]
	}
	if pii {
		return tokenize
	}
	return keep
}

// isCredentialKey reports whether a whole query or form key, in any case,
// names a credential: key, api_key, apikey, access_token, token,
// client_secret, password or secret. Bracketed keys are not credentials
// ("card[token]" is a Stripe card token, not an API secret).
func isCredentialKey(key string) bool {
	if len(key) > len("client_secret") {
		return false
	}
	var buf [len("client_secret")]byte
	switch string(lower(buf[:0], key)) {
	case "key", "api_key", "apikey", "access_token", "token",
		"client_secret", "password", "secret":
		return true
	}
	return false
}
