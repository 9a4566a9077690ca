// Package canon computes canonical forms of HTTP request parts, so that a
// live request can be compared byte for byte with a recorded one, and decodes
// request parameters the way Stripe reads them.
//
// Canonical forms:
//
//   - Query and Form: parameters are sorted by their escaped key; repeated
//     keys keep their relative order, because a[]=1&a[]=2 and a[]=2&a[]=1 are
//     different lists. Every key and value is written with exactly one
//     escaping, the one url.QueryEscape produces: space as "+", unreserved
//     bytes (A-Z a-z 0-9 - _ . ~) as they are, anything else as %XX with
//     upper-case hex. Empty parameters (a&&b) are dropped and a key without
//     "=" gets one. Unlike net/url, a semicolon is an ordinary byte: the
//     twin never splits on it, so nothing can read it two ways.
//   - JSON: object keys sorted recursively (by their decoded bytes, as
//     encoding/json sorts map keys), no insignificant whitespace, numbers
//     kept exactly as written, strings re-encoded the way encoding/json does
//     with HTML escaping off. A repeated key keeps its last value and
//     invalid UTF-8 becomes U+FFFD, as encoding/json does when decoding.
//     Arrays and objects nest at most 512 deep.
//   - Body picks one of those by media type.
//
// Params builds the nested parameter tree described on its doc comment.
//
// Errors say what is wrong and where: which parameter key, or at which
// byte offset of a JSON document.
//
// Everything here sits on the request path of every twin, so the common
// cases are cheap: an already-canonical query costs a scan and no
// allocation, and nothing uses reflection.
package canon

import "strings"

// Query returns the canonical form of a URL query string (without the "?").
// It fails when an escape is not % followed by two hex digits.
func Query(raw string) (string, error) {
	return canonicalPairs("query", raw)
}

// Form returns the canonical form of an application/x-www-form-urlencoded
// body. The rules are those of Query.
func Form(body []byte) (string, error) {
	// The conversion is the one allocation of the fast path: when the body
	// is already canonical, this string is the answer.
	return canonicalPairs("form", string(body))
}

// JSON returns the canonical form of a JSON document. A body of only
// whitespace has no canonical form: JSON returns nil and no error.
func JSON(body []byte) ([]byte, error) {
	var w jwriter
	ok, err := w.parse(body)
	if !ok || err != nil {
		return nil, err
	}
	w.out = make([]byte, 0, len(body))
	w.value(0)
	return w.out, nil
}

// Body returns the canonical form of a request body: canonical JSON for
// application/json and any +json type, a canonical form for
// application/x-www-form-urlencoded, and the bytes as they are otherwise.
// An empty body (or a JSON body of only whitespace) is "".
func Body(contentType string, body []byte) (string, error) {
	if len(body) == 0 {
		return "", nil
	}
	switch mediaOf(contentType) {
	case mediaJSON:
		b, err := JSON(body)
		if err != nil {
			return "", err
		}
		return string(b), nil
	case mediaForm:
		return Form(body)
	}
	return string(body), nil
}

// media is the kind of body a Content-Type announces.
type media int

const (
	mediaOther media = iota
	mediaJSON
	mediaForm
)

// mediaOf reads the media type of a Content-Type header value without
// mime.ParseMediaType, which allocates a map of parameters we never read.
func mediaOf(contentType string) media {
	t, _, _ := strings.Cut(contentType, ";")
	t = strings.TrimSpace(t)
	switch {
	case strings.EqualFold(t, "application/json"):
		return mediaJSON
	case strings.EqualFold(t, "application/x-www-form-urlencoded"):
		return mediaForm
	case len(t) > len("+json") && strings.EqualFold(t[len(t)-len("+json"):], "+json") &&
		strings.IndexByte(t, '/') > 0:
		// application/merge-patch+json, application/vnd.api+json, ...
		return mediaJSON
	}
	return mediaOther
}
