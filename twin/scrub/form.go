package scrub

import (
	"net/url"
	"strings"
)

// Query returns the raw URL query (without "?") with credential keys
// dropped, the values of personal keys tokenized, and card numbers and
// known credential shapes replaced in every value. Pairs keep their order
// and, when untouched, their bytes; an unchanged query is returned as is.
//
// A key is personal when one of its bracket segments is a personal field and
// none is Verbatim, as in JSON: "customer[email]" and
// "customer[address][country]" are, "metadata[order_id]" is not. A key is
// a credential when one of its segments is ("card[cvc]", "refresh_token").
func (s *Scrubber) Query(raw string) string {
	return (&Pass{s: s}).Query(raw)
}

// Form is Query for an application/x-www-form-urlencoded request body.
//
// Credential keys are dropped from bodies too: an OAuth token exchange
// posts client_secret and password in its form body, and a recording must
// not keep them.
func (s *Scrubber) Form(body string) string {
	return (&Pass{s: s}).Form(body)
}

// Query is Scrubber.Query, remembering what it removed or replaced.
func (p *Pass) Query(raw string) string { return p.pairs(raw, true, false) }

// Form is Scrubber.Form, remembering what it removed or replaced.
func (p *Pass) Form(body string) string { return p.pairs(body, true, false) }

// ResponseForm scrubs a form-encoded response body (an OAuth token answer
// such as "access_token=…&scope=repo"): credential values are replaced by
// their SecretToken instead of being dropped.
func (p *Pass) ResponseForm(body string) string { return p.pairs(body, false, false) }

// EchoPairs replaces, in the decoded values of a scrubbed query or form,
// every value this pass has removed or tokenized so far. It scrubs as
// ResponseForm does, which changes nothing already scrubbed.
//
// The live credential is first searched for in raw as a whole: in a form
// its "+" reads as a space once decoded, and an HTML-entity form of it
// ("&#115;&#107;…") is split at every "&" into pairs of its own.
func (p *Pass) EchoPairs(raw string) string { return p.pairs(p.echoLive(raw), false, true) }

type action uint8

const (
	keep action = iota
	tokenize
	drop
	secretize
)

func (p *Pass) pairs(raw string, request, echo bool) string {
	if raw == "" {
		return raw
	}
	oauth := oauthPairs(raw)
	// b stays nil while every pair is kept as it is: most queries are.
	var b *strings.Builder
	first := true
	for at := 0; ; {
		pair, _, found := strings.Cut(raw[at:], "&")
		next := at + len(pair) + 1
		key, value, hasValue := strings.Cut(pair, "=")
		v := value
		if strings.ContainsAny(v, "%+") {
			if u, err := url.QueryUnescape(v); err == nil {
				v = u
			}
		}
		nv, dropped := v, false
		switch p.s.act(key, v, request, oauth) {
		case drop:
			p.noteSecret(v)
			dropped = true
		case tokenize:
			nv = p.s.Token("", v)
			p.note(v, nv)
		case secretize:
			nv = p.s.SecretToken(v)
			p.note(v, nv)
		default:
			nv = p.value(v)
			if echo {
				nv = p.Echo(nv)
			}
		}
		if b == nil && (dropped || nv != v) {
			// The first change: the pairs before it were kept as they are.
			b = new(strings.Builder)
			b.Grow(len(raw))
			if at > 0 {
				b.WriteString(raw[:at-1])
				first = false
			}
		}
		if b != nil && !dropped {
			sep(b, &first)
			if nv == v {
				b.WriteString(pair)
			} else {
				b.WriteString(key)
				if hasValue || nv != "" {
					b.WriteByte('=')
				}
				b.WriteString(url.QueryEscape(nv))
			}
		}
		if !found {
			break
		}
		at = next
	}
	if b == nil {
		return raw
	}
	return b.String()
}

// sep writes the "&" before every pair but the first.
func sep(b *strings.Builder, first *bool) {
	if !*first {
		b.WriteByte('&')
	}
	*first = false
}

// act decides what happens to one pair, given its key and decoded value.
func (s *Scrubber) act(key, value string, request, oauth bool) action {
	if strings.ContainsAny(key, "%+") {
		if k, err := url.QueryUnescape(key); err == nil {
			key = k
		}
	}
	switch isCredentialKey(key, oauth) {
	case countable:
		if allDigits(value) {
			break // "max_tokens=100"
		}
		fallthrough
	case credential:
		if request {
			return drop
		}
		if value == "" {
			return keep
		}
		return secretize
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
