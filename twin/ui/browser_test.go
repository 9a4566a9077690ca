package ui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/wraithdev/wraith/internal/testbin"
)

// chromiumPath is where Debian installs Chromium.
const chromiumPath = "/usr/bin/chromium"

// screenshotsEnv names a folder to keep the browser test's screenshots in;
// without it they go to the test's temporary folder.
const screenshotsEnv = "WRAITH_UI_SCREENSHOTS"

// chromium returns Debian's Chromium, running the project's `make chromium`
// first when it is missing. It skips the test only where Chromium cannot be
// installed (not root, no apt-get, offline).
func chromium(tb testing.TB) string {
	tb.Helper()
	if _, err := os.Stat(chromiumPath); err == nil {
		return chromiumPath
	}
	cmd := exec.Command("make", "-s", "chromium")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.CombinedOutput()
	if _, serr := os.Stat(chromiumPath); serr != nil {
		tb.Skipf("the browser test needs Chromium at %s and `make chromium` could not install it (%v): %s", chromiumPath, err, strings.TrimSpace(string(out)))
	}
	return chromiumPath
}

// browser is a headless Chromium tab with a log of what the page did.
type browser struct {
	ctx context.Context
	mu  sync.Mutex
	// requests are the URLs the page asked for, with their Authorization.
	requests []request
	// problems are uncaught exceptions and security (CSP) messages.
	problems []string
}

type request struct{ url, auth string }

// newBrowser starts Chromium with a fresh profile; it stops when the test
// ends. Every action must finish within the test's deadline d.
func newBrowser(tb testing.TB, d time.Duration) *browser {
	tb.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(tb)),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(tb.TempDir()),
		chromedp.WindowSize(1280, 960),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	tb.Cleanup(func() { cancelTab(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // start the browser, with no deadline
		tb.Fatalf("start %s: %v", chromiumPath, err)
	}
	b := &browser{}
	err := chromedp.Listen(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			var auth string
			for k, v := range e.Request.Headers {
				if strings.EqualFold(k, "Authorization") {
					auth, _ = v.(string)
				}
			}
			b.requests = append(b.requests, request{e.Request.URL, auth})
		case *runtime.EventExceptionThrown:
			b.problems = append(b.problems, fmt.Sprintf("exception: %s %v", e.ExceptionDetails.Text, e.ExceptionDetails.Exception))
		case *log.EventEntryAdded:
			if e.Entry.Source == log.EntrySourceSecurity || e.Entry.Source == log.EntrySourceJavascript {
				b.problems = append(b.problems, fmt.Sprintf("%s %s: %s", e.Entry.Source, e.Entry.Level, e.Entry.Text))
			}
		}
	})
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	tb.Cleanup(cancel)
	b.ctx = ctx
	return b
}

// do runs actions, failing the test with what it was doing.
func (b *browser) do(tb testing.TB, what string, actions ...chromedp.Action[chromedp.Void]) {
	tb.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		tb.Fatalf("%s: %v\npage problems: %v", what, err, b.Problems())
	}
}

// eval evaluates a JavaScript expression into T.
func eval[T any](tb testing.TB, b *browser, expr string) T {
	tb.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		tb.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// until waits for a JavaScript condition to hold.
func (b *browser) until(tb testing.TB, what, cond string) {
	tb.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(15*time.Second))); err != nil {
		tb.Fatalf("waiting for %s (%s): %v\npage status: %q\npage problems: %v", what, cond, err,
			eval[string](tb, b, `document.getElementById('status').textContent`), b.Problems())
	}
}

// screenshot saves the visible page as a PNG and returns its path.
func (b *browser) screenshot(tb testing.TB, dir, name string) string {
	tb.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		tb.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// Problems returns the exceptions and security messages so far.
func (b *browser) Problems() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.problems...)
}

// Requests returns what the page asked for so far.
func (b *browser) Requests() []request {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]request(nil), b.requests...)
}

// checkOwnOrigin fails the test for any request the page made outside the
// origin it was served from, and returns how many it made.
func (b *browser) checkOwnOrigin(tb testing.TB, base string) int {
	tb.Helper()
	own, err := url.Parse(base)
	if err != nil {
		tb.Fatal(err)
	}
	reqs := b.Requests()
	for _, r := range reqs {
		u, err := url.Parse(strings.TrimPrefix(r.url, "blob:"))
		if err != nil || u.Scheme != own.Scheme || u.Host != own.Host {
			tb.Errorf("the page requested %s, outside its origin %s://%s", r.url, own.Scheme, own.Host)
		}
	}
	return len(reqs)
}

// artifacts is the folder screenshots go to.
func artifacts(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv(screenshotsEnv)
	if dir == "" {
		return tb.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// serve runs `wraith serve` as a child process on 127.0.0.1:0.
func serve(tb testing.TB, args ...string) *testbin.Twin {
	tb.Helper()
	return serveEnv(tb, nil, args...)
}

// serveEnv is serve with env (KEY=VALUE) added to the child's environment.
func serveEnv(tb testing.TB, env []string, args ...string) *testbin.Twin {
	tb.Helper()
	bin := bins.Path(tb, "./cmd/wraith")
	return testbin.StartTwinEnv(tb, bin, env, append([]string{"serve", "--port", "0"}, args...)...)
}

// client talks to a twin as an agent and as its operator.
type client struct {
	base  string
	token string
	http  *http.Client
}

func newClient(base, token string) *client {
	return &client{base: base, token: token, http: &http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: 16},
	}}
}

// step is one request of an agent and what the twin answered.
type step struct {
	Method, Path string
	Form         string
	Status       int
	Provenance   string
	Body         map[string]any
}

// send sends one business request in session and records the answer.
func (c *client) send(tb testing.TB, session string, s step) step {
	tb.Helper()
	req, err := http.NewRequest(s.Method, c.base+s.Path, strings.NewReader(s.Form))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("X-Wraith-Session", session)
	if s.Form != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := c.http.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", s.Method, s.Path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	s.Status = res.StatusCode
	s.Provenance = res.Header.Get("X-Wraith-Provenance")
	s.Body = nil
	json.Unmarshal(b, &s.Body)
	return s
}

// control calls a control endpoint and decodes its JSON answer.
func (c *client) control(tb testing.TB, method, path string, body any, want int) map[string]any {
	tb.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = strings.NewReader(string(b))
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		tb.Fatal(err)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	res, err := c.http.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		tb.Fatalf("%s %s: want %d, have %d %s", method, path, want, res.StatusCode, b)
	}
	var out map[string]any
	json.Unmarshal(b, &out)
	return out
}

// agentRun is a short agent-like sequence: look around, create a customer,
// read and change it, read one it never made, and call a route the twin
// does not know.
func agentRun(tb testing.TB, c *client, session string) []step {
	tb.Helper()
	var done []step
	run := func(s step) step {
		s = c.send(tb, session, s)
		done = append(done, s)
		return s
	}
	run(step{Method: "GET", Path: "/v1/balance"})
	created := run(step{Method: "POST", Path: "/v1/customers", Form: "email=agent%40example.com&description=" + session})
	id, _ := created.Body["id"].(string)
	if created.Status != 200 || id == "" {
		tb.Fatalf("POST /v1/customers in %s: want 200 with an id, have %d %v", session, created.Status, created.Body)
	}
	run(step{Method: "GET", Path: "/v1/customers/" + id})
	run(step{Method: "POST", Path: "/v1/customers/" + id, Form: "metadata[tier]=gold"})
	run(step{Method: "GET", Path: "/v1/customers/cus_NeverMade123"})
	run(step{Method: "GET", Path: "/v1/not_a_route"})
	return done
}
