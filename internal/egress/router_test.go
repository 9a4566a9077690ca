package egress

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// The sandbox listeners of a network namespace: a name no twin serves
// fails at the connection, never with an HTTP answer.
func TestRouterListenersFailAtTheConnection(t *testing.T) {
	sb := newSandbox(t)
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	go sb.router.ServeTLS(tl, "run-7")
	hl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: sb.router.ServeHTTP("run-7")}
	go srv.Serve(hl)
	defer srv.Close()

	t.Run("a mapped name", func(t *testing.T) {
		tests := []struct {
			url, listener, alpn, proto string
		}{
			{"https://api.stripe.com/v1/customers", tl.Addr().String(), "h2", "HTTP/2.0"},
			{"https://api.stripe.com/v1/customers", tl.Addr().String(), "http/1.1", "HTTP/1.1"},
			{"http://api.stripe.com/v1/customers", hl.Addr().String(), "", "HTTP/1.1"},
		}
		for _, tt := range tests {
			c := &http.Client{Transport: &http.Transport{
				DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
					return (&net.Dialer{}).DialContext(ctx, "tcp", tt.listener)
				},
				TLSClientConfig:   &tls.Config{RootCAs: sb.router.CA().Pool(), NextProtos: []string{tt.alpn}},
				ForceAttemptHTTP2: tt.alpn == "h2",
			}}
			resp, err := c.Get(tt.url)
			if err != nil {
				t.Fatalf("%s (%s): %v", tt.url, tt.alpn, err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if want, have := "GET /v1/customers session=run-7", string(body); want != have || resp.Proto != tt.proto {
				t.Errorf("%s (%s): want %q over %s, have %q over %s", tt.url, tt.alpn, want, tt.proto, have, resp.Proto)
			}
		}
	})
	requests := sb.twin.requests()
	t.Run("TLS to an unmapped name", func(t *testing.T) {
		conn, err := tls.Dial("tcp", tl.Addr().String(), &tls.Config{ServerName: "example.com", RootCAs: sb.router.CA().Pool()})
		if err == nil {
			conn.Close()
			t.Fatal("the handshake for example.com succeeded")
		}
		ms := sb.missLines()
		if len(ms) == 0 || ms[len(ms)-1].Host != "example.com" || ms[len(ms)-1].Session != "run-7" || ms[len(ms)-1].Via != ViaTLS {
			t.Errorf("misses: want example.com in run-7 by tls, have %+v", ms)
		}
	})
	t.Run("HTTP to an unmapped name", func(t *testing.T) {
		c, err := net.Dial("tcp", hl.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n")
		_, err = http.ReadResponse(bufio.NewReader(c), nil)
		if err == nil {
			t.Fatal("an HTTP answer for example.com: want the connection closed")
		}
		if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !strings.Contains(err.Error(), "reset") {
			t.Errorf("want EOF or a reset, have %v", err)
		}
		ms := sb.missLines()
		if len(ms) == 0 || ms[len(ms)-1].Host != "example.com" || ms[len(ms)-1].Via != ViaHTTP {
			t.Errorf("misses: want example.com by http, have %+v", ms)
		}
	})
	if n := sb.twin.requests() - requests; n != 0 {
		t.Errorf("the twin received %d requests for unmapped names", n)
	}
}
