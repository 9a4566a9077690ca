package egress

import (
	"net"
	"sync"
)

// connListener is a net.Listener fed by hand: the terminating server
// accepts from it the connections the front doors hand over.
type connListener struct {
	ch     chan net.Conn
	done   chan struct{}
	closer sync.Once
}

func newConnListener() *connListener {
	return &connListener{ch: make(chan net.Conn), done: make(chan struct{})}
}

// push hands c over; false once the listener is closed.
func (l *connListener) push(c net.Conn) bool {
	select {
	case l.ch <- c:
		return true
	case <-l.done:
		return false
	}
}

func (l *connListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *connListener) Close() error {
	l.closer.Do(func() { close(l.done) })
	return nil
}

func (l *connListener) Addr() net.Addr { return sandboxAddr{} }

type sandboxAddr struct{}

func (sandboxAddr) Network() string { return "sandbox" }
func (sandboxAddr) String() string  { return "sandbox" }
