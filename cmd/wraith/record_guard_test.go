package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wraithdev/wraith/internal/testbin"
)

// TestRecordProcessRefusesWebPages runs the real wraith binary as a
// recorder in front of a local provider: a DNS-rebinding request and a
// cross-site form POST get 403, and the provider never sees them nor the
// live key they would have carried.
func TestRecordProcessRefusesWebPages(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"ch_1","object":"charge"}`)
	}))
	t.Cleanup(provider.Close)
	dir := t.TempDir()
	url := startRecordProcess(t, dir, "--upstream", provider.URL, "--auth-env", "PROVIDER_KEY", "--name", "guarded")
	port := url[strings.LastIndexByte(url, ':')+1:]

	send := func(host string, header map[string]string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", url+"/v1/charges", strings.NewReader("amount=100&currency=usd"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if host != "" {
			req.Host = host
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := send("attacker.example:"+port, nil); code != 403 || !strings.Contains(body, `"code":"record-forbidden-host"`) {
		t.Errorf("DNS rebinding: want 403 record-forbidden-host, have %d %s", code, body)
	}
	if code, body := send("", map[string]string{"Origin": "https://attacker.example"}); code != 403 || !strings.Contains(body, `"code":"record-forbidden-origin"`) {
		t.Errorf("cross-site POST: want 403 record-forbidden-origin, have %d %s", code, body)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the provider saw %d of the refused requests; want none", n)
	}
	if code, body := send("", nil); code != 200 {
		t.Errorf("a program's request: want 200, have %d %s", code, body)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("the provider saw %d requests; want the one admitted", n)
	}
}

// startRecordProcess runs `wraith record` as a child process with the
// recording credential in PROVIDER_KEY and returns its URL from the ready
// JSON; the child is killed when the test ends.
func startRecordProcess(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	url, _ := startRecordProcessLog(tb, dir, args...)
	return url
}

// startRecordProcessLog is startRecordProcess, also returning the
// process's stderr, where its log goes.
func startRecordProcessLog(tb testing.TB, dir string, args ...string) (string, *testbin.Buffer) {
	tb.Helper()
	ready := filepath.Join(dir, "ready.json")
	args = append([]string{"record", filepath.Join(dir, "twin"), "--ready-json", ready}, args...)
	cmd := exec.Command(bins.Path(tb, "./cmd/wraith"), args...)
	cmd.Env = append(testbin.Env(), "PROVIDER_KEY="+recordCredential, "WRAITH_HMAC_KEY="+recordKey)
	stderr := &testbin.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	tb.Cleanup(func() { cmd.Process.Kill(); <-exited })
	var doc struct{ Record struct{ URL string } }
	deadline := time.Now().Add(15 * time.Second)
	for {
		if b, err := os.ReadFile(ready); err == nil && json.Unmarshal(b, &doc) == nil {
			return doc.Record.URL, stderr
		}
		select {
		case <-exited:
			tb.Fatalf("wraith record exited before it was ready:\n%s", stderr)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			tb.Fatalf("no ready JSON within 15 s:\n%s", stderr)
		}
	}
}

// TestRecordIPv6Host records through a recorder bound to [::1].
func TestRecordIPv6Host(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skipf("this machine has no IPv6 loopback (%v)", err)
	}
	ln.Close()
	provider := fakeProvider(t)
	for _, host := range []string{"[::1]", "::1"} {
		t.Run(host, func(t *testing.T) {
			dir := t.TempDir()
			r := startRecord(t, dir, map[string]string{"PROVIDER_KEY": recordCredential, "WRAITH_HMAC_KEY": recordKey},
				filepath.Join(dir, "twin"), "--upstream", provider.URL, "--auth-env", "PROVIDER_KEY", "--host", host)
			if !strings.HasPrefix(r.url, "http://[::1]:") {
				t.Fatalf("ready url: want http://[::1]:PORT, have %s", r.url)
			}
			if resp, body := r.do(t, "GET", "/v1/customers/cus_1", ""); resp.StatusCode != 200 || resp.Header.Get("X-Wraith-Exchange") == "" {
				t.Errorf("GET over [::1]: want a recorded 200, have %d %s", resp.StatusCode, body)
			}
		})
	}
}
