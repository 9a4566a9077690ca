package ipc

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func sample() Ready {
	return Ready{WraithVersion: "test", Serve: Serve{Twin: "checkout", URL: "http://127.0.0.1:1234", Host: "127.0.0.1", Port: 1234, SessionHeader: SessionHeader, Control: ControlPaths()}}
}

func TestWriteFileAtomicRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ready.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, sample()); err != nil {
		t.Fatal(err)
	}
	r, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if r.ReadyVersion != Version || r.Serve.Port != 1234 || r.Serve.Control.SessionReset != "/__wraith/session/{session}/reset" {
		t.Errorf("round trip: %+v", r)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("want only ready.json in the folder (no temp files left), have %d entries", len(entries))
	}
	if err := WriteFile(filepath.Join(dir, "missing", "ready.json"), sample()); err == nil || !strings.Contains(err.Error(), "does the folder exist") {
		t.Errorf("write into a missing folder: want a helpful error, have %v", err)
	}
}

func TestReadLine(t *testing.T) {
	line, _ := Marshal(sample())
	tests := []struct {
		name  string
		input string
		close bool
		want  error
		text  string
	}{
		{"one line", string(line), false, nil, ""},
		{"closed early", `{"wraith_ready`, true, ErrClosed, ""},
		{"not json", "hello\n", false, nil, "not valid JSON"},
		{"other version", `{"wraith_ready_version":9,"serve":{"url":"http://x","port":1}}` + "\n", false, nil, "version 9"},
		{"no url", `{"wraith_ready_version":1,"serve":{}}` + "\n", false, nil, "no url"},
		{"silent child", "", false, ErrTimeout, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, w := io.Pipe()
			go func() {
				w.Write([]byte(tt.input))
				if tt.close {
					w.Close()
				}
			}()
			defer w.Close()
			got, err := ReadLine(r, 200*time.Millisecond)
			switch {
			case tt.want != nil:
				if !errors.Is(err, tt.want) {
					t.Fatalf("want %v, have %v", tt.want, err)
				}
			case tt.text != "":
				if err == nil || !strings.Contains(err.Error(), tt.text) {
					t.Fatalf("want an error mentioning %q, have %v", tt.text, err)
				}
			default:
				if err != nil || got.Serve.URL != "http://127.0.0.1:1234" {
					t.Fatalf("want the document, have %+v, %v", got, err)
				}
			}
		})
	}
}
