//go:build unix

package server

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BenchmarkServedCreateState compares creates at 32 connections (16 per
// core on two cores) with and without --state-dir: throughput (ns/op) and
// the 99th percentile of one create's round trip (p99-ns). Durable, each
// create is answered once it is on disk; the writes of all connections
// share each sync: writes/sync says how many, sync-us how long a group's
// write and fdatasync took on average.
func BenchmarkServedCreateState(b *testing.B) {
	for _, durable := range []bool{false, true} {
		name := "store=memory"
		if durable {
			name = "store=state-dir"
		}
		b.Run(name, func(b *testing.B) {
			args := []string{"--port", "0", "--seed", "42", "--clock", "deterministic"}
			if durable {
				args = append(args, "--state-dir", b.TempDir()) // a new folder for every round of b.N
			}
			srv := startServer(b, "checkout", args...)
			reqs := createRequests(64)
			benchServed(b, srv.Addr().String(), 16, true, func(i int) []byte { return reqs[i%len(reqs)] })
			if durable {
				st := srv.state.store.Stats()
				b.ReportMetric(float64(st.Records)/float64(max(st.Commits, 1)), "writes/sync")
				b.ReportMetric(float64(st.Gathering.Microseconds())/float64(max(st.Commits, 1)), "gather-us")
				b.ReportMetric(float64(st.Syncing.Microseconds())/float64(max(st.Commits, 1)), "sync-us")
			}
		})
	}
}

func createRequests(sessions int) [][]byte {
	reqs := make([][]byte, sessions)
	for i := range reqs {
		reqs[i] = fmt.Appendf(nil, "POST /v1/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Wraith-Session: b-%d\r\n"+
			"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n%s", i, len(benchForm), benchForm)
	}
	return reqs
}

// BenchmarkRecover opens a twin on a state folder holding 100,000
// customers created over 256 sessions (made once, over HTTP, then the
// twin stopped), and reports the time from Open to serving (recover-ms,
// with the twin's own load, which open-ms measures alone, without the
// folder), the CPU time that took (recover-cpu-ms, user and system, all
// cores: on a shared machine it moves far less than the wall time) and
// the folder's size per entity (B/entity).
func BenchmarkRecover(b *testing.B) {
	const sessions, entities = 256, 100_000
	dir := b.TempDir()
	fill := func() {
		srv := startStopped(b, "checkout", "--port", "0", "--state-dir", dir)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- srv.Run(ctx) }()
		reqs := createRequests(sessions)
		var wg sync.WaitGroup
		per := entities / 32
		for c := range 32 {
			wg.Go(func() { sendAll(b, srv.Addr().String(), reqs, c, per) })
		}
		wg.Wait()
		cancel()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
	fill()
	size := folderBytes(b, dir)
	var open, recover, cpu time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		plain := startStopped(b, "checkout", "--port", "0")
		t1 := time.Now()
		plain.state.close()
		plain.ln.Close()
		c1 := cpuTime(b)
		srv := startStopped(b, "checkout", "--port", "0", "--state-dir", dir)
		t2 := time.Now()
		cpu += cpuTime(b) - c1
		if n := srv.Recovered(); n != sessions {
			b.Fatalf("want %d sessions recovered, have %d", sessions, n)
		}
		srv.state.close()
		srv.ln.Close()
		open += t1.Sub(t0)
		recover += t2.Sub(t1)
	}
	b.ReportMetric(float64(open.Milliseconds())/float64(b.N), "open-ms")
	b.ReportMetric(float64(recover.Milliseconds())/float64(b.N), "recover-ms")
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "recover-cpu-ms")
	b.ReportMetric(float64(size)/entities, "B/entity")
}

// cpuTime is the process's user and system time so far.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// startStopped opens a server without running it.
func startStopped(tb testing.TB, twin string, args ...string) *Server {
	tb.Helper()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	cfg := Flags(fs)
	if err := fs.Parse(args); err != nil {
		tb.Fatal(err)
	}
	cfg.Twin = twin
	wd, _ := os.Getwd()
	srv, err := Open(*cfg, Deps{Getenv: func(string) string { return "" }, Dir: filepath.Join(wd, "..", ".."), Version: "test", Now: func() time.Time { return frozen }})
	if err != nil {
		tb.Fatal(err)
	}
	return srv
}

func folderBytes(tb testing.TB, dir string) int64 {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var n int64
	for _, e := range entries {
		if fi, err := e.Info(); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// sendAll sends n of reqs over one keep-alive connection, the c-th of 32,
// spreading them over every request's session.
func sendAll(tb testing.TB, addr string, reqs [][]byte, c, n int) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		tb.Error(err)
		return
	}
	defer conn.Close()
	rc := rawClient{conn: conn, r: bufio.NewReaderSize(conn, 8192)}
	for i := range n {
		if status, err := rc.roundTrip(reqs[(c+i*32)%len(reqs)]); err != nil || status != 200 {
			tb.Errorf("create %d: status %d, %v", i, status, err)
			return
		}
	}
}
