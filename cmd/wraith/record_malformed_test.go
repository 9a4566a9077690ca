package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/scrub"
	"github.com/wraithdev/wraith/twin/scrub/scrubtest"
)

// malformedAnswer puts the key into a malformed status line (/status) or
// header line (anything else): lines net/http would never write.
func malformedAnswer(path, key string) string {
	if path == "/status" {
		return "HTTP/1.1 2" + key + " OK\r\nContent-Length: 0\r\n\r\n"
	}
	return "HTTP/1.1 200 OK\r\nX-Echo: Bearer " + key + "\v\r\nContent-Length: 0\r\n\r\n"
}

// TestRecordMalformedLineKeepsKeyOut runs `wraith record` in front of a
// provider that puts the injected key into a malformed header line and a
// malformed status line: Go's transport quotes the line in its error, and
// neither the 502 the client gets nor the process's log may hold the key.
func TestRecordMalformedLineKeepsKeyOut(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	url, stderr := startRecordProcessLog(t, dir, "--upstream", scrubtest.RawProvider(t, malformedAnswer), "--auth-env", "PROVIDER_KEY", "--name", "malformed")
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
