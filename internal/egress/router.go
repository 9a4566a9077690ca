package egress

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/http/httputil"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/wraithdev/wraith/ipc"
	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/wire"
)

// Router forwards requests for mapped hosts to their twins.
type Router struct {
	table  *Table
	ca     *CA
	misses *Misses
	log    hclog.Logger
	fwd    *httputil.ReverseProxy

	// tlsConns feeds the terminating server: connections that a CONNECT
	// tunnel or a sandbox listener accepted, before their handshake.
	tlsConns *connListener
	tlsSrv   *http.Server
	once     sync.Once
}

// Config is what a Router needs.
type Config struct {
	Table  *Table
	CA     *CA
	Misses *Misses      // nil: refusals are only logged
	Logger hclog.Logger // nil: a null logger
	// Transport reaches the twins; nil: a transport of the router's own.
	Transport http.RoundTripper
}

// NewRouter returns a router. Close it to stop its terminating server.
func NewRouter(cfg Config) *Router {
	log := cfg.Logger
	if log == nil {
		log = hclog.NewNullLogger()
	}
	rt := cfg.Transport
	if rt == nil {
		rt = &http.Transport{
			// The twins are on loopback: never through a proxy of the
			// environment, which may be this very sandbox.
			Proxy:               nil,
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
			MaxIdleConnsPerHost: 64,
			IdleConnTimeout:     90 * time.Second,
		}
	}
	r := &Router{table: cfg.Table, ca: cfg.CA, misses: cfg.Misses, log: log}
	r.fwd = &httputil.ReverseProxy{
		Rewrite:      r.rewrite,
		Transport:    rt,
		ErrorHandler: r.forwardError,
		// Streams (server-sent events, git packs) go through as they come.
		FlushInterval: -1,
		// Without a pool each request allocates a 32 KiB copy buffer.
		BufferPool: &bufferPool{},
	}
	r.tlsConns = newConnListener()
	r.tlsSrv = &http.Server{
		Handler:           http.HandlerFunc(r.serveTerminated),
		ReadHeaderTimeout: 30 * time.Second,
		ErrorLog:          log.StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true}),
		TLSConfig: &tls.Config{
			MinVersion:     tls.VersionTLS12,
			NextProtos:     []string{"h2", "http/1.1"},
			GetCertificate: r.certificate,
		},
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			if tc, ok := c.(*tls.Conn); ok {
				if sc, ok := tc.NetConn().(*sandboxConn); ok {
					return context.WithValue(ctx, connKey{}, sc)
				}
			}
			return ctx
		},
	}
	return r
}

// Table is the router's routing table.
func (r *Router) Table() *Table { return r.table }

// CA is the router's certificate authority.
func (r *Router) CA() *CA { return r.ca }

// Close stops the terminating server and the connections it serves.
func (r *Router) Close() error {
	r.tlsConns.Close()
	return r.tlsSrv.Close()
}

// sandboxConn is a connection on its way to the terminating server,
// carrying what the front door learned: the session, and for a CONNECT
// tunnel the host it was opened to.
type sandboxConn struct {
	net.Conn
	session string
	host    string // the CONNECT authority's host; "" from a sandbox listener
}

type connKey struct{}

// terminate hands c to the terminating server.
func (r *Router) terminate(c net.Conn, session, host string) {
	r.once.Do(func() { go r.tlsSrv.ServeTLS(r.tlsConns, "", "") })
	if !r.tlsConns.push(&sandboxConn{Conn: c, session: session, host: host}) {
		c.Close()
	}
}

// certificate mints the leaf for the host a client asks for. An unmapped
// name fails the handshake: no certificate is minted for a host the
// sandbox does not serve.
func (r *Router) certificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	host := hello.ServerName
	sc, _ := hello.Conn.(*sandboxConn)
	if sc != nil && sc.host != "" {
		// A tunnel's certificate is for the host the tunnel was opened to,
		// whatever the hello says, so one tunnel cannot reach two twins.
		host = sc.host
	}
	if host == "" {
		host = localName(hello.Conn)
	}
	if _, ok := r.table.Lookup(host); !ok {
		session := ""
		if sc != nil {
			session = sc.session
		}
		r.misses.Record(Miss{Session: session, Host: normalHost(host), Port: 443, Via: ViaTLS, Reason: "no twin serves this host"})
		return nil, errors.New("egress: no twin serves " + host)
	}
	return r.ca.Leaf(host)
}

// localName is a connection's local address, the host a client dialled
// when it sent no server name (an IP literal).
func localName(c net.Conn) string {
	if c == nil {
		return ""
	}
	h, _, _ := net.SplitHostPort(c.LocalAddr().String())
	return h
}

// serveTerminated serves one request that arrived over TLS.
func (r *Router) serveTerminated(w http.ResponseWriter, req *http.Request) {
	sc, _ := req.Context().Value(connKey{}).(*sandboxConn)
	session, host := "", req.TLS.ServerName
	if sc != nil {
		session = sc.session
		if sc.host != "" {
			host = sc.host
		}
	}
	tg, ok := r.table.Lookup(host)
	if !ok { // certificate() refused the handshake already; belt and braces
		abort(w)
		return
	}
	r.forward(w, req, tg, session, "https")
}

// ServeHTTP serves plain HTTP from a sandbox listener, routed by Host, in
// session. A request for an unmapped host gets no answer: its connection
// is closed, so no client takes a refusal for an answer.
func (r *Router) ServeHTTP(session string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		tg, ok := r.table.Lookup(req.Host)
		if !ok {
			r.misses.Record(Miss{Session: session, Host: normalHost(req.Host), Port: 80, Via: ViaHTTP, Reason: "no twin serves this host"})
			abort(w)
			return
		}
		r.forward(w, req, tg, session, "http")
	})
}

// ServeTLS terminates TLS on the connections l accepts, in session, until
// l is closed.
func (r *Router) ServeTLS(l net.Listener, session string) error {
	for {
		c, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		r.terminate(c, session, "")
	}
}

// abort ends the exchange without an answer.
func abort(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if c, _, err := hj.Hijack(); err == nil {
			if tc, ok := c.(*net.TCPConn); ok {
				tc.SetLinger(0) // a reset, not a polite close
			}
			c.Close()
			return
		}
	}
	panic(http.ErrAbortHandler) // HTTP/2: the stream is reset
}

// controlPrefix starts every control path; the ready document's list of
// them is its one home.
var controlPrefix = path.Dir(ipc.ControlPaths().Health) + "/"

type fwdKey struct{}

type fwdInfo struct {
	target  Target
	session string
	scheme  string
}

// forward sends req to its twin in session. The twin's control plane is
// not the provider's: a sandboxed program reaching it could reset or read
// every session, so its paths are refused.
func (r *Router) forward(w http.ResponseWriter, req *http.Request, tg Target, session, scheme string) {
	if strings.HasPrefix(req.URL.Path, controlPrefix) {
		apierr.Write(w, apierr.Errorf(apierr.EgressRefused, "the twin's control plane (%s*) is not reachable through the sandbox: call it at the twin's own URL (wraith env)", controlPrefix))
		return
	}
	ctx := context.WithValue(req.Context(), fwdKey{}, fwdInfo{target: tg, session: session, scheme: scheme})
	r.fwd.ServeHTTP(w, req.WithContext(ctx))
}

func (r *Router) rewrite(pr *httputil.ProxyRequest) {
	info := pr.In.Context().Value(fwdKey{}).(fwdInfo)
	pr.SetURL(info.target.URL)
	// SetURL joins the twin's base path; the provider path stays as the
	// program sent it.
	pr.Out.URL.Path, pr.Out.URL.RawPath = pr.In.URL.Path, pr.In.URL.RawPath
	if info.target.URL.Path != "" && info.target.URL.Path != "/" {
		pr.Out.URL.Path = strings.TrimSuffix(info.target.URL.Path, "/") + pr.In.URL.Path
		pr.Out.URL.RawPath = ""
	}
	// The provider's host and scheme, not the twin's address: the twin
	// writes them into the URLs of its answers (links, pagination), which
	// the program then follows through the sandbox, where the twin's own
	// address is out of reach. The twin is reached over plain HTTP, so the
	// scheme the program used goes in X-Forwarded-Proto (what the program
	// sent of it is dropped).
	pr.Out.Host = pr.In.Host
	pr.Out.Header.Del("X-Forwarded-Proto")
	if pr.In.TLS != nil {
		pr.Out.Header.Set("X-Forwarded-Proto", "https")
	}
	pr.Out.Header.Del("Proxy-Authorization")
	pr.Out.Header.Del("Proxy-Connection")
	if info.session != "" {
		// The sandbox's session is the boundary: the program cannot pick
		// another by sending the header itself. (A credential naming
		// another session makes the twin answer session-conflict.)
		pr.Out.Header.Set(wire.SessionHeader, info.session)
	}
	if r.log.IsDebug() {
		r.log.Debug("forward", "twin", info.target.Twin, "session", info.session, "method", pr.In.Method, "host", pr.In.Host, "path", pr.In.URL.Path)
	}
}

func (r *Router) forwardError(w http.ResponseWriter, req *http.Request, err error) {
	info, _ := req.Context().Value(fwdKey{}).(fwdInfo)
	if req.Context().Err() != nil {
		return // the program went away
	}
	r.log.Warn("twin unreachable", "twin", info.target.Twin, "error", err)
	apierr.Write(w, apierr.Errorf(apierr.UpstreamUnreachable, "the sandbox could not reach twin %s at %s (%v): is it still running? wraith status tells", info.target.Twin, info.target.URL, err))
}

// bufferPool recycles the reverse proxy's copy buffers.
type bufferPool struct{ p sync.Pool }

func (b *bufferPool) Get() []byte {
	if buf, ok := b.p.Get().(*[]byte); ok {
		return *buf
	}
	return make([]byte, 32<<10)
}

func (b *bufferPool) Put(buf []byte) { b.p.Put(&buf) }
