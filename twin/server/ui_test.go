package server

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/ui"
)

// TestViewerGuard: the session viewer's paths are control paths. On
// loopback, a foreign Host or Origin is refused as for every control call;
// with a token, the page's static files load without it (a browser cannot
// send one when it navigates) and every data call needs it.
func TestViewerGuard(t *testing.T) {
	loop := startServer(t, "checkout")
	env := map[string]string{"WRAITH_CONTROL_TOKEN": testToken}
	off, err := openWith(t, env, nil, "--control-token-env", "WRAITH_CONTROL_TOKEN")
	if err != nil {
		t.Fatal(err)
	}
	off.guard.loopback = false // as a twin bound off loopback, before it serves
	serveWith(t, off)
	bearer := map[string]string{"Authorization": "Bearer " + testToken}
	tests := []struct {
		name     string
		srv      *Server
		call     call
		want     int
		wantCode string
	}{
		{"loopback page", loop, call{path: "/__wraith/ui"}, 200, ""},
		{"loopback script", loop, call{path: "/__wraith/ui/app.js"}, 200, ""},
		{"loopback page, foreign Host", loop, call{path: "/__wraith/ui", header: map[string]string{"Host": "evil.example"}}, 403, "control-forbidden-host"},
		{"loopback script, foreign Host", loop, call{path: "/__wraith/ui/app.js", header: map[string]string{"Host": "rebind.evil.example:8080"}}, 403, "control-forbidden-host"},
		{"loopback page, foreign Origin", loop, call{path: "/__wraith/ui", header: map[string]string{"Origin": "http://evil.example"}}, 403, "control-forbidden-origin"},
		{"loopback page, foreign Referer", loop, call{path: "/__wraith/ui/app.css", header: map[string]string{"Referer": "https://evil.example/page"}}, 403, "control-forbidden-origin"},
		{"loopback page, cross-site fetch", loop, call{path: "/__wraith/ui", header: map[string]string{"Sec-Fetch-Site": "cross-site"}}, 403, "control-forbidden-origin"},
		{"loopback page, same origin", loop, call{path: "/__wraith/ui", header: map[string]string{"Origin": "http://127.0.0.1", "Sec-Fetch-Site": "same-origin"}}, 200, ""},
		{"loopback unknown file", loop, call{path: "/__wraith/ui/secret.txt"}, 404, "ui-not-found"},
		{"loopback page, dot segments", loop, call{path: "/__wraith/ui/../session"}, 400, "invalid-path"},
		{"loopback page, trailing slash", loop, call{path: "/__wraith/ui/"}, 400, "invalid-path"},
		{"token: page without it", off, call{path: "/__wraith/ui"}, 200, ""},
		{"token: script without it", off, call{path: "/__wraith/ui/app.js"}, 200, ""},
		{"token: style without it", off, call{path: "/__wraith/ui/app.css"}, 200, ""},
		{"token: unknown file without it", off, call{path: "/__wraith/ui/secret.txt"}, 401, "control-unauthorized"},
		{"token: sessions without it", off, call{path: "/__wraith/session"}, 401, "control-unauthorized"},
		{"token: journal without it", off, call{path: "/__wraith/session/s1/journal"}, 401, "control-unauthorized"},
		{"token: fork without it", off, call{method: "POST", path: "/__wraith/session/s1/fork", json: `{"session":"s2"}`}, 401, "control-unauthorized"},
		{"token: sessions with it", off, call{path: "/__wraith/session", header: bearer}, 200, ""},
		{"token: page, foreign Host is no concern off loopback", off, call{path: "/__wraith/ui", header: map[string]string{"Host": "twin.example.com"}}, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := doHost(t, tt.srv.URL(), tt.call)
			if resp.StatusCode != tt.want || errorCode(body) != tt.wantCode {
				t.Fatalf("want %d %q, have %d %s", tt.want, tt.wantCode, resp.StatusCode, body)
			}
			if tt.want == 200 && ui.Owns(tt.call.path) && resp.Header.Get("Content-Security-Policy") != ui.CSP {
				t.Errorf("Content-Security-Policy: want %q, have %q", ui.CSP, resp.Header.Get("Content-Security-Policy"))
			}
			if tt.want == 200 && strings.HasSuffix(tt.call.path, "/ui") && !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
				t.Errorf("Content-Type: want text/html, have %q", resp.Header.Get("Content-Type"))
			}
		})
	}
}

// doHost is do, with a "Host" in c.header sent as the request's Host.
func doHost(tb testing.TB, base string, c call) (*http.Response, []byte) {
	tb.Helper()
	host, ok := c.header["Host"]
	if !ok {
		return do(tb, base, c)
	}
	method := c.method
	if method == "" {
		method = http.MethodGet
	}
	req, err := http.NewRequest(method, base+c.path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Host = host
	for k, v := range c.header {
		if k != "Host" {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, c.path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return resp, body
}
