package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wraithdev/wraith/internal/testbin"
	"github.com/wraithdev/wraith/twin/format"
)

const (
	recordKey        = "cmd-record-test-key-0123456789"
	recordCredential = "sk_test_cmd_credential"
	recordEmail      = "jenny.rosen@example.com"
)

func TestRecordFlags(t *testing.T) {
	t.Parallel()
	today := func() string { return time.Now().UTC().Format("2006-01-02") }
	def := recordOptions{Dir: "twins/pay", Host: "127.0.0.1", MaxBody: 32 << 20, Grace: 5 * time.Second} // Name: today
	for _, tc := range []struct {
		args []string
		want recordOptions
	}{
		{[]string{"twins/pay"}, def},
		{[]string{"twins/pay", "--upstream", "https://api.stripe.com", "--auth-env", "STRIPE_KEY", "--name", "flow-1",
			"--host", "::1", "--port", "8111", "--token-env", "REC_TOKEN", "--ready-json", "/tmp/r.json", "--max-body", "1024", "--shutdown-grace", "1s"},
			recordOptions{Dir: "twins/pay", Upstream: "https://api.stripe.com", AuthEnv: "STRIPE_KEY", Name: "flow-1",
				Host: "::1", Port: 8111, TokenEnv: "REC_TOKEN", ReadyJSON: "/tmp/r.json", MaxBody: 1024, Grace: time.Second}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			f, _, _ := testFactory(t.TempDir(), nil)
			var have *recordOptions
			cmd := newRecordCmd(f, func(_ context.Context, o *recordOptions) error { have = o; return nil })
			cmd.SetArgs(tc.args)
			before := today()
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			after := today()
			have.f, have.now = nil, nil
			if tc.want.Name == "" {
				if have.Name != before && have.Name != after {
					t.Errorf("default --name: want today's date %s, have %s", after, have.Name)
				}
				have.Name = ""
			}
			if !reflect.DeepEqual(*have, tc.want) {
				t.Errorf("want %+v\nhave %+v", tc.want, *have)
			}
		})
	}
}

func TestRecordUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"record"}, nil, "takes TWIN_DIR"},
		{[]string{"record", "t", "--upstream", "ftp://x.test"}, nil, "want http:// or https://"},
		{[]string{"record", "t", "--upstream", "api.stripe.com"}, nil, "want http:// or https://"},
		{[]string{"record", "t", "--upstream", "https://user:pw@x.test"}, nil, "must not carry credentials"},
		{[]string{"record", "t", "--upstream", "https://x.test/?k=1"}, nil, "without query"},
		{[]string{"record", "t", "--upstream", "https://x.test", "--name", "Bad Name"}, nil, "--name"},
		{[]string{"record", "t", "--upstream", "https://x.test", "--port", "70000"}, nil, "--port must be 0-65535"},
		{[]string{"record", "t", "--upstream", "https://x.test", "--max-body", "0"}, nil, "--max-body must be positive"},
		{[]string{"record", "t"}, nil, "has no twin.toml: give --upstream"},
		{[]string{"record", "t", "--upstream", "https://x.test", "--auth-env", "NOPE"}, nil, "--auth-env NOPE: the variable is empty or unset"},
		{[]string{"record", "t", "--upstream", "https://x.test"}, map[string]string{"WRAITH_HMAC_KEY": "short"}, "WRAITH_HMAC_KEY is 5 bytes"},
		{[]string{"record", "afile", "--upstream", "https://x.test"}, nil, "is a file"},
		{[]string{"record", "t", "--upstream", "https://x.test", "--host", "0.0.0.0"}, nil, "--host 0.0.0.0 is not a loopback address"},
		{[]string{"record", "t", "--upstream", "https://x.test", "--host", ""}, nil, "every interface"},
		{[]string{"record", "t", "--upstream", "https://x.test", "--token-env", "REC_TOKEN"}, nil, "--token-env REC_TOKEN: the variable REC_TOKEN is unset or empty"},
		{[]string{"record", "t", "--upstream", "https://x.test", "--token-env", "abc/def="}, nil, "the name of an environment variable"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "afile"), []byte("x"), 0o644)
			f, _, stderr := testFactory(dir, tc.env)
			if code := run(tc.args, f); code != exitUsage {
				t.Fatalf("want exit %d, have %d: %s", exitUsage, code, stderr)
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("want %q in %q", tc.want, stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "t")); err == nil {
				t.Error("a refused record command created the twin folder")
			}
		})
	}
}

// fakeProvider is a provider on 127.0.0.1:0 that answers only requests
// carrying the recording credential.
func fakeProvider(tb testing.TB) *httptest.Server {
	tb.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("Authorization") != "Bearer "+recordCredential {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"message":"Invalid API Key provided"}}`)
			return
		}
		r.ParseForm()
		email := r.PostForm.Get("email")
		if email == "" {
			email = recordEmail
		}
		fmt.Fprintf(w, `{"id":"cus_1","object":"customer","email":%q,"name":"Jenny Rosen","created":1700000000}`, email)
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// syncBuffer is a writer a command and a test can share.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
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

// recordRun is `wraith record` running in-process.
type recordRun struct {
	url    string
	stderr *syncBuffer
	stop   context.CancelFunc
	done   chan int
}

// startRecord runs `wraith record args... --ready-json F` in-process and
// waits, with a deadline, for F.
func startRecord(tb testing.TB, dir string, env map[string]string, args ...string) *recordRun {
	tb.Helper()
	ready := filepath.Join(tb.TempDir(), "ready.json")
	ctx, stop := context.WithCancel(context.Background())
	f, _, _ := testFactory(dir, env)
	stderr := &syncBuffer{}
	f.Stderr, f.Signals = stderr, ctx
	r := &recordRun{stderr: stderr, stop: stop, done: make(chan int, 1)}
	go func() { r.done <- run(append(append([]string{"record"}, args...), "--ready-json", ready), f) }()
	tb.Cleanup(func() { r.finish(tb) })
	deadline := time.After(15 * time.Second)
	for {
		if b, err := os.ReadFile(ready); err == nil {
			var doc struct {
				Version int `json:"wraith_record_version"`
				Record  struct {
					URL string
				}
			}
			if err := json.Unmarshal(b, &doc); err != nil || doc.Version != 1 || doc.Record.URL == "" {
				tb.Fatalf("ready JSON: %v\n%s", err, b)
			}
			r.url = doc.Record.URL
			return r
		}
		select {
		case code := <-r.done:
			tb.Fatalf("wraith record exited %d before it was ready:\n%s", code, stderr)
		case <-deadline:
			tb.Fatalf("no ready JSON within 15 s:\n%s", stderr)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// finish stops the recorder as SIGINT would and returns its exit code.
func (r *recordRun) finish(tb testing.TB) int {
	tb.Helper()
	r.stop()
	select {
	case code := <-r.done:
		r.done <- code
		return code
	case <-time.After(15 * time.Second):
		tb.Fatalf("wraith record did not stop within 15 s:\n%s", r.stderr)
		return -1
	}
}

func (r *recordRun) do(tb testing.TB, method, path, form string) (*http.Response, string) {
	tb.Helper()
	req, _ := http.NewRequest(method, r.url+path, strings.NewReader(form))
	if form != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestRecordThenServe records a fake provider, twice into the same
// recording, then serves the folder and its pack with the real binary.
func TestRecordThenServe(t *testing.T) {
	t.Parallel()
	provider := fakeProvider(t)
	dir := t.TempDir()
	twinDir := filepath.Join(dir, "payments")
	env := map[string]string{"WRAITH_HMAC_KEY": recordKey, "PROVIDER_KEY": recordCredential}

	rec := startRecord(t, dir, env, "payments", "--upstream", provider.URL, "--auth-env", "PROVIDER_KEY", "--name", "flow")
	resp, body := rec.do(t, "POST", "/v1/customers", "email="+url.QueryEscape(recordEmail)+"&name=Jenny+Rosen")
	if resp.StatusCode != 200 || !strings.Contains(body, recordEmail) {
		t.Fatalf("through the recorder: want the provider's real answer, have %d %s", resp.StatusCode, body)
	}
	if have := resp.Header.Get("X-Wraith-Exchange"); have != "flow/0" {
		t.Errorf("X-Wraith-Exchange: want flow/0, have %q", have)
	}
	rec.do(t, "GET", "/v1/customers/cus_1", "")
	if code := rec.finish(t); code != exitOK {
		t.Fatalf("record: exit %d:\n%s", code, rec.stderr)
	}
	if s := rec.stderr.String(); !strings.Contains(s, "recorded 2 exchanges") || strings.Contains(s, "WARNING") || strings.Contains(s, recordCredential) {
		t.Errorf("record stderr: want a summary of 2 exchanges, no key warning, no credential; have\n%s", s)
	}
	first := map[string]string{}
	for _, n := range []string{"0", "1"} {
		b, err := os.ReadFile(filepath.Join(twinDir, "recordings", "flow", n+".json"))
		if err != nil {
			t.Fatal(err)
		}
		first[n] = string(b)
		for _, secret := range []string{recordCredential, recordEmail, "Jenny Rosen", "Authorization"} {
			if strings.Contains(string(b), secret) {
				t.Errorf("recordings/flow/%s.json holds %q:\n%s", n, secret, b)
			}
		}
		if !regexp.MustCompile(`"email": "tok_[0-9a-f]{12}@example\.invalid"`).Match(b) {
			t.Errorf("recordings/flow/%s.json: want the email as an email-shaped token:\n%s", n, b)
		}
	}
	manifest, _ := os.ReadFile(filepath.Join(twinDir, "twin.toml"))
	if !strings.Contains(string(manifest), "name = 'payments'") || !strings.Contains(string(manifest), provider.URL) {
		t.Errorf("twin.toml: want the folder's name and the upstream, have\n%s", manifest)
	}

	// A second run without a key warns, continues the indices, and leaves
	// what was recorded alone.
	env2 := map[string]string{"PROVIDER_KEY": recordCredential}
	rec = startRecord(t, dir, env2, "payments", "--auth-env", "PROVIDER_KEY", "--name", "flow")
	resp, _ = rec.do(t, "GET", "/v1/customers/cus_1", "")
	if have := resp.Header.Get("X-Wraith-Exchange"); have != "flow/2" {
		t.Errorf("second run: want flow/2, have %q", have)
	}
	if code := rec.finish(t); code != exitOK {
		t.Fatalf("second record: exit %d:\n%s", code, rec.stderr)
	}
	if !strings.Contains(rec.stderr.String(), "WRAITH_HMAC_KEY is not set") {
		t.Errorf("second run: want a warning that tokens are not stable, have\n%s", rec.stderr)
	}
	for n, want := range first {
		if b, _ := os.ReadFile(filepath.Join(twinDir, "recordings", "flow", n+".json")); string(b) != want {
			t.Errorf("recordings/flow/%s.json changed on the second run", n)
		}
	}

	tw, err := format.Load(os.DirFS(twinDir), twinDir)
	if err != nil {
		t.Fatalf("the recorded twin does not load: %v", err)
	}
	// Serve it: the first exchange's answer comes back as recorded.
	var recorded struct {
		Response struct{ Body json.RawMessage }
	}
	json.Unmarshal([]byte(first["0"]), &recorded)
	p := startServe(t, twinDir)
	if p.ready.Serve.Digest != tw.Digest {
		t.Errorf("serve: digest want %s, have %s", tw.Digest, p.ready.Serve.Digest)
	}
	sresp, err := http.Post(p.ready.Serve.URL+"/v1/customers", "application/x-www-form-urlencoded",
		strings.NewReader(regexp.MustCompile(`"form": "([^"]*)"`).FindStringSubmatch(first["0"])[1]))
	if err != nil {
		t.Fatal(err)
	}
	sbody, _ := io.ReadAll(sresp.Body)
	sresp.Body.Close()
	if sresp.Header.Get("X-Wraith-Provenance") != "recorded" || sresp.Header.Get("X-Wraith-Exchange") != "flow/0" ||
		compactJSON(t, sbody) != compactJSON(t, recorded.Response.Body) {
		t.Errorf("serve POST /v1/customers with the recorded form: want flow/0's body, recorded; have %s %s %s",
			sresp.Header.Get("X-Wraith-Provenance"), sresp.Header.Get("X-Wraith-Exchange"), sbody)
	}

	// And pack it: the digest is the folder's.
	f, stdout, stderr := testFactory(dir, nil)
	if code := run([]string{"pack", "./payments", "-o", "payments.twin"}, f); code != exitOK {
		t.Fatalf("pack the recording: exit %d: %s", code, stderr)
	}
	if have := strings.TrimSpace(stdout.String()); have != tw.Digest {
		t.Errorf("pack: want the folder's digest %s, have %s", tw.Digest, have)
	}
}

func compactJSON(tb testing.TB, b []byte) string {
	tb.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		tb.Fatalf("not JSON: %v\n%s", err, b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// TestRecordKilled kills a real recorder process: every exchange answered
// before the kill is on disk, and the folder loads.
func TestRecordKilled(t *testing.T) {
	t.Parallel()
	provider := fakeProvider(t)
	dir := t.TempDir()
	ready := filepath.Join(dir, "ready.json")
	cmd := exec.Command(bins.Path(t, "./cmd/wraith"), "record", filepath.Join(dir, "twin"),
		"--upstream", provider.URL, "--auth-env", "PROVIDER_KEY", "--name", "killed", "--ready-json", ready)
	cmd.Env = append(testbin.Env(), "PROVIDER_KEY="+recordCredential, "WRAITH_HMAC_KEY="+recordKey)
	stderr := &testbin.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	var doc struct{ Record struct{ URL string } }
	deadline := time.Now().Add(15 * time.Second)
	for {
		if b, err := os.ReadFile(ready); err == nil && json.Unmarshal(b, &doc) == nil {
			break
		}
		select {
		case <-exited:
			t.Fatalf("wraith record exited before it was ready:\n%s", stderr)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no ready JSON within 15 s:\n%s", stderr)
		}
	}
	for i := range 3 {
		resp, err := http.Get(doc.Record.URL + fmt.Sprintf("/v1/customers/cus_%d", i))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	cmd.Process.Kill()
	<-exited
	tw, err := format.Load(os.DirFS(filepath.Join(dir, "twin")), "killed twin")
	if err != nil {
		t.Fatalf("after a kill, the twin does not load: %v", err)
	}
	if len(tw.Exchanges) != 3 {
		t.Errorf("after a kill: want the 3 answered exchanges on disk, have %d", len(tw.Exchanges))
	}
}
