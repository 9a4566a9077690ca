package server

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReadyFileLifecycle: a ready document an earlier run left is gone
// before the listener binds, and the server removes its own at exit.
func TestReadyFileLifecycle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ready.json")
	stale := []byte(`{"wraith_ready_version":1,"serve":{"url":"http://127.0.0.1:1","port":1}}` + "\n")
	if err := os.WriteFile(path, stale, 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := openWith(t, nil, nil, "--ready-json", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("after Open: want the stale ready file gone, have %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	waitFile(t, path)
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), srv.URL()) {
		t.Fatalf("ready file: want this server's URL %s, have %s", srv.URL(), b)
	}
	cancel()
	if err := <-done; err != nil {
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
	srv, err := openWith(t, nil, nil, "--ready-json", path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	waitFile(t, path)
	other := []byte("another server's document\n")
	if err := os.WriteFile(path, other, 0o644); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, other) {
		t.Errorf("want another process's ready file kept, have %q, %v", b, err)
	}
}

// TestShortHMACKeyRefused: a WRAITH_HMAC_KEY under 16 bytes is a usage
// error naming the variable and how to make a good key, as `wraith record`
// refuses it (one rule, scrub.KeyFromEnv); 16 bytes, or none, serves.
func TestShortHMACKeyRefused(t *testing.T) {
	for _, tc := range []struct {
		key    string
		refuse bool
	}{{"x", true}, {"0123456789abcde", true}, {"0123456789abcdef", false}, {"", false}} {
		srv, err := openWith(t, map[string]string{"WRAITH_HMAC_KEY": tc.key}, nil)
		if err == nil {
			srv.ln.Close()
		}
		var ue *UsageError
		refused := errors.As(err, &ue) && strings.Contains(err.Error(), "WRAITH_HMAC_KEY is") && strings.Contains(err.Error(), "openssl rand")
		if refused != tc.refuse || !tc.refuse && err != nil {
			t.Errorf("key of %d bytes: want refused %v, have %v", len(tc.key), tc.refuse, err)
		}
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
