// Package wraithtest serves a Wraith twin inside a Go test, the way
// net/http/httptest serves a handler:
//
//	srv := wraithtest.Start(t, "checkout", wraithtest.Seed(42), wraithtest.Fixture("baseline"))
//	client := srv.Session("agent-1") // every request in session agent-1
//	resp, err := client.Get(srv.URL + "/v1/customers/cus_123")
//
// The twin is served in the test's own process, on 127.0.0.1 and a free
// port, by the same server `wraith serve` runs, so what a test sees is what
// the command serves. Start stops it when the test ends, after in-flight
// requests finish. New and Close do the same where there is no testing.TB,
// as in an Example.
//
// Twins resolve as `wraith serve TWIN` resolves them: a folder or .twin
// file path, ./twins/NAME and ./NAME.twin relative to the test's working
// directory (Dir changes it), WRAITH_TWINS_PATH, then the embedded twins
// (checkout, billing, stripe, github).
package wraithtest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/wraithdev/wraith/internal/serve"
	"github.com/wraithdev/wraith/ipc"
	"github.com/wraithdev/wraith/twin/server"
)

// Server is a twin served in this process.
type Server struct {
	// URL is the base URL, such as http://127.0.0.1:41234, with no
	// trailing slash.
	URL string
	// Twin is the served twin's name; TwinDigest its sha256: digest, the
	// digest of its files (Digest is a session's).
	Twin       string
	TwinDigest string

	srv       *server.Server
	transport *http.Transport
	cancel    context.CancelFunc
	done      chan error
	closed    chan struct{}
	closeErr  error
}

// Start serves twin until the test ends, failing the test when it cannot.
// Options are serve's settings (Seed, Fixture, Clock, ..., or any serve
// flag through Flags).
func Start(tb testing.TB, twin string, opts ...Option) *Server {
	tb.Helper()
	s, err := New(twin, opts...)
	if err != nil {
		tb.Fatalf("wraithtest.Start(%q): %v", twin, err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("wraithtest: stopping %s: %v", twin, err)
		}
	})
	return s
}

// New serves twin until Close. Start is the same for tests.
func New(twin string, opts ...Option) (*Server, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if o.err != nil {
		return nil, o.err
	}
	fs := flag.NewFlagSet("wraithtest", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	sopts := serve.Flags(fs)
	if err := fs.Parse(o.serveFlags()); err != nil {
		return nil, fmt.Errorf("serve flags %q: %w", o.serveFlags(), err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("Flags: %q is not a flag; name the twin as Start's argument", fs.Arg(0))
	}
	if sopts.ReadyFD != -1 {
		return nil, errors.New("Flags: --ready-fd is for a child process; a wraithtest server is ready when Start returns")
	}
	// Loopback and a free port, whatever the flags said: a test server is
	// reachable from this machine only, and tests run in parallel.
	cfg := sopts.Server
	cfg.Twin, cfg.Host, cfg.Port = twin, "127.0.0.1", 0
	dir := o.dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("working directory, to resolve %q: %w; set one with wraithtest.Dir", twin, err)
		}
		dir = wd
	}
	log := o.logger
	if log == nil {
		log = hclog.NewNullLogger()
	}
	srv, err := serve.Open(sopts, serve.Env{
		Logger:  log,
		Getenv:  os.Getenv,
		Dir:     dir,
		Version: "wraithtest",
	})
	if err != nil {
		return nil, err
	}
	in := srv.Info()
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		URL:        srv.URL(),
		Twin:       in.Twin,
		TwinDigest: in.Digest,
		srv:        srv,
		transport:  http.DefaultTransport.(*http.Transport).Clone(),
		cancel:     cancel,
		done:       make(chan error, 1),
		closed:     make(chan struct{}),
	}
	// The listener is bound already: requests sent before Run accepts
	// wait in its backlog, so the server is usable as soon as New returns.
	// Only Close ends ctx: the test process's signals are the test's, and
	// its garbage collector is left as the test set it (no serve.Run).
	go func() { s.done <- srv.Run(ctx) }()
	return s, nil
}

// Close stops serving: it stops accepting, waits for in-flight requests
// (up to the server's shutdown grace, 5 s unless Flags says otherwise),
// and returns what the server's run ended with. Calling it again returns
// the same.
func (s *Server) Close() error {
	select {
	case <-s.closed:
		return s.closeErr
	default:
	}
	s.cancel()
	s.closeErr = <-s.done
	s.transport.CloseIdleConnections()
	close(s.closed)
	return s.closeErr
}

// Server returns the underlying server, for what this package does not
// wrap (its engine, its ready document).
func (s *Server) Server() *server.Server { return s.srv }

// Client returns a client whose requests carry no session header: they
// land in the default session.
func (s *Server) Client() *http.Client {
	return &http.Client{Transport: s.transport}
}

// Session returns a client whose every request is in session name: it
// sets the X-Wraith-Session header, replacing one the request carries.
// Hand it to an SDK (stripe-go's BackendConfig.HTTPClient, go-github's
// NewClient) to put the SDK's calls in that session.
func (s *Server) Session(name string) *http.Client {
	return &http.Client{Transport: &sessionTransport{session: name, base: s.transport}}
}

// sessionTransport adds the session header to each request.
type sessionTransport struct {
	session string
	base    http.RoundTripper
}

func (t *sessionTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	// A RoundTripper must not change the caller's request.
	r = r.Clone(r.Context())
	r.Header.Set(ipc.SessionHeader, t.session)
	return t.base.RoundTrip(r)
}

// String names the served twin and its URL.
func (s *Server) String() string {
	return s.Twin + " at " + s.URL + " (" + s.TwinDigest + ")"
}
