package record

import (
	"bytes"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wraithdev/wraith/twin/scrub"

	"github.com/wraithdev/wraith/twin/scrub/scrubtest"
)

// syncBuffer is a log sink safe for the recorder's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func bufferLogger(tb testing.TB) (hclog.Logger, *syncBuffer) {
	tb.Helper()
	buf := &syncBuffer{}
	return hclog.New(&hclog.LoggerOptions{Output: buf, Level: hclog.Trace, JSONFormat: true}), buf
}

// TestProviderErrorNeverShowsLiveKey: a provider that puts the injected
// key into a malformed header or status line makes the transport's error
// quote that line; neither the recorder's log nor its 502 answer may then
// hold the key in any form.
func TestProviderErrorNeverShowsLiveKey(t *testing.T) {
	const live = "sk_live_MALFORMEDline0001XYZabc"
	up := scrubtest.RawProvider(t, func(path, key string) string {
		switch path {
		case "/header":
			return "HTTP/1.1 200 OK\r\nX-Echo: Bearer " + key + "\v\r\nContent-Length: 0\r\n\r\n"
		case "/status":
			return "HTTP/1.1 2" + key + " OK\r\nContent-Length: 0\r\n\r\n"
		case "/proto":
			return "HTTP/" + key + " 200 OK\r\nContent-Length: 0\r\n\r\n"
		case "/name":
			return "HTTP/1.1 200 OK\r\n" + key + " x: y\r\nContent-Length: 0\r\n\r\n"
		}
		return "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
	})
	logger, logs := bufferLogger(t)
	dir := filepath.Join(t.TempDir(), "malformed")
	_, base := startRecorder(t, dir, up, testKey, Options{Credential: live, Logger: logger})
	for _, path := range []string{"/header", "/status", "/proto", "/name"} {
		t.Run(path, func(t *testing.T) {
			resp, body := call(t, base, "GET", path, "", "", nil)
			if want, have := http.StatusBadGateway, resp.StatusCode; want != have {
				t.Fatalf("want %d, have %d %s", want, have, body)
			}
			if scrub.ContainsLive(body, live) {
				t.Errorf("the answer holds the live key:\n%s", body)
			}
			if want, have := "nosniff", resp.Header.Get("X-Content-Type-Options"); want != have {
				t.Errorf("X-Content-Type-Options: want %q, have %q", want, have)
			}
		})
	}
	if !strings.Contains(logs.String(), "provider unreachable") {
		t.Fatalf("want provider unreachable lines, have:\n%s", logs)
	}
	if scrub.ContainsLive([]byte(logs.String()), live) {
		t.Errorf("the log holds the live key:\n%s", logs)
	}
}

// TestRecorderAnswersNoSniff: every answer of the recorder's own (a
// refusal, a 413, a 502) says nosniff, so a browser does not read its
// JSON as a page.
func TestRecorderAnswersNoSniff(t *testing.T) {
	up := scrubtest.RawProvider(t, func(path, key string) string { return "garbage\r\n\r\n" })
	dir := filepath.Join(t.TempDir(), "nosniff")
	_, base := startRecorder(t, dir, up, testKey, Options{Credential: "sk_live_NOSNIFF000001", MaxBody: 4})
	for _, tc := range []struct {
		name, method, body string
		header             map[string]string
		status             int
	}{
		{"trace", "TRACE", "", nil, http.StatusMethodNotAllowed},
		{"cross-site", "GET", "", map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"too large", "POST", "12345", nil, http.StatusRequestEntityTooLarge},
		{"unreachable", "GET", "", nil, http.StatusBadGateway},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := call(t, base, tc.method, "/x", "", tc.body, tc.header)
			if want, have := tc.status, resp.StatusCode; want != have {
				t.Fatalf("status: want %d, have %d %s", want, have, body)
			}
			if want, have := "nosniff", resp.Header.Get("X-Content-Type-Options"); want != have {
				t.Errorf("X-Content-Type-Options: want %q, have %q", want, have)
			}
		})
	}
}

// TestRecorderLogCut: a client that sends a 60 KB path, Origin or Host, or
// a 5,000-character method, gets lines of bounded length, with the
// lengths beside the cut fields.
func TestRecorderLogCut(t *testing.T) {
	up := scrubtest.RawProvider(t, func(path, key string) string { return "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok" })
	long := strings.Repeat("a", 60<<10)
	for _, tc := range []struct {
		name, method, path string
		header             map[string]string
		wantLen            string
	}{
		{"path", "GET", "/" + long, nil, "path_len"},
		{"method", strings.Repeat("M", 5000), "/x", nil, "method_len"},
		{"origin", "GET", "/x", map[string]string{"Origin": "https://" + long}, "value_len"},
		{"referer", "GET", "/x", map[string]string{"Referer": "https://" + long}, "value_len"},
		{"host", "GET", "/x", map[string]string{"Host": long + ".example"}, "value_len"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logger, logs := bufferLogger(t)
			dir := filepath.Join(t.TempDir(), "cut")
			_, base := startRecorder(t, dir, up, testKey, Options{Logger: logger})
			req, err := http.NewRequest(tc.method, base+tc.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.header {
				req.Header.Set(k, v)
				if k == "Host" {
					req.Host = v
				}
			}
			resp, err := http.DefaultTransport.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			out := logs.String()
			if out == "" {
				t.Fatal("want a line, have none")
			}
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				if len(line) > 4<<10 {
					t.Errorf("want lines under 4 KiB, have %d bytes: %.200s…", len(line), line)
				}
			}
			if !strings.Contains(out, `"`+tc.wantLen+`"`) {
				t.Errorf("want %s in the log, have:\n%.2000s", tc.wantLen, out)
			}
		})
	}
}

// TestRefusedLinesSampled: a web page sending cross-site requests in a
// loop gets refusedLines lines per refusedWindow, and the next line
// counts the ones held back.
func TestRefusedLinesSampled(t *testing.T) {
	up := scrubtest.RawProvider(t, func(path, key string) string { return "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n" })
	logger, logs := bufferLogger(t)
	var mu sync.Mutex
	now := time.Date(2026, 10, 14, 9, 12, 3, 0, time.UTC)
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return now
	}
	dir := filepath.Join(t.TempDir(), "sampled")
	_, base := startRecorder(t, dir, up, testKey, Options{Logger: logger, Now: clock})
	cross := map[string]string{"Origin": "https://evil.example"}
	const sent = 3 * refusedLines
	for range sent {
		if resp, body := call(t, base, "GET", "/x", "", "", cross); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("want 403, have %d %s", resp.StatusCode, body)
		}
	}
	if want, have := refusedLines, strings.Count(logs.String(), "refused a request"); want != have {
		t.Errorf("lines in one window: want %d, have %d", want, have)
	}
	mu.Lock()
	now = now.Add(refusedWindow)
	mu.Unlock()
	call(t, base, "GET", "/x", "", "", cross)
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	last := lines[len(lines)-1]
	if want := `"held_back":20`; !strings.Contains(last, want) {
		t.Errorf("the next window's line: want %s, have %s", want, last)
	}
}
