package server

import (
	"bufio"
	"crypto/tls"
	"net"
	"sync"
	"time"
)

// sniffListener accepts on several listeners as one, and hands each
// connection to net/http as TLS (a *tls.Conn, so HTTP/2 is negotiated)
// or as plain HTTP, by its first byte: a TLS handshake record starts
// with 0x16, which no HTTP method does. The first byte is read off the
// accepting goroutine, so a client that connects and says nothing holds
// up no one else; it is cut off after sniffTimeout.
type sniffListener struct {
	lns   []net.Listener
	tls   *tls.Config
	conns chan net.Conn
	errs  chan error
	done  chan struct{}
	once  sync.Once

	mu      sync.Mutex
	pending map[net.Conn]struct{} // being sniffed; closed by Close
}

// tlsRecordHandshake is the first byte of a TLS ClientHello.
const tlsRecordHandshake = 0x16

func newSniffListener(lns []net.Listener, tc *tls.Config) *sniffListener {
	l := &sniffListener{
		lns:     lns,
		tls:     tc,
		conns:   make(chan net.Conn),
		errs:    make(chan error),
		done:    make(chan struct{}),
		pending: map[net.Conn]struct{}{},
	}
	for _, ln := range lns {
		go l.accept(ln)
	}
	return l
}

func (l *sniffListener) accept(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			select {
			case l.errs <- err:
			case <-l.done:
				return
			}
			// net/http retries a temporary error and stops on any other;
			// a closed listener is the end of this one either way.
			if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
				return
			}
			continue
		}
		if !l.track(c) {
			c.Close()
			return
		}
		go l.sniff(c)
	}
}

// track records c as being sniffed, unless the listener is closed.
func (l *sniffListener) track(c net.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending == nil {
		return false
	}
	l.pending[c] = struct{}{}
	return true
}

func (l *sniffListener) untrack(c net.Conn) {
	l.mu.Lock()
	delete(l.pending, c)
	l.mu.Unlock()
}

func (l *sniffListener) sniff(c net.Conn) {
	defer l.untrack(c)
	br := bufio.NewReaderSize(c, 16)
	c.SetReadDeadline(time.Now().Add(sniffTimeout))
	first, err := br.Peek(1)
	c.SetReadDeadline(time.Time{})
	if err != nil {
		c.Close()
		return
	}
	var conn net.Conn = &peekedConn{Conn: c, r: br}
	if first[0] == tlsRecordHandshake {
		conn = tls.Server(conn, l.tls)
	}
	select {
	case l.conns <- conn:
	case <-l.done:
		c.Close()
	}
}

// Accept returns the next sniffed connection.
func (l *sniffListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case err := <-l.errs:
		return nil, err
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close closes every listener and every connection still being sniffed.
func (l *sniffListener) Close() error {
	var first error
	l.once.Do(func() {
		close(l.done)
		for _, ln := range l.lns {
			if err := ln.Close(); err != nil && first == nil {
				first = err
			}
		}
		l.mu.Lock()
		for c := range l.pending {
			c.Close()
		}
		l.pending = nil
		l.mu.Unlock()
	})
	return first
}

// Addr is the first listener's address: the one --port names and the
// ready document gives.
func (l *sniffListener) Addr() net.Addr { return l.lns[0].Addr() }

// Addrs are every listener's addresses.
func (l *sniffListener) Addrs() []net.Addr {
	out := make([]net.Addr, len(l.lns))
	for i, ln := range l.lns {
		out[i] = ln.Addr()
	}
	return out
}

// peekedConn is a connection whose first bytes were read ahead into r.
type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *peekedConn) Read(p []byte) (int, error) { return c.r.Read(p) }
