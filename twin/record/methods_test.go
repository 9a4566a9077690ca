package record

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// rawCall writes one raw HTTP/1.1 request to the server at base and reads
// the answer.
func rawCall(t *testing.T, base, request string) (*http.Response, string) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second)) // a failure bound, not a wait
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestTraceAndConnectNeverForwarded: a TRACE would have the provider echo
// the injected key to the client; CONNECT is no request for a reverse
// proxy. Both get 405 and never reach the provider.
func TestTraceAndConnectNeverForwarded(t *testing.T) {
	var reached atomic.Int32
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		r.Write(w) // a TRACE answer: the request as received
	}))
	defer up.Close()
	const live = "sk_live_TRACEdlivekey000001"
	_, base := startRecorder(t, filepath.Join(t.TempDir(), "trace"), up.URL, testKey, Options{Credential: live})
	host := strings.TrimPrefix(base, "http://")
	for _, req := range []string{
		"TRACE /v1/customers HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n",
		"CONNECT " + host + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n",
	} {
		resp, body := rawCall(t, base, req)
		if resp.StatusCode != http.StatusMethodNotAllowed || !strings.Contains(body, "record-method-refused") {
			t.Errorf("%q: want 405 record-method-refused, have %d %s", strings.SplitN(req, "\r", 2)[0], resp.StatusCode, body)
		}
		if strings.Contains(body, live) {
			t.Errorf("%q: the client got the live key: %s", strings.SplitN(req, "\r", 2)[0], body)
		}
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the provider saw %d requests, want none", n)
	}
}

// TestUpgradePassesThrough: a provider that upgrades the connection (as
// for a WebSocket) gets its 101 to the client at once and the stream
// proxied both ways; the exchange is not recorded and says so.
func TestUpgradePassesThrough(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(5 * time.Second)) // a failure bound, not a wait
		io.WriteString(conn, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n")
		line, _ := rw.ReadString('\n') // echo one line, then hang up
		io.WriteString(conn, line)
	}))
	defer up.Close()
	_, base := startRecorder(t, filepath.Join(t.TempDir(), "upgrade"), up.URL, testKey, Options{Credential: "sk_live_UPGRADElivekey00001"})
	host := strings.TrimPrefix(base, "http://")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second)) // a failure bound, not a wait
	io.WriteString(conn, "GET /v1/stream HTTP/1.1\r\nHost: "+host+"\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("want the provider's 101, have %v", err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("want 101, have %d %s", resp.StatusCode, b)
	}
	if resp.Header.Get(NotRecordedHeader) == "" {
		t.Errorf("want %s on an upgraded exchange", NotRecordedHeader)
	}
	io.WriteString(conn, "ping\n")
	if line, err := br.ReadString('\n'); err != nil || line != "ping\n" {
		t.Errorf("want the stream proxied (ping back), have %q %v", line, err)
	}
}
