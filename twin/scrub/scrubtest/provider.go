package scrubtest

import (
	"bufio"
	"net"
	"net/textproto"
	"strings"
	"testing"
)

// RawProvider is a provider on 127.0.0.1:0 that answers every request with
// the bytes answer returns for its path and the bearer key it was sent:
// lines no net/http server would write, such as a malformed header or
// status line holding the key. It returns the provider's URL.
func RawProvider(tb testing.TB, answer func(path, key string) string) string {
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
				fields := strings.Fields(line)
				if len(fields) < 2 {
					return
				}
				key := strings.TrimPrefix(h.Get("Authorization"), "Bearer ")
				conn.Write([]byte(answer(fields[1], key)))
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}
