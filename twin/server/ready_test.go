package server

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a ready writer a server and a test can share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// recorder is a Publisher that keeps what it was told.
type recorder struct {
	mu        sync.Mutex
	published []Info
	withdrawn int
}

func (r *recorder) Publish(in Info) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.published = append(r.published, in)
	return nil
}

func (r *recorder) Withdraw() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.withdrawn++
}

// openReady opens a checkout server on 127.0.0.1:0 that announces itself
// to p.
func openReady(tb testing.TB, p Publisher) *Server {
	tb.Helper()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	cfg := Flags(fs)
	cfg.Twin = "checkout"
	dir, _ := os.Getwd()
	srv, err := Open(*cfg, Deps{
		Getenv:    func(string) string { return "" },
		Dir:       filepath.Join(dir, "..", ".."),
		Version:   "test",
		Now:       func() time.Time { return frozen },
		Resolve:   fakeDNS,
		Publisher: p,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return srv
}

// TestNoReadyAfterStop: a server told to stop before it published must
// not announce itself; a parent reading the line would think it serves.
// What the mains publish (the ready document, a failed write of it) is
// tested in internal/serve.
func TestNoReadyAfterStop(t *testing.T) {
	for i := range 20 { // the old code lost this race most of the time, not always
		var ready recorder
		srv := openReady(t, &ready)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := srv.Run(ctx); err != nil {
			t.Fatalf("Run after a stop: want nil, have %v", err)
		}
		if have := len(ready.published); have != 0 {
			t.Fatalf("run %d: the server announced itself after the stop was decided: %+v", i, ready.published)
		}
		if have := ready.withdrawn; have != 1 {
			t.Fatalf("run %d: Withdraw: want 1 call once Run stopped, have %d", i, have)
		}
	}
}

// TestPublishFailureIsFatal: a publisher that cannot announce the server
// (a ready descriptor nobody reads) stops it, and Run returns its error.
func TestPublishFailureIsFatal(t *testing.T) {
	want := errors.New("--ready-fd: broken pipe")
	srv := openReady(t, failing{want})
	done := make(chan error, 1)
	go func() { done <- srv.Run(context.Background()) }()
	select {
	case err := <-done:
		if !errors.Is(err, want) {
			t.Errorf("Run: want the publisher's error %v, have %v", want, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a twin that could not announce itself kept serving")
	}
}

// failing is a Publisher whose announcement fails.
type failing struct{ err error }

func (f failing) Publish(Info) error { return f.err }
func (f failing) Withdraw()          {}

// TestServeIPv6 serves over real HTTP on the IPv6 loopback, with --host
// given bare and bracketed.
func TestServeIPv6(t *testing.T) {
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skipf("this machine has no IPv6 loopback (%v)", err)
	}
	ln.Close()
	for _, host := range []string{"[::1]", "::1"} {
		t.Run(host, func(t *testing.T) {
			srv, err := openWith(t, nil, nil, "--host", host)
			if err != nil {
				t.Fatalf("Open --host %s: %v", host, err)
			}
			serveWith(t, srv)
			ready := srv.Info()
			if want := "http://[::1]:" + strconv.Itoa(ready.Port); ready.URL != want || ready.Host != "::1" {
				t.Errorf("ready: want url %s host ::1, have %s %s", want, ready.URL, ready.Host)
			}
			// A control call names the twin by its [::1] Host and passes the guard.
			if code, body := post(t, ready.URL+"/__wraith/session", `{"session":"v6"}`); code != http.StatusCreated {
				t.Errorf("provision over [::1]: want 201, have %d %s", code, body)
			}
			resp, err := http.Get(ready.URL + "/v1/customers/cus_123")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("GET over [::1]: want 200, have %d", resp.StatusCode)
			}
		})
	}
}

// TestReadyShowsTheAskedWildcard: a twin bound to every address shows it
// as it was asked for: --host 0.0.0.0 as 0.0.0.0 (Go reports the socket
// as "::"), and :: as [::] in the URL. The listener is a stand-in that
// reports what the kernel would, so nothing binds off loopback.
func TestReadyShowsTheAskedWildcard(t *testing.T) {
	for _, tc := range []struct {
		host     string
		bound    net.IP
		url      string
		showHost string
	}{
		{"0.0.0.0", net.IPv6unspecified, "http://0.0.0.0:8080", "0.0.0.0"},
		{"0.0.0.0", net.IPv4zero, "http://0.0.0.0:8080", "0.0.0.0"},
		{"::", net.IPv6unspecified, "http://[::]:8080", "::"},
		{"[::]", net.IPv6unspecified, "http://[::]:8080", "::"},
		{"127.0.0.1", net.IPv4(127, 0, 0, 1), "http://127.0.0.1:8080", "127.0.0.1"},
		{"::1", net.IPv6loopback, "http://[::1]:8080", "::1"},
		{"localhost", net.IPv4(127, 0, 0, 1), "http://127.0.0.1:8080", "127.0.0.1"},
	} {
		t.Run(tc.host, func(t *testing.T) {
			srv, err := openWith(t, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			srv.ln.Close()
			srv.ln = addrListener{&net.TCPAddr{IP: tc.bound, Port: 8080}}
			srv.cfg.Host = tc.host
			if have := srv.URL(); have != tc.url {
				t.Errorf("URL: want %s, have %s", tc.url, have)
			}
			in := srv.Info()
			if in.URL != tc.url || in.Host != tc.showHost {
				t.Errorf("Info (the ready document's): want url %s host %s, have %s %s", tc.url, tc.showHost, in.URL, in.Host)
			}
		})
	}
}

// addrListener is a listener that only reports its address.
type addrListener struct{ addr *net.TCPAddr }

func (l addrListener) Accept() (net.Conn, error) { return nil, net.ErrClosed }
func (l addrListener) Close() error              { return nil }
func (l addrListener) Addr() net.Addr            { return l.addr }
