package scrub

import (
	"encoding/base64"
	"net/http"
	"regexp"
	"strings"
)

// Headers returns a copy of h without credential headers: any whose name
// IsCredential finds (Authorization, Proxy-Authorization, Cookie,
// Set-Cookie, X-Api-Key, X-Goog-Api-Key, X-Auth-Token, Stripe-Signature,
// …), session headers (X-Session-Id) and a bare "Key". Stripe-Account and
// Idempotency-Key are kept: they grant nothing by themselves. The copy
// shares no memory with h. A nil h gives nil. Values are not searched: see
// Pass.Headers for that.
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

// IsCredentialHeader reports whether Headers removes the header name.
func IsCredentialHeader(name string) bool { return isCredentialHeader(name) }

// Headers is the package's Headers, and more: the values of removed
// headers are remembered (a bearer token, the parts of Basic credentials,
// cookie values) so that their echoes are replaced; in the values kept,
// URL queries and fragments lose their credential keys and have their
// personal values tokenized (a Location such as
// "/cb?code=…&access_token=…"), card numbers and known credential
// shapes are replaced, and email addresses tokenized; the value of a
// personal header (From, X-User-Email: isPIIHeader) is tokenized whole.
func (p *Pass) Headers(h http.Header) http.Header {
	return p.headers(h, false)
}

// EchoHeaders replaces, in the values of scrubbed headers, every value
// this pass has removed or tokenized so far.
func (p *Pass) EchoHeaders(h http.Header) http.Header {
	return p.headers(h, true)
}

func (p *Pass) headers(h http.Header, echo bool) http.Header {
	if h == nil {
		return nil
	}
	out := make(http.Header, len(h))
	for name, values := range h {
		if isCredentialHeader(name) {
			for _, v := range values {
				p.noteHeader(v)
			}
			continue
		}
		pii := p.s.isPIIHeader(name)
		kept := make([]string, len(values))
		for i, v := range values {
			if pii {
				tok := p.s.Token("", v)
				p.note(v, tok)
				kept[i] = tok
				continue
			}
			v = p.emails(p.value(p.urls(v)))
			if echo {
				v = p.Echo(v)
			}
			kept[i] = v
		}
		out[name] = kept
	}
	return out
}

// noteHeader remembers the secrets in a removed header's value.
func (p *Pass) noteHeader(v string) {
	v = strings.TrimSpace(v)
	p.noteSecret(v)
	scheme, cred, ok := strings.Cut(v, " ")
	if ok {
		cred = strings.TrimSpace(cred)
		p.noteSecret(cred)
		if strings.EqualFold(scheme, "Basic") {
			if b, err := base64.StdEncoding.DecodeString(cred); err == nil {
				user, pass, _ := strings.Cut(string(b), ":")
				p.noteSecret(string(b))
				p.noteSecret(user)
				p.noteSecret(pass)
			}
		}
	}
	// Cookie and Set-Cookie: name=value pairs.
	for _, part := range strings.Split(v, ";") {
		if _, val, ok := strings.Cut(strings.TrimSpace(part), "="); ok {
			p.noteSecret(strings.Trim(val, `"`))
		}
	}
}

// isPIIHeader reports whether a header's value is personal as a whole:
// From (RFC 9110: the user's email address), and any header whose name,
// read as a field name ("X-User-Email" as "x_user_email"), the policy
// finds personal. A leading "X-" is not part of the name.
func (s *Scrubber) isPIIHeader(name string) bool {
	if strings.EqualFold(name, "From") {
		return true
	}
	field := strings.ReplaceAll(name, "-", "_")
	if len(field) > 2 && (field[0] == 'x' || field[0] == 'X') && field[1] == '_' {
		field = field[2:]
	}
	return s.IsPII(field)
}

// emailInText finds email addresses inside a longer value.
var emailInText = regexp.MustCompile(`[0-9A-Za-z._%+-]+@[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)+`)

// emails tokenizes every email address in a header value, whatever the
// header: "X-Requested-By: jenny@example.com (via SSO)".
func (p *Pass) emails(v string) string {
	if strings.IndexByte(v, '@') < 0 {
		return v
	}
	return emailInText.ReplaceAllStringFunc(v, func(m string) string {
		tok := p.s.Token("", m)
		p.note(m, tok)
		return tok
	})
}

// urls scrubs every query and fragment inside v as a request query is
// scrubbed: from each "?" or "#" to the next space, quote or angle bracket
// (a Location, or a Link header's "<…?page=2&access_token=…>").
func (p *Pass) urls(v string) string {
	if !strings.ContainsAny(v, "?#") {
		return v
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(v); i++ {
		if v[i] != '?' && v[i] != '#' {
			continue
		}
		end := i + 1
		for end < len(v) && !strings.ContainsRune(" \t\"'<>#", rune(v[end])) {
			end++
		}
		q := v[i+1 : end]
		if nq := p.pairs(q, true, false); nq != q {
			b.WriteString(v[last : i+1])
			b.WriteString(nq)
			last = end
		}
		i = end - 1
	}
	if last == 0 {
		return v
	}
	b.WriteString(v[last:])
	return b.String()
}
