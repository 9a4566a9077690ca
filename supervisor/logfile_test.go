package supervisor

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestLogFileTurnsOver: writes past the limit turn the file over, keeping
// keep older files and removing the oldest; no write is split across two
// files, and one longer than the limit gets a file of its own.
func TestLogFileTurnsOver(t *testing.T) {
	for _, tc := range []struct {
		name   string
		max    int64
		keep   int
		writes []string
		// want is each file's content, path first, then path.1 ...
		want []string
	}{
		{"under the limit", 100, 2, []string{"a\n", "b\n"}, []string{"a\nb\n"}},
		{"at the limit", 4, 2, []string{"a\n", "b\n"}, []string{"a\nb\n"}},
		{"past the limit", 4, 2, []string{"a\n", "b\n", "c\n"}, []string{"c\n", "a\nb\n"}},
		{"oldest removed", 2, 2, []string{"a\n", "b\n", "c\n", "d\n"}, []string{"d\n", "c\n", "b\n"}},
		{"a long line alone", 4, 3, []string{"a\n", "long line\n", "b\n"}, []string{"b\n", "long line\n", "a\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "billing.log")
			l, err := OpenLogFile(path, tc.max, tc.keep)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.writes {
				if n, err := l.Write([]byte(w)); err != nil || n != len(w) {
					t.Fatalf("Write(%q): want %d, nil; have %d, %v", w, len(w), n, err)
				}
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			var have []string
			for i := 0; i <= tc.keep+1; i++ {
				b, err := os.ReadFile(RotatedLogPath(path, i))
				if err != nil {
					break
				}
				have = append(have, string(b))
			}
			if !slices.Equal(tc.want, have) {
				t.Errorf("want files %q, have %q", tc.want, have)
			}
		})
	}
}

// TestLogFileStartsOver: opening a log empties it and removes the turned-
// over files of an earlier run, so `wraith logs` shows this run only.
func TestLogFileStartsOver(t *testing.T) {
	path := filepath.Join(t.TempDir(), "billing.log")
	for i := 0; i <= LogKeep+1; i++ {
		if err := os.WriteFile(RotatedLogPath(path, i), []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err := OpenLogFile(path, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if want, have := []string{path}, LogFiles(path); !slices.Equal(want, have) {
		t.Errorf("want files %q, have %q", want, have)
	}
	if b, _ := os.ReadFile(path); len(b) != 0 {
		t.Errorf("want %s empty, have %q", path, b)
	}
}

// TestSupervisorLogTurnsOver: a real child's lines, through the
// supervisor with a small LogMaxBytes, are spread over NAME.log and the
// files it turned over into, none past the limit by more than one line,
// and every line is in one of them.
func TestSupervisorLogTurnsOver(t *testing.T) {
	dir, logDir := t.TempDir(), filepath.Join(t.TempDir(), "logs")
	tag := uniqueTag(t)
	const max = 200
	h := startHarness(t, Config{Children: []Child{child("billing", tag)}, Dir: dir, LogDir: logDir, LogMaxBytes: max, LogKeep: 5})
	h.waitState(t, "the child ready", func(st State) bool { return len(st.Twins) == 1 && st.Twins[0].Status == "ready" })
	h.cancel()
	if err := h.wait(t, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	files := LogFiles(LogPath(logDir, "billing"))
	if len(files) < 2 {
		t.Fatalf("want the log turned over at least once, have files %q", files)
	}
	var all strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(b), "\n")
		if len(b) > max && len(lines) > 2 { // one line and the empty rest
			t.Errorf("%s: %d bytes in %d lines, want at most %d or one line", f, len(b), len(lines)-1, max)
		}
		all.Write(b)
	}
	for _, want := range []string{"fake child starting", "a text line", "serving"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("want %q in the logs, have:\n%s", want, all.String())
		}
	}
}
