package egress

import (
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/session"
)

// Proxy is the forward proxy: CONNECT tunnels and absolute-form HTTP
// requests, routed by the router. The session is the user name of the
// request's Proxy-Authorization (Basic), unless Session is set.
type Proxy struct {
	Router *Router
	// Session, when set, is every request's session whatever its
	// credential says (wraith run's fallback, where the run's session is
	// the boundary). Empty: the credential's user name; without one, the
	// request keeps the sources it names itself (SPEC §10).
	Session string
	// Dial reaches passthrough hosts; nil: a plain dialer.
	Dial func(network, addr string) (net.Conn, error)
}

// ServeHTTP implements http.Handler.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	sess, fail := p.session(req)
	if fail != nil {
		apierr.Write(w, fail)
		return
	}
	if req.Method == http.MethodConnect {
		p.connect(w, req, sess)
		return
	}
	if !req.URL.IsAbs() {
		apierr.Write(w, apierr.New(apierr.EgressRefused, "this is a forward proxy: send absolute-form requests (http://host/path) or CONNECT, as HTTP_PROXY and HTTPS_PROXY clients do"))
		return
	}
	host := req.URL.Host
	if tg, ok := p.Router.table.Lookup(host); ok && portOf(req.URL.Port(), 80) == 80 {
		p.Router.forward(w, req, tg, sess, req.URL.Scheme)
		return
	}
	if p.Router.table.Passthrough(host) {
		p.passthroughHTTP(w, req)
		return
	}
	p.refuse(w, req.URL.Hostname(), portOf(req.URL.Port(), 80), sess, ViaProxy)
}

// session reads the session from Proxy-Authorization.
func (p *Proxy) session(req *http.Request) (string, *apierr.Error) {
	auth := req.Header.Get("Proxy-Authorization")
	if p.Session != "" || auth == "" {
		return p.Session, nil
	}
	scheme, cred, _ := strings.Cut(auth, " ")
	if !strings.EqualFold(scheme, "Basic") {
		return "", apierr.New(apierr.InvalidSession, "Proxy-Authorization must be Basic, its user name the session: HTTPS_PROXY=http://SESSION:x@HOST:PORT")
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred))
	if err != nil {
		return "", apierr.New(apierr.InvalidSession, "Proxy-Authorization is not valid base64: HTTPS_PROXY=http://SESSION:x@HOST:PORT")
	}
	user, _, _ := strings.Cut(string(raw), ":")
	if err := session.ValidateName(user); err != nil {
		return "", apierr.New(apierr.InvalidSession, err.Error()+" (from the proxy credential's user name): a session name is 1 to 128 characters of A-Z a-z 0-9 . _ : -")
	}
	return user, nil
}

// connect opens a tunnel: terminated and routed for a mapped host, spliced
// to the host for a passthrough one, refused (nothing dialled) otherwise.
func (p *Proxy) connect(w http.ResponseWriter, req *http.Request, sess string) {
	host, port, err := net.SplitHostPort(req.Host)
	if err != nil {
		host, port = req.Host, "443"
	}
	// A twin answers HTTPS on 443 only: a tunnel to another port of a
	// provider host (SSH, a custom service) would reach nothing real.
	_, mapped := p.Router.table.Lookup(host)
	mapped = mapped && port == "443"
	pass := !mapped && p.Router.table.Passthrough(host)
	if !mapped && !pass {
		p.refuse(w, host, portOf(port, 443), sess, ViaConnect)
		return
	}
	var upstream net.Conn
	if pass {
		dial := p.Dial
		if dial == nil {
			dial = (&net.Dialer{Timeout: 10 * time.Second}).Dial
		}
		if upstream, err = dial("tcp", net.JoinHostPort(host, port)); err != nil {
			apierr.Write(w, apierr.Errorf(apierr.UpstreamUnreachable, "passthrough host %s: %v", req.Host, err))
			return
		}
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		apierr.Write(w, apierr.New(apierr.Internal, "CONNECT over HTTP/2 is not supported: connect to the proxy over HTTP/1.1"))
		return
	}
	c, rw, err := hj.Hijack()
	if err != nil {
		return
	}
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		c.Close()
		return
	}
	// Bytes the client sent after its CONNECT (a TLS hello, eagerly) are
	// in rw's buffer: they go first.
	conn := net.Conn(c)
	if n := rw.Reader.Buffered(); n > 0 {
		head, _ := rw.Reader.Peek(n)
		conn = &prefixConn{Conn: c, head: append([]byte(nil), head...)}
	}
	if pass {
		go splice(conn, upstream)
		return
	}
	p.Router.terminate(conn, sess, normalHost(host))
}

func (p *Proxy) passthroughHTTP(w http.ResponseWriter, req *http.Request) {
	out := req.Clone(req.Context())
	out.RequestURI = ""
	out.Header.Del("Proxy-Authorization")
	out.Header.Del("Proxy-Connection")
	resp, err := (&http.Transport{Proxy: nil}).RoundTrip(out)
	if err != nil {
		apierr.Write(w, apierr.Errorf(apierr.UpstreamUnreachable, "passthrough host %s: %v", req.URL.Host, err))
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

// refuse answers 403 egress-refused and records the miss. Nothing is
// dialled.
func (p *Proxy) refuse(w http.ResponseWriter, host string, port int, sess, via string) {
	host = normalHost(host)
	p.Router.misses.Record(Miss{Session: sess, Host: host, Port: port, Via: via, Reason: "no twin serves this host"})
	apierr.Write(w, apierr.Errorf(apierr.EgressRefused, "no twin serves %s, and the sandbox reaches nothing else: nothing was dialled (serve a twin for it with hosts = [%q] in its twin.toml, or let it through with --passthrough %s)", host, host, host).
		With("host", host).With("hosts", p.Router.table.Hosts()))
}

func portOf(s string, def int) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return def
}

// prefixConn replays bytes read ahead of a hijack.
type prefixConn struct {
	net.Conn
	head []byte
}

func (c *prefixConn) Read(b []byte) (int, error) {
	if len(c.head) > 0 {
		n := copy(b, c.head)
		c.head = c.head[n:]
		return n, nil
	}
	return c.Conn.Read(b)
}

func splice(a, b net.Conn) {
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		io.Copy(dst, src)
		if tc, ok := dst.(interface{ CloseWrite() error }); ok {
			tc.CloseWrite()
		}
		done <- struct{}{}
	}
	go cp(a, b)
	go cp(b, a)
	<-done
	<-done
	a.Close()
	b.Close()
}
