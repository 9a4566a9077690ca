package hostguard

import (
	"net/http"
	"strings"
)

// A twin answers on the same origin as its control plane, and the recorder
// on its own loopback origin, and both hand on what a provider sent, pages
// included: a recorded search page that echoes its query is a script on a
// loopback origin. [Check] admits loopback origins, so such a script could
// list and reset every session, or (through the recorder) send requests
// with the live credential. Answers from a provider are therefore sent with
// X-Content-Type-Options: nosniff, so a browser renders an answer only as
// the type it names, and those a browser would render as a document with
// Content-Security-Policy: sandbox: the document runs no script, and
// anything it loads goes out from an opaque origin ("Origin: null"), which
// Check refuses. The viewer's own page is a control path with a policy of
// its own (package ui).
var (
	nosniffVal = []string{"nosniff"}
	sandboxVal = []string{"sandbox"}
)

// NoSniff sets X-Content-Type-Options: nosniff on h, for an answer of
// Wraith's own (an error, a refusal) that GuardAnswer does not write.
func NoSniff(h http.Header) { h["X-Content-Type-Options"] = nosniffVal }

// GuardAnswer sets the headers above on h, the headers of an answer whose
// provider headers (nil for Wraith's own JSON) are recorded; h may be
// recorded itself. A policy already in recorded is kept, never changed in
// place: recorded may be shared by every session.
func GuardAnswer(h, recorded http.Header) {
	NoSniff(h)
	if recorded == nil || !MayRender(recorded["Content-Type"]) {
		return
	}
	own := recorded["Content-Security-Policy"]
	if len(own) == 0 {
		h["Content-Security-Policy"] = sandboxVal
		return
	}
	// A policy the provider sent stays: a browser enforces every policy
	// it is sent, so adding one only narrows what the page may do. The
	// recorded slice is shared by every session, so it is copied.
	h["Content-Security-Policy"] = append(own[:len(own):len(own)], sandboxVal[0])
}

// MayRender reports whether a browser could run an answer of content type
// ctype as a document. Only types known to be shown as data are not:
// anything else, an unknown type, a missing one or two of them, fails
// closed, since sandboxing an answer that was never a document costs it
// nothing.
func MayRender(ctype []string) bool {
	// A browser reads a Content-Type that lists types ("video/mp4,
	// text/html", in one header or several) as the last valid one
	// (Fetch's "extract a MIME type"), whatever the first says: any list
	// is taken as a document.
	if len(ctype) != 1 || strings.IndexByte(ctype[0], ',') >= 0 {
		return true
	}
	t := ctype[0]
	if i := strings.IndexByte(t, ';'); i >= 0 {
		t = t[:i]
	}
	t = strings.TrimSpace(t)
	slash := strings.IndexByte(t, '/')
	if slash <= 0 {
		return true
	}
	typ, sub := t[:slash], t[slash+1:]
	switch {
	case hasSuffixFold(sub, "+json"):
		return false
	case hasSuffixFold(sub, "+xml"): // image/svg+xml, application/xhtml+xml, application/atom+xml
		return true
	case strings.EqualFold(typ, "audio"), strings.EqualFold(typ, "video"), strings.EqualFold(typ, "font"):
		return false
	}
	for _, inert := range inertTypes {
		if strings.EqualFold(t, inert) {
			return false
		}
	}
	return true
}

// inertTypes are the content types, besides audio/*, video/*, font/* and
// */*+json, that browsers show as text, as media or as a download, never
// as a document that runs script. text/html, text/xml, application/xml,
// image/svg+xml and application/pdf are not among them.
var inertTypes = [...]string{
	"application/json", "application/x-ndjson", "text/json",
	"text/plain", "text/csv", "text/css", "text/event-stream",
	"text/javascript", "application/javascript",
	"application/octet-stream", "application/x-www-form-urlencoded", "application/zip", "application/gzip",
	"image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "image/bmp", "image/x-icon", "image/vnd.microsoft.icon",
}

func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}
