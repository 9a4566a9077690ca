package egress

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"testing"
)

// BenchmarkEgress measures one request's round trip to a twin (here a
// plain loopback server answering a short body), directly and through
// each of the sandbox's front doors, over kept-alive connections: what
// the sandbox adds to a request. "run" is the path of wraith run's
// network namespace (the router's own listeners), which differs from it
// only in the loopback interface the program's socket is on.
func BenchmarkEgress(b *testing.B) {
	sb := newSandbox(b)
	proxyURL := startProxy(b, &Proxy{Router: sb.router, Session: "bench"})
	tl, hl := listen(b), listen(b)
	go sb.router.ServeTLS(tl, "bench")
	hs := &http.Server{Handler: sb.router.ServeHTTP("bench")}
	go hs.Serve(hl)
	b.Cleanup(func() { hs.Close() })
	pool := sb.router.CA().Pool()
	to := func(addr string) func(context.Context, string, string) (net.Conn, error) {
		return func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		}
	}
	cases := []struct {
		name string
		url  string
		tr   *http.Transport
	}{
		{"direct/http", sb.twin.URL + "/v1/customers", &http.Transport{}},
		{"proxy/http", "http://api.stripe.com/v1/customers", &http.Transport{Proxy: http.ProxyURL(proxyURL)}},
		{"proxy/https-h1", "https://api.stripe.com/v1/customers", &http.Transport{Proxy: http.ProxyURL(proxyURL), TLSClientConfig: &tls.Config{RootCAs: pool}}},
		{"proxy/https-h2", "https://api.stripe.com/v1/customers", &http.Transport{Proxy: http.ProxyURL(proxyURL), TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}},
		{"run/http", "http://api.stripe.com/v1/customers", &http.Transport{DialContext: to(hl.Addr().String())}},
		{"run/https-h1", "https://api.stripe.com/v1/customers", &http.Transport{DialContext: to(tl.Addr().String()), TLSClientConfig: &tls.Config{RootCAs: pool}}},
		{"run/https-h2", "https://api.stripe.com/v1/customers", &http.Transport{DialContext: to(tl.Addr().String()), TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			client := &http.Client{Transport: c.tr}
			defer c.tr.CloseIdleConnections()
			get(b, client, c.url) // the connection and the handshake, outside the loop
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				get(b, client, c.url)
			}
		})
	}
}

func get(b *testing.B, c *http.Client, u string) {
	resp, err := c.Get(u)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("%s: %d", u, resp.StatusCode)
	}
}

func listen(b *testing.B) net.Listener {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	return l
}
