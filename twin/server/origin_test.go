package server

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/ui"
)

// recordedPage is one recorded answer of a test twin: a GET of path
// answered 200 with body under headers.
type recordedPage struct {
	path    string
	headers map[string][]string
	body    string
}

// pagesTwin writes a twin folder whose recordings are pages and returns
// its path, which startServer takes as the twin.
func pagesTwin(tb testing.TB, pages []recordedPage) string {
	tb.Helper()
	dir := tb.TempDir()
	rec := filepath.Join(dir, "recordings", "pages")
	if err := os.MkdirAll(rec, 0o755); err != nil {
		tb.Fatal(err)
	}
	toml := "format = 1\nname = \"pages\"\nprovider = \"example\"\nupstream = \"https://www.example.test\"\n"
	if err := os.WriteFile(filepath.Join(dir, "twin.toml"), []byte(toml), 0o644); err != nil {
		tb.Fatal(err)
	}
	for i, p := range pages {
		b, err := json.Marshal(map[string]any{
			"format":      1,
			"recorded_at": "2026-01-02T03:04:05Z",
			"request":     map[string]any{"method": "GET", "path": p.path},
			"response":    map[string]any{"status": 200, "headers": p.headers, "body_text": p.body},
		})
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(rec, fmt.Sprintf("%d.json", i)), b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

const script = `<script>fetch('/__wraith/reset', {method: 'POST'})</script>`

// TestAnswersGuardBrowsers: a twin replays what a provider sent on the
// origin of its own control plane. Every application answer carries
// X-Content-Type-Options: nosniff; those a browser would run as a document
// (HTML, XHTML, SVG, XML, one without a Content-Type, which net/http
// sniffs as HTML) also carry Content-Security-Policy: sandbox, beside the
// policy the provider sent. The recorded headers are kept otherwise, and
// the journal's HAR shows what was sent; --no-control-headers, which drops
// Wraith's X-Wraith-* headers, keeps these. The viewer keeps its own policy.
// Before, the HTML page went out with neither header.
func TestAnswersGuardBrowsers(t *testing.T) {
	ct := func(v string) map[string][]string { return map[string][]string{"Content-Type": {v}} }
	pages := srvPages(ct)
	pagesSrv := startServer(t, pagesTwin(t, pages))
	bare := startServer(t, pagesTwin(t, pages), "--no-control-headers")
	stripe := startServer(t, "checkout", "--max-body", "1KiB")
	limited := startServer(t, "checkout", "--rate-limit", "1/m")
	do(t, limited.URL(), call{path: "/v1/balance", session: "r1"}) // the minute's one request
	tests := []struct {
		name    string
		srv     *Server
		call    call
		status  int
		csp     []string // nil: no policy
		keep    map[string]string
		harPath string // the journal's entry to check, in the session of call
	}{
		{"html", pagesSrv, call{path: "/search", session: "p1"}, 200, []string{"sandbox"}, map[string]string{"Content-Type": "text/html; charset=utf-8"}, "/search"},
		{"html, --no-control-headers", bare, call{path: "/search"}, 200, []string{"sandbox"}, nil, ""},
		{"html, upper case", pagesSrv, call{path: "/upper"}, 200, []string{"sandbox"}, nil, ""},
		{"xhtml", pagesSrv, call{path: "/page.xhtml"}, 200, []string{"sandbox"}, nil, ""},
		{"svg", pagesSrv, call{path: "/badge.svg"}, 200, []string{"sandbox"}, map[string]string{"Content-Type": "image/svg+xml"}, ""},
		{"text/xml", pagesSrv, call{path: "/text.xml"}, 200, []string{"sandbox"}, nil, ""},
		{"application/xml", pagesSrv, call{path: "/app.xml"}, 200, []string{"sandbox"}, nil, ""},
		{"atom", pagesSrv, call{path: "/feed.atom"}, 200, []string{"sandbox"}, nil, ""},
		{"unknown type", pagesSrv, call{path: "/unknown"}, 200, []string{"sandbox"}, nil, ""},
		{"no type, sniffed as HTML", pagesSrv, call{path: "/untyped"}, 200, []string{"sandbox"}, map[string]string{"Content-Type": "text/html; charset=utf-8"}, ""},
		{"the provider's policy is kept", pagesSrv, call{path: "/with-csp", session: "p2"}, 200, []string{"default-src 'none'", "sandbox"}, map[string]string{"Etag": `"v1"`}, "/with-csp"},
		{"recorded JSON", pagesSrv, call{path: "/data.json"}, 200, nil, map[string]string{"Content-Type": "application/json"}, ""},
		{"recorded text", pagesSrv, call{path: "/status.txt"}, 200, nil, nil, ""},
		{"handler JSON", stripe, call{method: "POST", path: "/v1/customers", form: "email=a%40example.com", session: "s1"}, 200, nil, map[string]string{"Content-Type": "application/json"}, "/v1/customers"},
		{"recorded Stripe JSON", stripe, call{path: "/v1/customers/cus_123"}, 200, nil, nil, ""},
		{"miss", stripe, call{path: "/v1/nope"}, 501, nil, nil, ""},
		{"invalid session", stripe, call{path: "/v1/balance", session: ".."}, 400, nil, nil, ""},
		{"body over --max-body", stripe, call{method: "POST", path: "/v1/customers", form: "description=" + strings.Repeat("x", 2048)}, 413, nil, nil, ""},
		{"rate limited", limited, call{path: "/v1/balance", session: "r1"}, 429, nil, map[string]string{"Retry-After": "60"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := do(t, tt.srv.URL(), tt.call)
			if resp.StatusCode != tt.status {
				t.Fatalf("status: want %d, have %d %s", tt.status, resp.StatusCode, body)
			}
			if want, have := []string{"nosniff"}, resp.Header.Values("X-Content-Type-Options"); !slices.Equal(have, want) {
				t.Errorf("X-Content-Type-Options: want %q, have %q", want, have)
			}
			if have := resp.Header.Values("Content-Security-Policy"); !slices.Equal(have, tt.csp) {
				t.Errorf("Content-Security-Policy: want %q, have %q", tt.csp, have)
			}
			for k, want := range tt.keep {
				if have := resp.Header.Get(k); have != want {
					t.Errorf("%s: want %q (as recorded), have %q", k, want, have)
				}
			}
			if tt.harPath != "" {
				checkHARHeaders(t, tt.srv, tt.call.session, tt.harPath, tt.csp)
			}
		})
	}

	// The viewer is a control path: its own policy, not the sandbox.
	resp, _ := do(t, pagesSrv.URL(), call{path: ui.Path})
	if want, have := []string{ui.CSP}, resp.Header.Values("Content-Security-Policy"); !slices.Equal(have, want) {
		t.Errorf("the viewer's Content-Security-Policy: want %q, have %q", want, have)
	}
}

// srvPages are the recorded pages of TestAnswersGuardBrowsers.
func srvPages(ct func(string) map[string][]string) []recordedPage {
	html := `<!doctype html><p>results</p>` + script
	withCSP := ct("text/html")
	withCSP["Content-Security-Policy"] = []string{"default-src 'none'"}
	withCSP["Etag"] = []string{`"v1"`}
	return []recordedPage{
		{"/search", ct("text/html; charset=utf-8"), html},
		{"/upper", ct("TEXT/HTML; Charset=UTF-8"), html},
		{"/page.xhtml", ct("application/xhtml+xml"), `<html xmlns="http://www.w3.org/1999/xhtml">` + script + `</html>`},
		{"/badge.svg", ct("image/svg+xml"), `<svg xmlns="http://www.w3.org/2000/svg">` + script + `</svg>`},
		{"/text.xml", ct("text/xml"), `<x/>`},
		{"/app.xml", ct("application/xml"), `<x/>`},
		{"/feed.atom", ct("application/atom+xml"), `<feed/>`},
		{"/unknown", ct("application/x-never-heard-of"), html},
		{"/untyped", nil, html},
		{"/with-csp", withCSP, html},
		{"/data.json", ct("application/json"), `{"ok":true}`},
		{"/status.txt", ct("text/plain"), html},
	}
}

// checkHARHeaders checks that the journal's HAR entry of path in session
// shows the headers the answer was sent with.
func checkHARHeaders(tb testing.TB, srv *Server, session, path string, csp []string) {
	tb.Helper()
	resp, body := do(tb, srv.URL(), call{path: "/__wraith/session/" + session + "/journal?format=har"})
	if resp.StatusCode != 200 {
		tb.Fatalf("HAR of %s: %d %s", session, resp.StatusCode, body)
	}
	var har struct {
		Log struct {
			Entries []struct {
				Request  struct{ URL string }
				Response struct {
					Headers []struct{ Name, Value string }
				}
			}
		}
	}
	if err := json.Unmarshal(body, &har); err != nil {
		tb.Fatal(err)
	}
	for _, e := range har.Log.Entries {
		if !strings.Contains(e.Request.URL, path) {
			continue
		}
		var nosniff, policy []string
		for _, h := range e.Response.Headers {
			switch h.Name {
			case "X-Content-Type-Options":
				nosniff = append(nosniff, h.Value)
			case "Content-Security-Policy":
				policy = append(policy, h.Value)
			}
		}
		if want := []string{"nosniff"}; !slices.Equal(nosniff, want) {
			tb.Errorf("HAR of %s %s: X-Content-Type-Options: want %q, have %q", session, path, want, nosniff)
		}
		if !slices.Equal(policy, csp) {
			tb.Errorf("HAR of %s %s: Content-Security-Policy: want %q, have %q", session, path, csp, policy)
		}
		return
	}
	tb.Errorf("HAR of %s: no entry for %s", session, path)
}
