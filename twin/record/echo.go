package record

import (
	"errors"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/scrub"
)

// echo replaces, in every part of the scrubbed exchange ex, the values p
// removed or replaced anywhere in it: providers echo what they were sent,
// in error messages, in request_body-style fields and in headers, and the
// live credential can come back in any of them. formBody says the answer's
// body_text is form-encoded.
func echo(p *scrub.Pass, ex *format.Exchange, formBody bool) {
	ex.Request.Path = p.EchoText(ex.Request.Path)
	ex.Request.Query = p.EchoPairs(ex.Request.Query)
	ex.Request.Form = p.EchoPairs(ex.Request.Form)
	ex.Request.Headers = nilIfEmpty(p.EchoHeaders(ex.Request.Headers))
	ex.Response.Headers = nilIfEmpty(p.EchoHeaders(ex.Response.Headers))
	// Bodies are valid JSON here: they passed the first round.
	if b, err := p.EchoJSON(ex.Request.Body); err == nil && len(ex.Request.Body) > 0 {
		ex.Request.Body = b
	}
	if b, err := p.EchoJSON(ex.Response.Body); err == nil && len(ex.Response.Body) > 0 {
		ex.Response.Body = b
	}
	if formBody {
		ex.Response.BodyText = p.EchoPairs(ex.Response.BodyText)
	} else {
		ex.Response.BodyText = p.EchoText(ex.Response.BodyText)
	}
}

func nilIfEmpty[M ~map[K]V, K comparable, V any](m M) M {
	if len(m) == 0 {
		return nil
	}
	return m
}

// errLiveCredential is a recording that still holds the live credential
// after scrubbing: it is never written.
var errLiveCredential = errors.New("the exchange still holds the --auth-env credential after scrubbing (raw, or encoded in a form the scrubber could not replace), so it was not written")

// holdsCredential is the last check before an exchange reaches the disk:
// the encoded bytes must not contain the live credential in any form
// scrub.ContainsLive searches for: raw, base64 or hex, in any letter case
// (a header name carrying it is canonicalised: "Sk_live_…"), and under
// percent, backslash (JSON, "\/", all-"\u") and HTML escapes or in
// UTF-16, in any mix, as the file holds them (body_text's NUL bytes are
// "\u0000" there).
func (r *Recorder) holdsCredential(encoded []byte) error {
	if scrub.ContainsLive(encoded, r.opts.Credential) {
		return errLiveCredential
	}
	return nil
}
