package server

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// compatClient is how stripe-go's suite reaches stripe-mock: TLS without
// verification (the certificate is self-signed) and HTTP/2 forced on.
func compatClient(tb testing.TB) *http.Client {
	tb.Helper()
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, ForceAttemptHTTP2: true}
	tb.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// TestCompatStripeMock serves the checkout twin with --compat
// stripe-mock on one port and reaches it as both SDK suites do: over
// TLS with HTTP/2 (stripe-go) and over plain HTTP (stripe-python).
// Every answer carries Stripe-Mock-Version, / is stripe-mock's 404, and
// the twin's own routes are served on both.
func TestCompatStripeMock(t *testing.T) {
	srv := startServer(t, "checkout", "--compat", "stripe-mock", "--port", "0")
	port := srv.Addr().Port
	tlsClient := compatClient(t)
	for _, tc := range []struct {
		name, url  string
		client     *http.Client
		wantProto  int
		wantStatus int
		wantBody   string // a regexp
	}{
		{"https probe", "https://localhost:%d/", tlsClient, 2, 404, `^\{"error":\{"message":"Unrecognized request URL \(GET: /\)\.","type":"invalid_request_error"\}\}\n$`},
		{"http probe", "http://localhost:%d/", http.DefaultClient, 1, 404, `Unrecognized request URL \(GET: /\)`},
		{"https route", "https://localhost:%d/v1/customers/cus_compat", tlsClient, 2, 200, `"id":"cus_compat"`},
		{"http route", "http://127.0.0.1:%d/v1/customers/cus_compat", http.DefaultClient, 1, 200, `"id":"cus_compat"`},
		{"control plane", "http://127.0.0.1:%d/__wraith/health", http.DefaultClient, 1, 200, `.`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, fmt.Sprintf(tc.url, port), nil)
			if err != nil {
				t.Fatal(err)
			}
			req.SetBasicAuth("sk_test_123", "")
			resp, err := tc.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if want, have := tc.wantProto, resp.ProtoMajor; want != have {
				t.Errorf("protocol: want HTTP/%d, have %s", want, resp.Proto)
			}
			if want, have := tc.wantStatus, resp.StatusCode; want != have {
				t.Errorf("status: want %d, have %d: %s", want, have, body)
			}
			if want, have := stripeMockVersion, resp.Header.Get("Stripe-Mock-Version"); want != have {
				t.Errorf("Stripe-Mock-Version: want %q, have %q", want, have)
			}
			if !regexp.MustCompile(tc.wantBody).Match(body) {
				t.Errorf("body: want a match of %s, have %s", tc.wantBody, body)
			}
		})
	}
}

// TestCompatOff: without --compat nothing of stripe-mock shows, and / is
// the twin's own answer.
func TestCompatOff(t *testing.T) {
	srv := startServer(t, "checkout")
	resp, body := do(t, srv.URL(), call{path: "/"})
	if have := resp.Header.Get("Stripe-Mock-Version"); have != "" {
		t.Errorf("Stripe-Mock-Version: want none, have %q", have)
	}
	if strings.Contains(string(body), "Unrecognized request URL") {
		t.Errorf("/ without --compat: want the twin's answer, have stripe-mock's: %s", body)
	}
	if _, err := tls.Dial("tcp", srv.Addr().String(), &tls.Config{InsecureSkipVerify: true}); err == nil {
		t.Error("TLS handshake without --compat: want it refused, have it accepted")
	}
}

// TestCompatSilentClient: a connection that never sends its first byte
// holds up no other client while the listener waits to tell TLS from
// HTTP.
func TestCompatSilentClient(t *testing.T) {
	srv := startServer(t, "checkout", "--compat", "stripe-mock", "--port", "0")
	silent, err := net.Dial("tcp", srv.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	resp, _ := do(t, srv.URL(), call{path: "/v1/customers/cus_after_silent", header: map[string]string{"Authorization": "Bearer sk_test_123"}})
	if want, have := 200, resp.StatusCode; want != have {
		t.Errorf("status beside a silent connection: want %d, have %d", want, have)
	}
}

// TestCompatFlags: the mode's port defaults and its refusals.
func TestCompatFlags(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		wantPort int
		wantErr  string
	}{
		{args: []string{"--compat", "stripe-mock"}, wantPort: stripeMockHTTPPort},
		{args: []string{"--compat", "stripe-mock", "--port", "0"}, wantPort: 0},
		{args: []string{"--compat", "stripe-mock", "--port", "4242"}, wantPort: 4242},
		{args: []string{}, wantPort: 0},
		{args: []string{"--compat", "prism"}, wantErr: `--compat "prism": want stripe-mock`},
	} {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		cfg := Flags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		err := cfg.Validate()
		if tc.wantErr != "" {
			var ue *UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v: want a usage error with %q, have %v", tc.args, tc.wantErr, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tc.args, err)
		}
		if want, have := tc.wantPort, cfg.listenPort(); want != have {
			t.Errorf("%v: port: want %d, have %d", tc.args, want, have)
		}
	}
}

// TestCompatRefusesOtherDialects: stripe-mock answers in Stripe's
// dialect, so a GitHub twin cannot stand in for it.
func TestCompatRefusesOtherDialects(t *testing.T) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	cfg := Flags(fs)
	if err := fs.Parse([]string{"--compat", "stripe-mock", "--port", "0"}); err != nil {
		t.Fatal(err)
	}
	cfg.Twin = "github"
	_, err := Open(*cfg, Deps{Getenv: func(string) string { return "" }})
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "speaks the github dialect") {
		t.Errorf("want a usage error naming the github dialect, have %v", err)
	}
}

// TestCompatVersionIsThePin: the Stripe-Mock-Version the compat mode
// answers is the stripe-mock release the stripe twin's description comes
// from, as the overlay pins it; re-pinning one without the other fails
// here.
func TestCompatVersionIsThePin(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "openapi", "overlays", "stripe.toml"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^module = "github\.com/stripe/stripe-mock@v([0-9.]+)"`).FindSubmatch(b)
	if m == nil {
		t.Fatal("stripe.toml: no [source] module of github.com/stripe/stripe-mock")
	}
	if want, have := string(m[1]), stripeMockVersion; want != have {
		t.Errorf("stripeMockVersion: want the overlay's pin %s, have %s", want, have)
	}
}
