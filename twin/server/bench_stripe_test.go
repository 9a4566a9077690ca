package server

import (
	"fmt"
	"testing"
)

// BenchmarkServedGetStripeFixture is BenchmarkServedGet's twin for the
// imported stripe twin, which has no recordings: a read of its baseline
// fixture customer. Compare the two with benchstat; the stripe twin's
// read should be within 10% of checkout's recorded read.
func BenchmarkServedGetStripeFixture(b *testing.B) {
	srv := startServer(b, "stripe", "--port", "0", "--seed", "42", "--clock", "deterministic", "--fixture", "baseline")
	req := []byte("GET /v1/customers/cus_QXg1o8vcGmoR32 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Wraith-Session: b-0\r\n\r\n")
	benchServed(b, srv.Addr().String(), 16, false, func(int) []byte { return req })
}

// BenchmarkServedValidation puts --validate strict and off side by side
// in one run, on the served create (a customer, as BenchmarkServedCreate
// sends it), the served item read and a list read with a query (which
// the schema checks; an item read without one is not checked), of the
// imported stripe twin and the recorded checkout twin. Compare the modes
// with
//
//	go test -run '^$' -bench BenchmarkServedValidation -benchmem -count 8 ./twin/server >v.txt
//	benchstat -col /validate v.txt
//
// Issue 22's targets: strict costs at most 10% on the create, and
// nothing measurable on the reads. On a machine whose cores other work
// shares, sec/op is mostly time spent waiting for a core; cpu-ns/op, the
// process's CPU time (server and client) per request, is the work done.
func BenchmarkServedValidation(b *testing.B) {
	twins := []struct {
		name string
		args []string
		id   string // a customer every session has
	}{
		{"stripe", []string{"--fixture", "baseline"}, "cus_QXg1o8vcGmoR32"},
		{"checkout", nil, "cus_123"},
	}
	modes := []string{"strict", "off"}
	for _, twin := range twins {
		addrs := make(map[string]string, len(modes))
		for _, mode := range modes {
			args := append([]string{"--port", "0", "--seed", "42", "--clock", "deterministic", "--validate", mode}, twin.args...)
			addrs[mode] = startServer(b, twin.name, args...).Addr().String()
		}
		creates := make([][]byte, 64)
		for i := range creates {
			creates[i] = fmt.Appendf(nil, "POST /v1/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Wraith-Session: b-%d\r\n"+
				"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n%s", i, len(benchForm), benchForm)
		}
		// The reads are of a session no create writes to, so that they
		// read the same entities however long the creates ran.
		get := fmt.Appendf(nil, "GET /v1/customers/%s HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Wraith-Session: r-0\r\n\r\n", twin.id)
		list := []byte("GET /v1/customers?limit=3 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Wraith-Session: r-0\r\n\r\n")
		ops := []struct {
			name string
			next func(int) []byte
		}{
			{"create", func(i int) []byte { return creates[i%len(creates)] }},
			{"get", func(int) []byte { return get }},
			{"list", func(int) []byte { return list }},
		}
		for _, op := range ops {
			for _, mode := range modes {
				b.Run(fmt.Sprintf("twin=%s/op=%s/validate=%s", twin.name, op.name, mode), func(b *testing.B) {
					start := cpuTime(b)
					benchServed(b, addrs[mode], 16, false, op.next)
					b.ReportMetric(float64((cpuTime(b)-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
				})
			}
		}
	}
}
