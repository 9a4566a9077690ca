package egress

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeTwin stands in for a twin: it answers every request with what it
// saw, and keeps the requests.
type fakeTwin struct {
	*httptest.Server
	mu   sync.Mutex
	seen []*http.Request
}

func newFakeTwin(tb testing.TB) *fakeTwin {
	tb.Helper()
	ft := &fakeTwin{}
	ft.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ft.mu.Lock()
		ft.seen = append(ft.seen, r)
		ft.mu.Unlock()
		w.Header().Set("X-Wraith-Provenance", "handler")
		fmt.Fprintf(w, "%s %s session=%s", r.Method, r.URL.Path, r.Header.Get("X-Wraith-Session"))
	}))
	tb.Cleanup(ft.Close)
	return ft
}

func (ft *fakeTwin) lastHost() string {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	if len(ft.seen) == 0 {
		return ""
	}
	return ft.seen[len(ft.seen)-1].Host
}

func (ft *fakeTwin) lastProto() string {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	if len(ft.seen) == 0 {
		return ""
	}
	return ft.seen[len(ft.seen)-1].Header.Get("X-Forwarded-Proto")
}

func (ft *fakeTwin) requests() int {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	return len(ft.seen)
}

// sandbox is a router for one fake twin on api.stripe.com and its misses.
type sandbox struct {
	router *Router
	twin   *fakeTwin
	misses *bytes.Buffer
	mu     *sync.Mutex
}

func newSandbox(tb testing.TB, passthrough ...string) *sandbox {
	tb.Helper()
	ft := newFakeTwin(tb)
	tbl, err := NewTable([]Twin{{Name: "stripe", URL: ft.URL, Hosts: []string{"api.stripe.com"}}}, passthrough)
	if err != nil {
		tb.Fatal(err)
	}
	ca, err := LoadCA(tb.TempDir(), nil)
	if err != nil {
		tb.Fatal(err)
	}
	var buf bytes.Buffer
	mu := &sync.Mutex{}
	r := NewRouter(Config{Table: tbl, CA: ca, Misses: NewMisses(lockedWriter{&buf, mu}, nil, nil)})
	tb.Cleanup(func() { r.Close() })
	return &sandbox{router: r, twin: ft, misses: &buf, mu: mu}
}

func (s *sandbox) missLines() []Miss {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ms []Miss
	for _, line := range strings.Split(strings.TrimSpace(s.misses.String()), "\n") {
		var m Miss
		if json.Unmarshal([]byte(line), &m) == nil {
			ms = append(ms, m)
		}
	}
	return ms
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func startProxy(tb testing.TB, p *Proxy) *url.URL {
	tb.Helper()
	srv := httptest.NewServer(p)
	tb.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	return u
}

func proxyClient(proxy *url.URL, ca *CA, h2 bool) *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:             http.ProxyURL(proxy),
		TLSClientConfig:   &tls.Config{RootCAs: ca.Pool()},
		ForceAttemptHTTP2: h2,
	}}
}

func TestProxyRoutesToTwin(t *testing.T) {
	tests := []struct {
		name    string
		url     string
		user    string // proxy credential's user name
		header  string // X-Wraith-Session the program sends itself
		h2      bool
		proto   string
		want    string
		session string
	}{
		{"https over HTTP/1.1", "https://api.stripe.com/v1/customers", "agent-17", "", false, "HTTP/1.1", "GET /v1/customers session=agent-17", "agent-17"},
		{"https over HTTP/2", "https://api.stripe.com/v1/customers", "agent-17", "", true, "HTTP/2.0", "GET /v1/customers session=agent-17", "agent-17"},
		{"plain http", "http://api.stripe.com/v1/charges", "agent-9", "", false, "HTTP/1.1", "GET /v1/charges session=agent-9", "agent-9"},
		{"no credential", "https://api.stripe.com/v1/customers", "", "", false, "HTTP/1.1", "GET /v1/customers session=", ""},
		{"the credential wins over the program's header", "https://api.stripe.com/v1/customers", "a", "b", false, "HTTP/1.1", "GET /v1/customers session=a", "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := newSandbox(t)
			pu := startProxy(t, &Proxy{Router: sb.router, Dial: refuseDial(t)})
			if tt.user != "" {
				pu.User = url.UserPassword(tt.user, "x")
			}
			req, _ := http.NewRequest(http.MethodGet, tt.url, nil)
			if tt.header != "" {
				req.Header.Set("X-Wraith-Session", tt.header)
			}
			resp, err := proxyClient(pu, sb.router.CA(), tt.h2).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if have := string(body); have != tt.want {
				t.Errorf("want %q, have %q", tt.want, have)
			}
			if resp.Proto != tt.proto {
				t.Errorf("protocol: want %s, have %s", tt.proto, resp.Proto)
			}
			if have := resp.Header.Get("X-Wraith-Provenance"); have != "handler" {
				t.Errorf("the twin's provenance header: want handler, have %q", have)
			}
			// The twin writes the Host and scheme into its answers' URLs.
			if have := sb.twin.lastHost(); have != "api.stripe.com" {
				t.Errorf("the twin saw Host %q, want the provider's api.stripe.com", have)
			}
			wantProto := ""
			if strings.HasPrefix(tt.url, "https:") {
				wantProto = "https"
			}
			if have := sb.twin.lastProto(); have != wantProto {
				t.Errorf("the twin saw X-Forwarded-Proto %q, want %q", have, wantProto)
			}
		})
	}
}

// refuseDial fails the test if the proxy dials anything.
func refuseDial(tb testing.TB) func(string, string) (net.Conn, error) {
	return func(network, addr string) (net.Conn, error) {
		tb.Errorf("the proxy dialled %s", addr)
		return nil, errors.New("no dialling in this test")
	}
}

// internet is a loopback listener standing in for the world outside.
// received reports whether anything connected to it, without waiting: a
// connection the proxy dialled before answering is in the listener's
// backlog by the time the answer has been read.
type internet struct{ *net.TCPListener }

func newInternet(tb testing.TB) internet {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { l.Close() })
	return internet{l.(*net.TCPListener)}
}

func (in internet) received() bool {
	in.SetDeadline(time.Now())
	c, err := in.Accept()
	if err == nil {
		c.Close()
		return true
	}
	return false
}

func TestProxyRefusesUnmappedHosts(t *testing.T) {
	in := newInternet(t)
	addr := in.Addr().String()
	tests := []struct {
		name, request, host string
	}{
		{"CONNECT", "CONNECT " + addr + " HTTP/1.1\r\nHost: " + addr + "\r\nProxy-Authorization: Basic YWdlbnQtMTc6eA==\r\n\r\n", "127.0.0.1"},
		{"CONNECT by name", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", "example.com"},
		{"absolute-form", "GET http://" + addr + "/ HTTP/1.1\r\nHost: " + addr + "\r\n\r\n", "127.0.0.1"},
		{"a mapped host on another port", "CONNECT api.stripe.com:22 HTTP/1.1\r\nHost: api.stripe.com:22\r\n\r\n", "api.stripe.com"},
		{"a mapped host on another port, absolute-form", "GET http://api.stripe.com:8080/v1/customers HTTP/1.1\r\nHost: api.stripe.com:8080\r\n\r\n", "api.stripe.com"},
		{"a host that ends like a mapped one", "CONNECT evilapi.stripe.com:443 HTTP/1.1\r\nHost: evilapi.stripe.com:443\r\n\r\n", "evilapi.stripe.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := newSandbox(t)
			pu := startProxy(t, &Proxy{Router: sb.router, Dial: refuseDial(t)})
			resp := rawRequest(t, pu.Host, tt.request)
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("want 403, have %d", resp.StatusCode)
			}
			var body struct {
				Error struct {
					Code string `json:"code"`
					Host string `json:"host"`
				} `json:"error"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
			if body.Error.Code != "egress-refused" || body.Error.Host != tt.host {
				t.Errorf("want egress-refused for %s, have %+v", tt.host, body.Error)
			}
			if in.received() {
				t.Error("the internet received a connection")
			}
			if n := sb.twin.requests(); n != 0 {
				t.Errorf("the twin received %d requests", n)
			}
			ms := sb.missLines()
			if len(ms) != 1 || ms[0].Host != tt.host || ms[0].Version != MissesVersion {
				t.Errorf("misses: want one for %s, have %+v", tt.host, ms)
			}
		})
	}
}

func rawRequest(tb testing.TB, proxyAddr, request string) *http.Response {
	tb.Helper()
	c, err := net.Dial("tcp", proxyAddr)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, request); err != nil {
		tb.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		tb.Fatal(err)
	}
	return resp
}

func TestProxyPassthrough(t *testing.T) {
	in := newInternet(t)
	sb := newSandbox(t, "127.0.0.1")
	pu := startProxy(t, &Proxy{Router: sb.router})
	resp := rawRequest(t, pu.Host, "CONNECT "+in.Addr().String()+" HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("want 200, have %d", resp.StatusCode)
	}
	in.SetDeadline(time.Now().Add(10 * time.Second))
	c, err := in.Accept()
	if err != nil {
		t.Fatalf("the passthrough host was not dialled: %v", err)
	}
	c.Close()
}

func TestProxyRefusesBadCredentials(t *testing.T) {
	tests := []struct{ name, auth, want string }{
		{"not basic", "Bearer x", "must be Basic"},
		{"not base64", "Basic !!!", "not valid base64"},
		{"a bad session name", "Basic Li46eA==", "dot segment"}, // "..:x"
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := newSandbox(t)
			pu := startProxy(t, &Proxy{Router: sb.router, Dial: refuseDial(t)})
			resp := rawRequest(t, pu.Host, "CONNECT api.stripe.com:443 HTTP/1.1\r\nHost: api.stripe.com:443\r\nProxy-Authorization: "+tt.auth+"\r\n\r\n")
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "invalid-session") || !strings.Contains(string(body), tt.want) {
				t.Errorf("want 400 invalid-session with %q, have %d %s", tt.want, resp.StatusCode, body)
			}
		})
	}
}

// A sandboxed program must not reach the twin's control plane, which
// resets and reads every session.
func TestProxyKeepsControlPlaneAway(t *testing.T) {
	sb := newSandbox(t)
	pu := startProxy(t, &Proxy{Router: sb.router})
	for _, path := range []string{"/__wraith/reset", "/__wraith/session/other/journal"} {
		resp, err := proxyClient(pu, sb.router.CA(), false).Post("https://api.stripe.com"+path, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: want 403, have %d", path, resp.StatusCode)
		}
	}
	if n := sb.twin.requests(); n != 0 {
		t.Errorf("the twin received %d requests", n)
	}
}

// The session of wraith run's proxy is fixed: a credential naming another
// cannot move the program to another world.
func TestProxyFixedSession(t *testing.T) {
	sb := newSandbox(t)
	pu := startProxy(t, &Proxy{Router: sb.router, Session: "run-1"})
	pu.User = url.UserPassword("other", "x")
	resp, err := proxyClient(pu, sb.router.CA(), false).Get("https://api.stripe.com/v1/customers")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if want, have := "GET /v1/customers session=run-1", string(body); want != have {
		t.Errorf("want %q, have %q", want, have)
	}
}
