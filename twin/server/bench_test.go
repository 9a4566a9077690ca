package server

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// The served benchmarks drive a real server on 127.0.0.1:0 over keep-alive
// connections with a raw HTTP/1.1 client that allocates almost nothing, so
// allocs/op is close to what the whole served path (net/http, the guard,
// the engine) allocates per request.

const benchForm = "email=jenny%40example.com&name=Jenny+Rosen&description=bench&metadata[order]=42"

func BenchmarkServedGet(b *testing.B) {
	srv := startServer(b, "checkout", "--port", "0", "--seed", "42", "--clock", "deterministic")
	benchServed(b, srv.Addr().String(), 16, false, func(int) []byte { return getReq })
}

func BenchmarkServedCreate(b *testing.B) {
	srv := startServer(b, "checkout", "--port", "0", "--seed", "42", "--clock", "deterministic")
	reqs := make([][]byte, 64)
	for i := range reqs {
		reqs[i] = fmt.Appendf(nil, "POST /v1/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Wraith-Session: b-%d\r\n"+
			"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n%s", i, len(benchForm), benchForm)
	}
	benchServed(b, srv.Addr().String(), 16, false, func(i int) []byte { return reqs[i%len(reqs)] })
}

// BenchmarkServedCeiling is the yardstick of the served benchmarks: a plain
// net/http server answering the same GET with fixed bytes of the same size.
func BenchmarkServedCeiling(b *testing.B) {
	benchServed(b, startCeiling(b), 16, false, func(int) []byte { return getReq })
}

// startCeiling starts the plain net/http server of the ceiling benchmarks
// and returns its address.
func startCeiling(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	body := bytes.Repeat([]byte("x"), 562)
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})}
	go hs.Serve(ln)
	b.Cleanup(func() { hs.Close() })
	return ln.Addr().String()
}

// getReq is the GET every served read benchmark sends, in one session.
var getReq = []byte("GET /v1/customers/cus_123 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Wraith-Session: b-0\r\n\r\n")

// benchServed sends requests from b.RunParallel goroutines, perCore
// keep-alive connections per core (16 is what a loaded client keeps), and
// fails on any answer but 200. With tail it also times every round trip
// and reports the 99th percentile (p99-ns).
func benchServed(b *testing.B, addr string, perCore int, tail bool, next func(i int) []byte) {
	var mu sync.Mutex
	var all []time.Duration
	b.ReportAllocs()
	b.SetParallelism(perCore)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			b.Error(err)
			return
		}
		defer conn.Close()
		c := rawClient{conn: conn, r: bufio.NewReaderSize(conn, 8192)}
		var mine []time.Duration
		for i := 0; pb.Next(); i++ {
			var start time.Time
			if tail {
				start = time.Now()
			}
			status, err := c.roundTrip(next(i))
			if err != nil || status != 200 {
				b.Errorf("request %d: status %d, %v", i, status, err)
				return
			}
			if tail {
				mine = append(mine, time.Since(start))
			}
		}
		mu.Lock()
		all = append(all, mine...)
		mu.Unlock()
	})
	b.StopTimer()
	if len(all) > 0 {
		slices.Sort(all)
		b.ReportMetric(float64(all[len(all)*99/100].Nanoseconds()), "p99-ns")
	}
}

// rawClient speaks just enough HTTP/1.1 for the benchmarks: answers with a
// Content-Length, read into a reused buffer.
type rawClient struct {
	conn net.Conn
	r    *bufio.Reader
	body []byte
}

func (c *rawClient) roundTrip(req []byte) (int, error) {
	if _, err := c.conn.Write(req); err != nil {
		return 0, err
	}
	line, err := c.r.ReadSlice('\n')
	if err != nil {
		return 0, err
	}
	if len(line) < 12 {
		return 0, fmt.Errorf("short status line %q", line)
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, fmt.Errorf("status line %q: %w", line, err)
	}
	n := -1
	for {
		line, err = c.r.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		if len(line) <= 2 {
			break
		}
		if v, ok := bytes.CutPrefix(line, []byte("Content-Length: ")); ok {
			if n, err = strconv.Atoi(string(bytes.TrimSpace(v))); err != nil {
				return 0, err
			}
		}
	}
	if n < 0 {
		return 0, fmt.Errorf("answer without Content-Length")
	}
	if cap(c.body) < n {
		c.body = make([]byte, n)
	}
	if _, err := io.ReadFull(c.r, c.body[:n]); err != nil {
		return 0, err
	}
	return status, nil
}

// BenchmarkServedGetOneSession256 is BenchmarkServedGet at the load of an
// agent issuing many parallel reads: 128 connections per core (256 on two
// cores), every request in one session. Beside the mean it reports the
// 99th percentile latency (p99-ns), for comparison with
// BenchmarkServedCeiling256.
func BenchmarkServedGetOneSession256(b *testing.B) {
	srv := startServer(b, "checkout", "--port", "0", "--seed", "42", "--clock", "deterministic")
	benchServed(b, srv.Addr().String(), 128, true, func(int) []byte { return getReq })
}

// BenchmarkServedCeiling256 is BenchmarkServedCeiling at the load of
// BenchmarkServedGetOneSession256.
func BenchmarkServedCeiling256(b *testing.B) {
	benchServed(b, startCeiling(b), 128, true, func(int) []byte { return getReq })
}
