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
	"strings"
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

// failingWriter is a ready descriptor whose reader went away.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// openReady opens a checkout server on 127.0.0.1:0 whose ready line goes
// to w.
func openReady(tb testing.TB, w interface{ Write([]byte) (int, error) }) *Server {
	tb.Helper()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	cfg := Flags(fs)
	cfg.Twin = "checkout"
	dir, _ := os.Getwd()
	srv, err := Open(*cfg, Deps{
		Getenv:      func(string) string { return "" },
		Dir:         filepath.Join(dir, "..", ".."),
		Version:     "test",
		Now:         func() time.Time { return frozen },
		Resolve:     fakeDNS,
		ReadyWriter: w,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return srv
}

// TestNoReadyAfterStop: a server told to stop before it published must
// not announce itself; a parent reading the line would think it serves.
func TestNoReadyAfterStop(t *testing.T) {
	for i := range 20 { // the old code lost this race most of the time, not always
		var ready lockedBuffer
		srv := openReady(t, &ready)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := srv.Run(ctx); err != nil {
			t.Fatalf("Run after a stop: want nil, have %v", err)
		}
		if have := ready.String(); have != "" {
			t.Fatalf("run %d: a ready line went out after the stop was decided: %s", i, have)
		}
	}
}

// TestReadyWriteFailureIsFatal: a ready descriptor nobody reads stops the
// twin with a message naming the flag.
func TestReadyWriteFailureIsFatal(t *testing.T) {
	srv := openReady(t, failingWriter{})
	done := make(chan error, 1)
	go func() { done <- srv.Run(context.Background()) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "--ready-fd") || !strings.Contains(err.Error(), "broken pipe") {
			t.Errorf("want an error naming --ready-fd and the cause, have %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a twin whose ready line could not be written kept serving")
	}
}

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
			ready := srv.Ready().Serve
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
			doc := srv.Ready()
			if doc.Serve.URL != tc.url || doc.Serve.Host != tc.showHost {
				t.Errorf("ready document: want url %s host %s, have %s %s", tc.url, tc.showHost, doc.Serve.URL, doc.Serve.Host)
			}
		})
	}
}

// addrListener is a listener that only reports its address.
type addrListener struct{ addr *net.TCPAddr }

func (l addrListener) Accept() (net.Conn, error) { return nil, net.ErrClosed }
func (l addrListener) Close() error              { return nil }
func (l addrListener) Addr() net.Addr            { return l.addr }
