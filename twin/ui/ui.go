// Package ui serves the session viewer, a single page at /__wraith/ui that
// shows what each agent did: the sessions of a twin, one session's journal,
// the request and answer of an entry, what it changed since provisioning,
// and the twin's coverage. It reads the control plane's JSON endpoints
// (SPEC §9) and writes through two of them only: reset and fork.
//
// The page is three embedded files (HTML, JavaScript, CSS) with no build
// step and no outside fetches, sent under a strict Content-Security-Policy:
// everything from the page's own origin, no inline scripts or styles, no
// framing. It names a session in a control URL as one encoded path segment
// and calls nothing for a dot segment, which a URL would resolve away
// ("session/../reset" is the reset of every session). The control plane's
// guard applies to these paths as to every control path (Host and Origin
// checks on loopback); only the bearer token is not asked for them (see
// [Public]).
package ui

import (
	"bytes"
	"embed"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/wraithdev/wraith/twin/apierr"
)

// Path is where the page is served; its files are under Path + "/".
const Path = "/__wraith/ui"

//go:embed static
var static embed.FS

// CSP is the page's Content-Security-Policy. connect-src and img-src follow
// default-src ('self'); form-action and base-uri are not covered by
// default-src, so they are named.
const CSP = "default-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'"

// files are the servable files by path, with their content types; the
// page is served at Path itself so that its relative URLs ("ui/app.js",
// "session") resolve under /__wraith/ whatever prefix a proxy adds.
var files = map[string]struct{ name, ctype string }{
	Path:               {"static/index.html", "text/html; charset=utf-8"},
	Path + "/app.js":   {"static/app.js", "text/javascript; charset=utf-8"},
	Path + "/app.css":  {"static/app.css", "text/css; charset=utf-8"},
	Path + "/icon.svg": {"static/icon.svg", "image/svg+xml"},
}

// Public reports whether path is one of the page's files. They hold no
// data, and a browser that navigates to the page cannot send a bearer
// token, so off loopback they are served without one; the page then asks
// for the token and sends it with every call it makes.
func Public(path string) bool {
	_, ok := files[path]
	return ok
}

// Owns reports whether path is under Path, so the server sends it here
// rather than to the control plane's JSON endpoints.
func Owns(path string) bool {
	return path == Path || strings.HasPrefix(path, Path+"/")
}

// Handler serves the page's files.
type Handler struct {
	// modified is sent as Last-Modified: the time the server started, as
	// embedded files carry no time of their own.
	modified time.Time
}

// New returns the page's handler; started is sent as the files'
// Last-Modified time.
func New(started time.Time) *Handler {
	return &Handler{modified: started}
}

// ServeHTTP serves one of the page's files with its security headers.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Content-Security-Policy", CSP)
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("X-Frame-Options", "DENY")
	// Not no-referrer: with it, browsers send "Origin: null" on the
	// page's own POSTs, which the guard refuses.
	hdr.Set("Referrer-Policy", "same-origin")
	hdr.Set("Cross-Origin-Opener-Policy", "same-origin")
	hdr.Set("Cross-Origin-Resource-Policy", "same-origin")
	f, ok := files[r.URL.Path]
	if !ok {
		apierr.Write(w, apierr.New(apierr.UINotFound, "the session viewer has no file "+strconv.Quote(r.URL.Path)+": open "+Path))
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hdr.Set("Allow", "GET, HEAD")
		apierr.Write(w, apierr.New(apierr.MethodNotAllowed,
			r.Method+" "+r.URL.Path+": the session viewer's files take GET or HEAD").With("allow", []string{"GET", "HEAD"}))
		return
	}
	body, err := fs.ReadFile(static, f.name)
	if err != nil { // the embedded files are fixed at build time
		apierr.Write(w, apierr.New(apierr.Internal, err.Error()))
		return
	}
	hdr.Set("Content-Type", f.ctype)
	// Every version of wraith may change the page: revalidate each time.
	hdr.Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, "", h.modified, bytes.NewReader(body))
}
