package serve

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wraithdev/wraith/twin/ui"
)

// TestReadyFileLifecycle: a ready document an earlier run left is gone
// before the listener binds, and the server removes its own at exit.
func TestReadyFileLifecycle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ready.json")
	stale := []byte(`{"wraith_ready_version":1,"serve":{"url":"http://127.0.0.1:1","port":1}}` + "\n")
	if err := os.WriteFile(path, stale, 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := openTwin(t, nil, "checkout", "--ready-json", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("after Open: want the stale ready file gone, have %v", err)
	}
	stop := start(t, srv)
	waitFile(t, path)
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), srv.URL()) {
		t.Fatalf("ready file: want this server's URL %s, have %s", srv.URL(), b)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("after Run: want the server's own ready file removed, have %v", err)
	}
}

// TestReadyFileKeptWhenReplaced: a ready file another process wrote over
// ours is not removed at exit.
func TestReadyFileKeptWhenReplaced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ready.json")
	srv, err := openTwin(t, nil, "checkout", "--ready-json", path)
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, srv)
	waitFile(t, path)
	other := []byte("another server's document\n")
	if err := os.WriteFile(path, other, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, other) {
		t.Errorf("want another process's ready file kept, have %q, %v", b, err)
	}
}

// TestReadyWriteFailureIsFatal: a ready descriptor nobody reads (a real
// pipe whose read end is closed) stops the twin with a message naming the
// flag.
func TestReadyWriteFailureIsFatal(t *testing.T) {
	r, fd := readyPipe(t)
	r.Close()
	srv, err := openTwin(t, nil, "checkout", "--ready-fd", strconv.Itoa(fd))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Run(t.Context()) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "--ready-fd") || !strings.Contains(err.Error(), "broken pipe") {
			t.Errorf("want an error naming --ready-fd and the cause, have %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a twin whose ready line could not be written kept serving")
	}
}

// TestReadySessionSources checks the ready document names every source.
func TestReadySessionSources(t *testing.T) {
	doc := openServed(t, nil, "checkout").doc(t)
	if want, have := []string{"header", "path", "credential"}, doc.Serve.SessionSources; !slices.Equal(want, have) {
		t.Errorf("session_sources: want %v, have %v", want, have)
	}
}

// TestViewerIsListed: the ready document names the viewer with the other
// control paths, and the twin serves it there.
func TestViewerIsListed(t *testing.T) {
	doc := openServed(t, nil, "checkout").doc(t)
	if have := doc.Serve.Control.UI; have != ui.Path {
		t.Errorf("ready JSON control.ui: want %q, have %q", ui.Path, have)
	}
	resp, err := http.Get(doc.Serve.URL + doc.Serve.Control.UI)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET control.ui: want 200, have %d", resp.StatusCode)
	}
}

// TestReadyTokenNeverLeaks: a twin whose control plane takes a token says
// bearer in its ready document and never holds the token there.
func TestReadyTokenNeverLeaks(t *testing.T) {
	s := openServed(t, map[string]string{"WRAITH_CONTROL_TOKEN": testToken}, "checkout", "--control-token-env", "WRAITH_CONTROL_TOKEN")
	doc := s.line(t)
	if strings.Contains(string(doc), testToken) || !strings.Contains(string(doc), `"control_auth":"bearer"`) {
		t.Errorf("ready JSON must say bearer and never hold the token: %s", doc)
	}
}

// waitFile waits, with a deadline, for path to exist.
func waitFile(tb testing.TB, path string) {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%s did not appear within 10s", path)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
