// Package server runs one twin as an HTTP server: it resolves and loads the
// twin, builds its engine and control plane, binds the listener, says when
// it serves (to a Publisher: the mains write the ready document), and
// drains on shutdown. `wraith serve`, `wraith-twin`, wraithprof and
// wraithtest all reach Open and Run through one serve entry point
// (internal/serve), so they serve the same way. The server knows
// nothing of signals or of the process around it: Run serves until its
// context ends, and the mains decide what ends it.
package server

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wraithdev/wraith/twin/control"
	"github.com/wraithdev/wraith/twin/engine"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/webhook"
)

// Deps are the outside world a server uses.
type Deps struct {
	Logger  hclog.Logger
	Getenv  func(string) string
	Dir     string // working directory, for twin resolution
	Version string
	// Publisher, when set, announces the server once it serves; the
	// mains' writes the ready document.
	Publisher Publisher
	// ParentAlive, when set, is read until EOF; EOF means the parent died
	// and the server shuts down.
	ParentAlive io.Reader
	// Now is the wall clock; nil means time.Now.
	Now func() time.Time
	// Resolve looks up the addresses of a --host name, to tell whether it
	// is loopback; nil means the system resolver.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
}

// Server is a bound, not yet serving, twin server.
type Server struct {
	cfg     Config
	deps    Deps
	log     hclog.Logger
	twin    *format.Twin
	eng     *engine.Engine
	ctl     *control.Handler
	guard   *guard
	ln      net.Listener
	srv     *http.Server
	started time.Time
	state   *state // nil without --state-dir
	hooks   *webhook.Deliverer
}

// Engine returns the server's engine.
func (s *Server) Engine() *engine.Engine { return s.eng }

// Addr returns the bound address.
func (s *Server) Addr() *net.TCPAddr { return s.ln.Addr().(*net.TCPAddr) }

// URL returns the base URL of the bound listener.
func (s *Server) URL() string {
	return "http://" + net.JoinHostPort(s.displayHost(), strconv.Itoa(s.Addr().Port))
}
