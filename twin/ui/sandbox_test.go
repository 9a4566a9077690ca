package ui_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/wraithdev/wraith/internal/testbin"
)

// attackScript is what a replayed page might carry: it lists the twin's
// sessions and resets them all, and writes what it got on its root
// element. It marks the root first, synchronously, so a test can tell a
// script that ran from one the browser never ran. control is where the
// control plane is, relative or absolute.
func attackScript(control string) string {
	return `document.documentElement.setAttribute('data-ran', '1');
(async () => {
  const out = {};
  for (const [k, path, init] of [['list', 'session', {}], ['reset', 'reset', { method: 'POST' }]]) {
    try {
      const r = await fetch('` + control + `' + path, init);
      out[k] = String(r.status);
    } catch (e) {
      out[k] = 'network-error';
    }
  }
  document.documentElement.setAttribute('data-outcome', JSON.stringify(out));
})();`
}

// page is a recorded answer that carries attackScript.
type page struct {
	name, path, ctype, body string
}

// pages are documents of the types a browser runs, each replayed on the
// twin's own origin. The last has no Content-Type: net/http sniffs its
// body and sends text/html.
func pages() []page {
	script := attackScript("/__wraith/")
	html := `<!doctype html><html><head><title>search</title></head><body><p>results for q</p><script>` + script + `</script></body></html>`
	cdata := `<script><![CDATA[` + script + `]]></script>`
	return []page{
		{"html", "/search", "text/html; charset=utf-8", html},
		{"svg", "/badge.svg", "image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">` + cdata + `</svg>`},
		{"xhtml", "/page.xhtml", "application/xhtml+xml", `<html xmlns="http://www.w3.org/1999/xhtml"><head><title>x</title></head><body>` + cdata + `</body></html>`},
		{"xml", "/feed.xml", "application/xml", `<feed xmlns:h="http://www.w3.org/1999/xhtml"><h:script><![CDATA[` + script + `]]></h:script></feed>`},
		{"untyped", "/untyped", "", html},
		// A browser takes the last type of a list: this is a page.
		{"listed", "/listed", "video/mp4, text/html", html},
	}
}

// pageTwin writes a twin folder whose recordings are pages, each under a
// GET of its path, and returns the folder.
func pageTwin(tb testing.TB, pages []page) string {
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
		headers := map[string][]string{}
		if p.ctype != "" {
			headers["Content-Type"] = []string{p.ctype}
		}
		ex := map[string]any{
			"format":      1,
			"recorded_at": "2026-01-02T03:04:05Z",
			"request":     map[string]any{"method": "GET", "path": p.path},
			"response":    map[string]any{"status": 200, "headers": headers, "body_text": p.body},
		}
		b, err := json.Marshal(ex)
		if err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(rec, fmt.Sprintf("%d.json", i)), b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// TestReplayedPageCannotReachControlPlane opens, in headless Chromium,
// recorded pages (HTML, SVG, XHTML, XML and one without a Content-Type)
// that a twin replays on its own origin, each with a script that lists the
// sessions and resets them. The twin sends them under
// Content-Security-Policy: sandbox, so the script does not run; were it
// to run, its origin would be opaque and the guard would refuse it. Either
// way no control call may succeed, and the session provisioned before is
// still there with its journal. Before the sandbox, the HTML page got 200
// for both and reset every session.
func TestReplayedPageCannotReachControlPlane(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, 90*time.Second)
	ps := pages()
	tw := serve(t, pageTwin(t, ps))
	c := newClient(tw.URL, "")
	c.control(t, "POST", "/__wraith/session", map[string]any{"session": "victim"}, 201)
	if s := c.send(t, "victim", step{Method: "GET", Path: "/search"}); s.Status != 200 || s.Provenance != "recorded" {
		t.Fatalf("GET /search in victim: want 200 recorded, have %d %s", s.Status, s.Provenance)
	}

	for _, p := range ps {
		t.Run(p.name, func(t *testing.T) {
			b.do(t, "open "+p.path, chromedp.Navigate(tw.URL+p.path))
			if rootAttr(t, b, "data-ran") == "" {
				// Not run: by the sandbox, as the browser says it was.
				blocked := "Blocked script execution in '" + tw.URL + p.path + "' because the document's frame is sandboxed"
				testbin.WaitUntil(t, 15*time.Second, "the browser's report that the sandbox blocked "+p.path+"'s script", func() bool {
					return slices.ContainsFunc(b.Problems(), func(s string) bool { return strings.Contains(s, blocked) })
				})
				return
			}
			waitOutcome(t, b)
			var out map[string]string
			if err := json.Unmarshal([]byte(rootAttr(t, b, "data-outcome")), &out); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"list", "reset"} {
				if have := out[k]; have != "403" && have != "network-error" {
					t.Errorf("%s: the page's %s call: want 403 or a network error, have %s", p.path, k, have)
				}
			}
		})
	}

	journal := c.control(t, "GET", "/__wraith/session/victim/journal", nil, 200)["entries"].([]any)
	if want, have := 1, len(journal); have != want {
		t.Errorf("victim's journal after the pages: want %d entry (no reset), have %d", want, have)
	}
}

// TestSandboxedOriginIsRefused checks the second line of defence in a
// browser: a page whose scripts do run under a sandbox (served, with
// "sandbox allow-scripts", by a loopback server the guard would admit
// without the sandbox) has an opaque origin, and its control calls to the
// twin are refused. The page cannot read any answer across origins, so the
// refusal is read on the twin: the session is not reset.
func TestSandboxedOriginIsRefused(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, 60*time.Second)
	tw := serve(t, "checkout")
	c := newClient(tw.URL, "")
	c.control(t, "POST", "/__wraith/session", map[string]any{"session": "victim"}, 201)
	c.send(t, "victim", step{Method: "GET", Path: "/v1/balance"})

	for _, tc := range []struct {
		name, csp string
		reset     bool // whether the twin is reset, as the guard admits a loopback origin
	}{
		{"loopback page", "", true},
		{"sandboxed loopback page", "sandbox allow-scripts", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.control(t, "POST", "/__wraith/session/victim/reset", nil, 200)
			c.send(t, "victim", step{Method: "GET", Path: "/v1/balance"})
			url := pageServer(t, tc.csp, `<!doctype html><html><body><script>`+attackScript(tw.URL+"/__wraith/")+`</script></body></html>`)
			b.do(t, "open the page", chromedp.Navigate(url))
			waitOutcome(t, b)
			n := len(c.control(t, "GET", "/__wraith/session/victim/journal", nil, 200)["entries"].([]any))
			if have := n == 0; have != tc.reset {
				t.Errorf("victim reset by the page: want %v, have %v (%d journal entries; the page saw %s)", tc.reset, have, n, rootAttr(t, b, "data-outcome"))
			}
		})
	}
}

// pageServer serves body as text/html, under the policy csp if any, on
// 127.0.0.1:0 until the test ends, and returns its URL.
func pageServer(tb testing.TB, csp, body string) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if csp != "" {
			w.Header().Set("Content-Security-Policy", csp)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(body))
	})}
	go srv.Serve(ln)
	tb.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/"
}

// rootAttr reads an attribute of the document's root element through the
// DOM, which works whether or not the page may run script.
func rootAttr(tb testing.TB, b *browser, name string) string {
	tb.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.AttributeValue(chromedp.CSS(":root"), name))
	if err != nil {
		tb.Fatalf("read %s of the root element: %v", name, err)
	}
	return strings.TrimSpace(v.Value)
}

// waitOutcome waits for attackScript to write its outcome; only a page
// whose script runs gets here, so the wait may use script.
func waitOutcome(tb testing.TB, b *browser) {
	tb.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](`document.documentElement.hasAttribute('data-outcome')`, chromedp.WithPollingTimeout(15*time.Second))); err != nil {
		tb.Fatalf("waiting for the page's script to finish its control calls: %v\npage problems: %v", err, b.Problems())
	}
}
