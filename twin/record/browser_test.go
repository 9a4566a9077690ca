package record

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
)

// TestRecordSandboxesPages: the recorder hands a provider's page to the
// client on its own loopback origin, where a script in it could send
// requests that the recorder admits (same origin) and forwards with the
// live credential. So a page reaches the client sandboxed and unsniffed,
// as a twin serves one, while the recording keeps what the provider sent.
func TestRecordSandboxesPages(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/search":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Content-Security-Policy", "default-src 'self'")
			io.WriteString(w, `<html><script>fetch('/v1/charges',{method:'POST',body:'amount=100'})</script>`+r.URL.Query().Get("q")+`</html>`)
		default:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"cus_1","object":"customer"}`)
		}
	}))
	t.Cleanup(upstream.Close)
	dir := t.TempDir()
	_, base := startRecorder(t, dir, upstream.URL, "sk_live_abcdef123456", Options{})

	for _, tc := range []struct {
		path       string
		wantCSP    []string
		wantStored []string
	}{
		{"/search?q=hello", []string{"default-src 'self'", "sandbox"}, []string{"default-src 'self'"}},
		{"/v1/customers/cus_1", nil, nil},
	} {
		t.Run(tc.path, func(t *testing.T) {
			resp, _ := call(t, base, http.MethodGet, tc.path, "", "", nil)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("want 200, have %s", resp.Status)
			}
			if have := resp.Header.Get("X-Content-Type-Options"); have != "nosniff" {
				t.Errorf("X-Content-Type-Options: want nosniff, have %q", have)
			}
			if have := resp.Header.Values("Content-Security-Policy"); !slices.Equal(have, tc.wantCSP) {
				t.Errorf("Content-Security-Policy to the client: want %q, have %q", tc.wantCSP, have)
			}
			ex, _ := stored(t, dir, resp)
			if have := ex.Response.Headers.Values("Content-Security-Policy"); !slices.Equal(have, tc.wantStored) {
				t.Errorf("Content-Security-Policy recorded: want the provider's %q, have %q", tc.wantStored, have)
			}
			if have := ex.Response.Headers.Get("X-Content-Type-Options"); have != "" {
				t.Errorf("X-Content-Type-Options recorded: want none (the provider sent none), have %q", have)
			}
		})
	}
}
