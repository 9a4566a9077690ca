package record

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/scrub"
)

const (
	testKey    = "record-test-key-0123456789"
	credential = "sk_test_live_credential"
	email      = "jenny.rosen@example.com"
)

// provider is a fake payments API on 127.0.0.1:0 that insists on the
// injected credential and remembers the Authorization headers it saw.
type provider struct {
	*httptest.Server
	mu   sync.Mutex
	auth []string
}

func newProvider(tb testing.TB) *provider {
	tb.Helper()
	p := &provider{}
	p.Server = httptest.NewServer(http.HandlerFunc(p.serve))
	tb.Cleanup(p.Close)
	return p
}

func (p *provider) seen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.auth...)
}

func (p *provider) serve(w http.ResponseWriter, r *http.Request) {
	// A fixed Date, so two recordings of the same calls are the same bytes
	// even when they straddle a second (net/http keeps a Date it is given).
	w.Header().Set("Date", "Wed, 14 Oct 2026 09:12:03 GMT")
	p.mu.Lock()
	p.auth = append(p.auth, r.Header.Get("Authorization"))
	p.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer "+credential {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"type":"invalid_request_error","message":"Invalid API Key"}}`)
		return
	}
	customer := func(email, name string) []byte {
		b, _ := json.Marshal(map[string]any{"id": "cus_1", "object": "customer", "email": email, "name": name, "created": 1700000000})
		return b
	}
	switch {
	case r.Method == "POST" && r.URL.Path == "/v1/customers":
		r.ParseForm()
		w.Header().Set("Content-Type", "application/json")
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "cookie_secret"})
		w.Write(customer(r.PostForm.Get("email"), r.PostForm.Get("name")))
	case r.Method == "GET" && r.URL.Path == "/v1/customers/cus_1":
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Request-Id", "req_1")
		body := customer(email, "Jenny Rosen")
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			zw.Write(body)
			zw.Close()
			return
		}
		w.Write(body)
	case r.Method == "POST" && r.URL.Path == "/v1/search":
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, `{"object":"search_result","query":%s}`, b)
	case r.URL.Path == "/v1/logo.png":
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte{0x89, 'P', 'N', 'G', 0xff, 0xfe, 0x00})
	case r.URL.Path == "/v1/hello":
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "hello world")
	case r.URL.Path == "/v1/files":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"file_1","object":"file"}`)
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"type":"invalid_request_error","message":"Unrecognized request URL"}}`)
	}
}

// recorder starts a recorder for upstream into dir on 127.0.0.1:0.
func startRecorder(tb testing.TB, dir, upstream, key string, opts Options) (*Recorder, string) {
	tb.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		tb.Fatal(err)
	}
	if _, _, err := Prepare(dir, upstream); err != nil {
		tb.Fatal(err)
	}
	opts.Dir, opts.Upstream = dir, u
	if opts.Name == "" {
		opts.Name = "session"
	}
	if opts.Scrubber == nil {
		opts.Scrubber = scrub.New([]byte(key), scrub.Policy{})
	}
	if opts.Now == nil {
		opts.Now = func() time.Time { return time.Date(2026, 10, 14, 9, 12, 3, 0, time.UTC) }
	}
	rec, err := New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(rec)
	tb.Cleanup(srv.Close)
	return rec, srv.URL
}

// call sends one request through the recorder and returns the answer with
// its body read as it arrived.
func call(tb testing.TB, base, method, path, contentType, body string, header map[string]string) (*http.Response, []byte) {
	tb.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultTransport.RoundTrip(req) // no transparent gzip: see what the client gets
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return resp, b
}

// stored reads the exchange the answer names in X-Wraith-Exchange.
func stored(tb testing.TB, dir string, resp *http.Response) (*format.Exchange, string) {
	tb.Helper()
	name := resp.Header.Get(ExchangeHeader)
	rec, idx, ok := strings.Cut(name, "/")
	if !ok {
		tb.Fatalf("answer %d names no exchange in %s", resp.StatusCode, ExchangeHeader)
	}
	b, err := os.ReadFile(filepath.Join(dir, "recordings", rec, idx+".json"))
	if err != nil {
		tb.Fatal(err)
	}
	var ex format.Exchange
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ex); err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	return &ex, string(b)
}

func compact(b []byte) string {
	var buf bytes.Buffer
	json.Compact(&buf, b)
	return buf.String()
}

var emailToken = regexp.MustCompile(`^tok_[0-9a-f]{12}@example\.invalid$`)

func TestRecordScrubs(t *testing.T) {
	p := newProvider(t)
	dir := filepath.Join(t.TempDir(), "payments")
	_, base := startRecorder(t, dir, p.URL, testKey, Options{Credential: credential})
	s := scrub.New([]byte(testKey), scrub.Policy{})
	tokEmail, tokName := s.Token("", email), s.Token("", "Jenny Rosen")

	var mp bytes.Buffer
	mw := multipart.NewWriter(&mp)
	mw.WriteField("purpose", "dispute_evidence")
	mw.Close()

	for _, tc := range []struct {
		name, method, path, ctype, body string
		header                          map[string]string
		check                           func(t *testing.T, resp *http.Response, got []byte, ex *format.Exchange)
	}{
		{"form create", "POST", "/v1/customers?email=" + url.QueryEscape(email) + "&api_key=sk_query&limit=1",
			"application/x-www-form-urlencoded", "email=" + url.QueryEscape(email) + "&name=Jenny+Rosen&metadata[order]=42",
			map[string]string{"Authorization": "Bearer client_key", "Cookie": "sid=1", "Stripe-Version": "2025-03-31.basil"},
			func(t *testing.T, resp *http.Response, got []byte, ex *format.Exchange) {
				if !strings.Contains(string(got), email) || resp.Header.Get("Set-Cookie") == "" {
					t.Errorf("client: want the real answer with the email and the cookie, have %s %v", got, resp.Header)
				}
				wantForm := "email=" + url.QueryEscape(tokEmail) + "&name=" + url.QueryEscape(tokName) + "&metadata[order]=42"
				if ex.Request.Form != wantForm {
					t.Errorf("form: want %s, have %s", wantForm, ex.Request.Form)
				}
				if want := "email=" + url.QueryEscape(tokEmail) + "&limit=1"; ex.Request.Query != want {
					t.Errorf("query: want %s, have %s", want, ex.Request.Query)
				}
				var body struct{ Email, Name string }
				json.Unmarshal(ex.Response.Body, &body)
				if body.Email != tokEmail || !emailToken.MatchString(body.Email) || body.Name != tokName {
					t.Errorf("response body: want email %s (an email's shape) and name %s, have %+v", tokEmail, tokName, body)
				}
				if ex.Request.Headers.Get("Stripe-Version") == "" || ex.Request.Headers.Get("Authorization") != "" || ex.Request.Headers.Get("Cookie") != "" {
					t.Errorf("request headers: want Stripe-Version kept, Authorization and Cookie gone; have %v", ex.Request.Headers)
				}
				if ex.Response.Headers.Get("Set-Cookie") != "" || ex.Response.Headers.Get("Content-Length") != "" {
					t.Errorf("response headers: want no Set-Cookie nor Content-Length, have %v", ex.Response.Headers)
				}
			}},
		{"gzip answer", "GET", "/v1/customers/cus_1", "", "", map[string]string{"Accept-Encoding": "gzip"},
			func(t *testing.T, resp *http.Response, got []byte, ex *format.Exchange) {
				if resp.Header.Get("Content-Encoding") != "gzip" {
					t.Errorf("client: want the provider's gzip answer as it came, have Content-Encoding %q", resp.Header.Get("Content-Encoding"))
				}
				if ex.Response.Headers.Get("Content-Encoding") != "" || !strings.Contains(string(ex.Response.Body), tokEmail) {
					t.Errorf("stored: want the decoded, scrubbed JSON body without Content-Encoding, have %v %s", ex.Response.Headers, ex.Response.Body)
				}
			}},
		{"plain answer", "GET", "/v1/customers/cus_1", "", "", map[string]string{"Accept-Encoding": "br"},
			func(t *testing.T, resp *http.Response, got []byte, ex *format.Exchange) {
				if !strings.Contains(string(got), email) || !strings.Contains(string(ex.Response.Body), tokEmail) {
					t.Errorf("want the client to get %s and the file %s; have %s and %s", email, tokEmail, got, ex.Response.Body)
				}
			}},
		{"json request", "POST", "/v1/search", "application/json", `{"query":{"email":"` + email + `","limit":3}}`, nil,
			func(t *testing.T, resp *http.Response, got []byte, ex *format.Exchange) {
				want := `{"query":{"email":"` + tokEmail + `","limit":3}}`
				if compact(ex.Request.Body) != want {
					t.Errorf("request body: want %s, have %s", want, ex.Request.Body)
				}
			}},
		{"binary answer", "GET", "/v1/logo.png", "", "", nil,
			func(t *testing.T, resp *http.Response, got []byte, ex *format.Exchange) {
				if len(got) != 7 {
					t.Errorf("client: want the 7 binary bytes, have %q", got)
				}
				if !strings.HasPrefix(ex.Response.BodyText, "[wraith: binary body not recorded: 7 bytes of image/png, sha256:") ||
					ex.Response.Headers.Get("Content-Type") != "text/plain; charset=utf-8" || ex.Response.Headers.Get(OriginalTypeHeader) != "image/png" {
					t.Errorf("stored: want a note as text/plain with the original type kept, have %q %v", ex.Response.BodyText, ex.Response.Headers)
				}
			}},
		{"text answer", "GET", "/v1/hello", "", "", nil,
			func(t *testing.T, resp *http.Response, got []byte, ex *format.Exchange) {
				if ex.Response.BodyText != "hello world" || len(ex.Response.Body) != 0 {
					t.Errorf("stored: want body_text %q, have %q / %s", "hello world", ex.Response.BodyText, ex.Response.Body)
				}
			}},
		{"multipart request", "POST", "/v1/files", mw.FormDataContentType(), mp.String(), nil,
			func(t *testing.T, resp *http.Response, got []byte, ex *format.Exchange) {
				if ex.Request.Form != "" || len(ex.Request.Body) != 0 || compact(ex.Response.Body) != `{"id":"file_1","object":"file"}` {
					t.Errorf("stored: want the exchange without its request body, have form %q body %s, answer %s", ex.Request.Form, ex.Request.Body, ex.Response.Body)
				}
			}},
		{"provider error", "GET", "/v1/nowhere", "", "", nil,
			func(t *testing.T, resp *http.Response, got []byte, ex *format.Exchange) {
				if resp.StatusCode != 404 || ex.Response.Status != 404 {
					t.Errorf("want the provider's 404 passed on and recorded, have %d and %d", resp.StatusCode, ex.Response.Status)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, got := call(t, base, tc.method, tc.path, tc.ctype, tc.body, tc.header)
			ex, raw := stored(t, dir, resp)
			if ex.Format != 1 || ex.Request.Method != tc.method || ex.Request.Path != strings.Split(tc.path, "?")[0] || ex.Response.Status != resp.StatusCode {
				t.Errorf("stored: want format 1, %s %s, status %d; have %d, %s %s, %d", tc.method, tc.path, resp.StatusCode, ex.Format, ex.Request.Method, ex.Request.Path, ex.Response.Status)
			}
			for _, secret := range []string{credential, "client_key", "sk_query", "cookie_secret", email, "Jenny Rosen", "Bearer"} {
				if strings.Contains(raw, secret) {
					t.Errorf("stored exchange holds %q:\n%s", secret, raw)
				}
			}
			tc.check(t, resp, got, ex)
		})
	}
	for i, a := range p.seen() {
		if a != "Bearer "+credential {
			t.Errorf("provider request %d: want the injected credential, have Authorization %q", i, a)
		}
	}
	tw, err := format.Load(os.DirFS(dir), dir)
	if err != nil {
		t.Fatalf("the recorded twin does not load: %v", err)
	}
	if len(tw.Exchanges) != 8 {
		t.Errorf("want 8 exchanges, have %d", len(tw.Exchanges))
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("a temporary file is left in the twin folder: %s", e.Name())
		}
	}
}

func TestRecordPassesClientAuth(t *testing.T) {
	p := newProvider(t)
	dir := t.TempDir()
	_, base := startRecorder(t, dir, p.URL, testKey, Options{})
	resp, _ := call(t, base, "GET", "/v1/hello", "", "", map[string]string{"Authorization": "Bearer " + credential})
	if resp.StatusCode != 200 {
		t.Fatalf("without a credential to inject, want the client's own to pass: status %d", resp.StatusCode)
	}
	resp, _ = call(t, base, "GET", "/v1/hello", "", "", nil)
	if resp.StatusCode != 401 {
		t.Errorf("without any credential, want the provider's 401, have %d", resp.StatusCode)
	}
	if _, raw := stored(t, dir, resp); !strings.Contains(raw, `"status": 401`) {
		t.Errorf("the provider's 401 is an exchange too; have %s", raw)
	}
}

// TestRecordStableTokens records the same traffic twice: the same key
// gives the same files byte for byte, another key other tokens.
func TestRecordStableTokens(t *testing.T) {
	p := newProvider(t)
	session := func(key string) map[string]string {
		dir := filepath.Join(t.TempDir(), "twin")
		_, base := startRecorder(t, dir, p.URL, key, Options{Credential: credential})
		call(t, base, "POST", "/v1/customers", "application/x-www-form-urlencoded", "email="+url.QueryEscape(email)+"&name=Jenny", nil)
		call(t, base, "GET", "/v1/customers/cus_1", "", "", nil)
		files := map[string]string{}
		for _, n := range []string{"0", "1"} {
			b, err := os.ReadFile(filepath.Join(dir, "recordings", "session", n+".json"))
			if err != nil {
				t.Fatal(err)
			}
			files[n] = string(b)
		}
		return files
	}
	first, second, other := session(testKey), session(testKey), session("another-key-0123456789")
	for n := range first {
		if first[n] != second[n] {
			t.Errorf("%s.json: want the same bytes from the same key, have\n%s\n%s", n, first[n], second[n])
		}
		if first[n] == other[n] {
			t.Errorf("%s.json: want other tokens from another key, have the same file", n)
		}
	}
}

func TestRecordNeverOverwrites(t *testing.T) {
	p := newProvider(t)
	dir := t.TempDir()
	recDir := filepath.Join(dir, "recordings", "session")
	os.MkdirAll(recDir, 0o755)
	mine := map[string]string{}
	for _, n := range []string{"0", "5"} {
		b := fmt.Sprintf(`{"format":1,"recorded_at":"2026-01-01T00:00:00Z","request":{"method":"GET","path":"/mine/%s"},"response":{"status":200,"body_text":"mine"}}`, n)
		os.WriteFile(filepath.Join(recDir, n+".json"), []byte(b), 0o644)
		mine[n] = b
	}
	rec, base := startRecorder(t, dir, p.URL, testKey, Options{Credential: credential})
	if rec.Next() != 6 {
		t.Fatalf("Next: want 6, after the highest index there, have %d", rec.Next())
	}
	resp, _ := call(t, base, "GET", "/v1/hello", "", "", nil)
	if have := resp.Header.Get(ExchangeHeader); have != "session/6" {
		t.Errorf("want session/6, have %s", have)
	}
	// Another writer takes 7 behind the recorder's back.
	theirs := `{"format":1,"recorded_at":"2026-01-01T00:00:00Z","request":{"method":"GET","path":"/theirs"},"response":{"status":200,"body_text":"theirs"}}`
	os.WriteFile(filepath.Join(recDir, "7.json"), []byte(theirs), 0o644)
	mine["7"] = theirs
	resp, _ = call(t, base, "GET", "/v1/hello", "", "", nil)
	if have := resp.Header.Get(ExchangeHeader); have != "session/8" {
		t.Errorf("with 7 taken: want session/8, have %s", have)
	}
	for n, want := range mine {
		b, _ := os.ReadFile(filepath.Join(recDir, n+".json"))
		if string(b) != want {
			t.Errorf("%s.json was changed:\nwant %s\nhave %s", n, want, b)
		}
	}
	if rec.Count() != 2 {
		t.Errorf("Count: want 2, have %d", rec.Count())
	}
}

func TestRecordConcurrent(t *testing.T) {
	p := newProvider(t)
	dir := t.TempDir()
	_, base := startRecorder(t, dir, p.URL, testKey, Options{Credential: credential})
	const n = 24
	names := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, _ := call(t, base, "POST", "/v1/customers", "application/x-www-form-urlencoded", fmt.Sprintf("email=c%d%%40example.com", i), nil)
			names[i] = resp.Header.Get(ExchangeHeader)
		}()
	}
	wg.Wait()
	sort.Strings(names)
	seen := map[string]bool{}
	for _, name := range names {
		if name == "" || seen[name] {
			t.Errorf("want %d distinct exchanges, have %q", n, names)
			break
		}
		seen[name] = true
	}
	tw, err := format.Load(os.DirFS(dir), dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, ex := range tw.Exchanges {
		if ex.Index != i {
			t.Errorf("want indices 0..%d without gaps, have %d at %d", n-1, ex.Index, i)
		}
	}
}

func TestRecordRefuses(t *testing.T) {
	p := newProvider(t)
	dir := t.TempDir()
	_, base := startRecorder(t, dir, p.URL, testKey, Options{Credential: credential, MaxBody: 64})
	resp, body := call(t, base, "POST", "/v1/search", "application/json", `{"q":"`+strings.Repeat("x", 100)+`"}`, nil)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "body-too-large") {
		t.Errorf("body over MaxBody: want 413 body-too-large, have %d %s", resp.StatusCode, body)
	}
	if len(p.seen()) != 0 {
		t.Errorf("a refused request must not reach the provider; it saw %d", len(p.seen()))
	}

	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()
	dir2 := t.TempDir()
	_, base2 := startRecorder(t, dir2, downURL, testKey, Options{})
	resp, body = call(t, base2, "GET", "/v1/hello", "", "", nil)
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(body), "upstream-unreachable") {
		t.Errorf("provider down: want 502 upstream-unreachable, have %d %s", resp.StatusCode, body)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir2, "recordings", "session")); len(entries) != 0 {
		t.Errorf("provider down: want nothing recorded, have %d files", len(entries))
	}
}

// TestRecordUnrecordable proxies requests a twin could not hold without
// recording them, so the folder stays servable.
func TestRecordUnrecordable(t *testing.T) {
	p := newProvider(t)
	dir := t.TempDir()
	rec, base := startRecorder(t, dir, p.URL, testKey, Options{Credential: credential})
	for _, tc := range []struct{ method, path, want string }{
		{"GET", "/v1/hello/", "empty segment"},
		{"GET", "/v1//hello", "empty segment"},
		{"GET", "/v1/%7Bid%7D", "template parameter"},
		{"PROPFIND", "/v1/hello", "method PROPFIND"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			resp, _ := call(t, base, tc.method, tc.path, "", "", nil)
			if have := resp.Header.Get(NotRecordedHeader); !strings.Contains(have, tc.want) {
				t.Errorf("%s: want %q in it, have %q", NotRecordedHeader, tc.want, have)
			}
			if have := resp.Header.Get(ExchangeHeader); have != "" {
				t.Errorf("want no exchange, have %s", have)
			}
		})
	}
	if rec.Count() != 0 {
		t.Errorf("want nothing recorded, have %d", rec.Count())
	}
	if len(p.seen()) != 4 {
		t.Errorf("want every request proxied, the provider saw %d", len(p.seen()))
	}
}
