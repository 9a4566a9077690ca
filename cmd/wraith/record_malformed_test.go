package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/scrub"
)

// malformedProvider listens on 127.0.0.1:0 and answers every request with
// a line net/http would never write, holding the key the request carried.
func malformedProvider(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				tp := textproto.NewReader(bufio.NewReader(conn))
				line, err := tp.ReadLine()
				if err != nil {
					return
				}
				h, err := tp.ReadMIMEHeader()
				if err != nil {
					return
				}
				key := strings.TrimPrefix(h.Get("Authorization"), "Bearer ")
				if strings.Contains(line, "/status") {
					io.WriteString(conn, "HTTP/1.1 2"+key+" OK\r\nContent-Length: 0\r\n\r\n")
					return
				}
				io.WriteString(conn, "HTTP/1.1 200 OK\r\nX-Echo: Bearer "+key+"\v\r\nContent-Length: 0\r\n\r\n")
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// TestRecordMalformedLineKeepsKeyOut runs `wraith record` in front of a
// provider that puts the injected key into a malformed header line and a
// malformed status line: Go's transport quotes the line in its error, and
// neither the 502 the client gets nor the process's log may hold the key.
func TestRecordMalformedLineKeepsKeyOut(t *testing.T) {
	dir := t.TempDir()
	url, stderr := startRecordProcessLog(t, dir, "--upstream", malformedProvider(t), "--auth-env", "PROVIDER_KEY", "--name", "malformed")
	for _, path := range []string{"/header", "/status"} {
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want, have := http.StatusBadGateway, resp.StatusCode; want != have {
			t.Errorf("GET %s: want %d, have %d %s", path, want, have, body)
		}
		if scrub.ContainsLive(body, recordCredential) {
			t.Errorf("GET %s: the answer holds the key:\n%s", path, body)
		}
	}
	// The log line is written before the answer; wait for both to show.
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(stderr.String(), "provider unreachable") < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	log := stderr.String()
	if want, have := 2, strings.Count(log, "provider unreachable"); have < want {
		t.Fatalf("want %d provider unreachable lines, have %d:\n%s", want, have, log)
	}
	if scrub.ContainsLive([]byte(log), recordCredential) {
		t.Errorf("the log holds the key:\n%s", log)
	}
}
