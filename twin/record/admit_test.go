package record

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wraithdev/wraith/twin/scrub"
)

// counter is an upstream on 127.0.0.1:0 that counts what reaches it and
// keeps each request's headers.
type counter struct {
	*httptest.Server
	mu      sync.Mutex
	headers []http.Header
}

func newCounter(tb testing.TB) *counter {
	tb.Helper()
	c := &counter{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.headers = append(c.headers, r.Header.Clone())
		c.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"ch_1","object":"charge"}`))
	}))
	tb.Cleanup(c.Close)
	return c
}

func (c *counter) seen() []http.Header {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]http.Header(nil), c.headers...)
}

// recorded counts the exchanges written into dir's recording "session".
func recorded(tb testing.TB, dir string) int {
	tb.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, "recordings", "session"))
	if err != nil {
		tb.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") {
			n++
		}
	}
	return n
}

// TestRecordRefusesWebPages is the recorder's DNS-rebinding and
// cross-site defence: on loopback, a request a web page could make the
// browser send gets 403 and never reaches the provider with the live key.
func TestRecordRefusesWebPages(t *testing.T) {
	up := newCounter(t)
	dir := filepath.Join(t.TempDir(), "twin")
	_, base := startRecorder(t, dir, up.URL, testKey, Options{Credential: credential})
	port := base[strings.LastIndexByte(base, ':')+1:]
	form := "amount=100&currency=usd&destination=acct_attacker"
	for _, tt := range []struct {
		name, method, host string
		header             map[string]string
		wantCode           string
	}{
		{"DNS rebinding", "POST", "attacker.example:" + port, nil, "record-forbidden-host"},
		{"DNS rebinding, no port", "GET", "attacker.example", nil, "record-forbidden-host"},
		{"cross-site form POST", "POST", "", map[string]string{"Origin": "https://attacker.example"}, "record-forbidden-origin"},
		{"cross-site, Referer only", "POST", "", map[string]string{"Referer": "https://attacker.example/pay"}, "record-forbidden-origin"},
		{"cross-site, origin hidden", "GET", "", map[string]string{"Sec-Fetch-Site": "cross-site"}, "record-forbidden-origin"},
		{"another local origin", "POST", "", map[string]string{"Origin": "http://localhost:3000", "Sec-Fetch-Site": "same-site"}, "record-forbidden-origin"},
		{"sandboxed frame", "POST", "", map[string]string{"Origin": "null"}, "record-forbidden-origin"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, base+"/v1/charges", strings.NewReader(form))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if tt.host != "" {
				req.Host = tt.host
			}
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body := readAll(t, resp)
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, `"code":"`+tt.wantCode+`"`) {
				t.Errorf("want 403 %s, have %d %s", tt.wantCode, resp.StatusCode, body)
			}
		})
	}
	if n := len(up.seen()); n != 0 {
		t.Fatalf("the provider saw %d refused requests; want none", n)
	}
	if n := recorded(t, dir); n != 0 {
		t.Errorf("%d refused requests were recorded; want none", n)
	}

	// What a program sends still goes through, named by any loopback Host.
	for _, host := range []string{"", "localhost:" + port} {
		req, _ := http.NewRequest("POST", base+"/v1/charges", strings.NewReader(form))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if body := readAll(t, resp); resp.StatusCode != http.StatusOK {
			t.Errorf("Host %q: want 200, have %d %s", host, resp.StatusCode, body)
		}
	}
	if n := len(up.seen()); n != 2 {
		t.Errorf("the provider saw %d requests; want the 2 admitted ones", n)
	}
}

func readAll(tb testing.TB, resp *http.Response) string {
	tb.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// TestRecordToken: an off-loopback recorder answers only requests with its
// token, and the token never goes upstream nor to disk.
func TestRecordToken(t *testing.T) {
	const token = "rec-token-5d1e"
	tests := []struct {
		name       string
		credential string
		header     map[string]string
		want       int
		wantAuth   string // Authorization the provider sees
	}{
		{"no token", credential, nil, 401, ""},
		{"wrong token", credential, map[string]string{TokenHeader: "nope"}, 401, ""},
		{"token in its header", credential, map[string]string{TokenHeader: token}, 200, "Bearer " + credential},
		{"token as the bearer", credential, map[string]string{"Authorization": "Bearer " + token}, 200, "Bearer " + credential},
		{"wrong header beside the right bearer", credential, map[string]string{TokenHeader: "nope", "Authorization": "Bearer " + token}, 401, ""},
		{"client's own key, token in its header", "", map[string]string{TokenHeader: token, "Authorization": "Bearer sk_client"}, 200, "Bearer sk_client"},
		{"client's own key: the bearer is the provider's", "", map[string]string{"Authorization": "Bearer " + token}, 401, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			up := newCounter(t)
			dir := filepath.Join(t.TempDir(), "twin")
			_, base := startRecorder(t, dir, up.URL, testKey, Options{Credential: tt.credential, OffLoopback: true, Token: token})
			// Off loopback, the Host is whatever name reached the recorder.
			req, _ := http.NewRequest("GET", base+"/v1/charges/ch_1", nil)
			req.Host = "recorder.internal:8111"
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body := readAll(t, resp)
			if resp.StatusCode != tt.want {
				t.Fatalf("want %d, have %d %s", tt.want, resp.StatusCode, body)
			}
			seen := up.seen()
			if tt.want != 200 {
				if !strings.Contains(body, `"code":"record-unauthorized"`) || resp.Header.Get("WWW-Authenticate") == "" {
					t.Errorf("want record-unauthorized with a challenge, have %s %v", body, resp.Header)
				}
				if len(seen) != 0 {
					t.Errorf("the provider saw %d unauthorized requests", len(seen))
				}
				return
			}
			if len(seen) != 1 || seen[0].Get("Authorization") != tt.wantAuth || seen[0].Get(TokenHeader) != "" {
				t.Fatalf("the provider saw %v; want one request with Authorization %q and no token", seen, tt.wantAuth)
			}
			_, file := stored(t, dir, resp)
			if strings.Contains(file, token) {
				t.Errorf("the token was recorded:\n%s", file)
			}
		})
	}
}

func TestRecordOffLoopbackNeedsToken(t *testing.T) {
	up := newCounter(t)
	dir := filepath.Join(t.TempDir(), "twin")
	u, err := url.Parse(up.URL)
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(Options{Dir: dir, Name: "s", Upstream: u, Scrubber: scrub.New([]byte(testKey), scrub.Policy{}), OffLoopback: true})
	if err == nil || !strings.Contains(err.Error(), "needs a token") {
		t.Errorf("off loopback without a token: want an error, have %v", err)
	}
}

func TestRecordServerTimeouts(t *testing.T) {
	up := newCounter(t)
	rec, _ := startRecorder(t, filepath.Join(t.TempDir(), "twin"), up.URL, testKey, Options{})
	srv := rec.Server()
	if srv.ReadHeaderTimeout != ReadHeaderTimeout || srv.ReadTimeout != ReadTimeout || srv.IdleTimeout != IdleTimeout || srv.MaxHeaderBytes != MaxHeaderBytes || srv.Handler != rec {
		t.Errorf("recorder server: want read-header %s, read %s, idle %s, headers %d, have %s %s %s %d",
			ReadHeaderTimeout, ReadTimeout, IdleTimeout, MaxHeaderBytes, srv.ReadHeaderTimeout, srv.ReadTimeout, srv.IdleTimeout, srv.MaxHeaderBytes)
	}
}
