package server

import "testing"

// BenchmarkServedGetStripeFixture is BenchmarkServedGet's twin for the
// imported stripe twin, which has no recordings: a read of its baseline
// fixture customer. Compare the two with benchstat; the stripe twin's
// read should be within 10% of checkout's recorded read.
func BenchmarkServedGetStripeFixture(b *testing.B) {
	srv := startServer(b, "stripe", "--port", "0", "--seed", "42", "--clock", "deterministic", "--fixture", "baseline")
	req := []byte("GET /v1/customers/cus_QXg1o8vcGmoR32 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Wraith-Session: b-0\r\n\r\n")
	benchServed(b, srv.Addr().String(), 16, false, func(int) []byte { return req })
}
