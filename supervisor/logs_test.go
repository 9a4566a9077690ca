package supervisor

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/wraithdev/wraith/internal/testbin"
)

func TestParseLine(t *testing.T) {
	tests := []struct {
		name      string
		line      string
		wantLevel hclog.Level
		wantMsg   string
		wantArgs  []any
	}{
		{"hclog json", `{"@level":"warn","@message":"slow fixture","@module":"wraith-twin","@timestamp":"2024-01-01T00:00:00.000000Z","ms":12,"fixture":"baseline"}`,
			hclog.Warn, "slow fixture", []any{"fixture", "baseline", "module", "wraith-twin", "ms", json.Number("12")}},
		{"json error", `{"@level":"error","@message":"boom"}`, hclog.Error, "boom", []any{}},
		{"json trace", `{"@level":"trace","@message":"t"}`, hclog.Trace, "t", []any{}},
		{"json without level", `{"@message":"hi"}`, hclog.Info, "hi", []any{}},
		{"json but not hclog", `{"a":1}`, hclog.Info, `{"a":1}`, nil},
		{"two json values", `{"@message":"a"} {"@message":"b"}`, hclog.Info, `{"@message":"a"} {"@message":"b"}`, nil},
		{"hclog text", `2024-01-01T00:00:00.000Z [DEBUG] wraith-twin: matched: route=/v1`, hclog.Debug, "wraith-twin: matched: route=/v1", nil},
		{"bracket marker", `[ERROR] bad`, hclog.Error, "bad", nil},
		{"panic", `panic: runtime error: index out of range`, hclog.Error, "panic: runtime error: index out of range", nil},
		{"fatal", `fatal error: concurrent map writes`, hclog.Error, "fatal error: concurrent map writes", nil},
		{"twin usage error", `wraith-twin: --ready-fd 9: descriptor 9 is not open`, hclog.Error, "wraith-twin: --ready-fd 9: descriptor 9 is not open", nil},
		{"plain", `goroutine 1 [running]:`, hclog.Info, "goroutine 1 [running]:", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			level, msg, args := parseLine([]byte(tt.line))
			if level != tt.wantLevel || msg != tt.wantMsg || !reflect.DeepEqual(args, tt.wantArgs) {
				t.Errorf("want %v %q %v\nhave %v %q %v", tt.wantLevel, tt.wantMsg, tt.wantArgs, level, msg, args)
			}
		})
	}
}

// TestForwarder feeds a real pipe and checks what reaches the parent's
// logger: levels, names, joined long lines, truncation, and the tail.
func TestForwarder(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	buf := &testbin.Buffer{}
	logger := hclog.New(&hclog.LoggerOptions{Output: buf, Level: hclog.Trace, JSONFormat: true}).Named("billing")
	f := newForwarder(logger, r)
	go f.run()

	long := strings.Repeat("a", 3*readBuffer)
	huge := strings.Repeat("b", maxLogLine+10)
	fmt.Fprintln(w, `{"@level":"debug","@message":"hello","n":1}`)
	fmt.Fprintln(w, long)
	fmt.Fprintln(w, huge)
	fmt.Fprintln(w, "")
	for i := range tailLines + 5 {
		fmt.Fprintf(w, "line %d\n", i)
	}
	fmt.Fprint(w, "no newline at the end")
	w.Close()
	f.wait(5 * time.Second)

	var entries []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("parent log line is not JSON: %q", l)
		}
		entries = append(entries, m)
	}
	if want := 3 + tailLines + 5 + 1; len(entries) != want {
		t.Fatalf("want %d log entries, have %d", want, len(entries))
	}
	first := entries[0]
	if first["@level"] != "debug" || first["@message"] != "hello" || first["@module"] != "billing" || first["n"] != float64(1) {
		t.Errorf("first entry: %v", first)
	}
	if entries[1]["@message"] != long {
		t.Errorf("long line not joined: %d bytes", len(entries[1]["@message"].(string)))
	}
	if msg := entries[2]["@message"].(string); len(msg) != maxLogLine || entries[2]["truncated"] != true {
		t.Errorf("huge line: %d bytes, truncated=%v", len(msg), entries[2]["truncated"])
	}
	tail := f.tail()
	if len(tail) != tailLines || tail[len(tail)-1] != "[INFO] no newline at the end" || tail[0] != "[INFO] line 6" {
		t.Errorf("tail: %q", tail)
	}
}

func TestFindBinary(t *testing.T) {
	dir := t.TempDir()
	exe := dir + "/bin/wraith"
	beside := dir + "/bin/wraith-twin"
	onPath := dir + "/path/wraith-twin"
	fromEnv := dir + "/env/wraith-twin"
	for _, p := range []string{beside, onPath, fromEnv} {
		os.MkdirAll(p[:strings.LastIndex(p, "/")], 0o755)
		os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755)
	}
	found := func(p string) func(string) (string, error) {
		return func(string) (string, error) { return p, nil }
	}
	missing := func(string) (string, error) { return "", os.ErrNotExist }
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == BinaryEnv {
				return v
			}
			return ""
		}
	}
	tests := []struct {
		name     string
		exe      string
		lookPath func(string) (string, error)
		getenv   func(string) string
		want     string
		wantErr  string
	}{
		{"beside wins", exe, found(onPath), env(fromEnv), beside, ""},
		{"then PATH", dir + "/other/wraith", found(onPath), env(fromEnv), onPath, ""},
		{"then env", dir + "/other/wraith", missing, env(fromEnv), fromEnv, ""},
		{"env not executable", dir + "/other/wraith", missing, env(dir + "/nope"), "", "WRAITH_TWIN_BIN=" + dir + "/nope (not an executable file)"},
		{"nothing", dir + "/other/wraith", missing, env(""), "", "looked beside wraith (" + dir + "/other/wraith-twin), on PATH, WRAITH_TWIN_BIN (unset)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			have, err := FindBinary(tt.exe, tt.lookPath, tt.getenv)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("want error with %q, have %v", tt.wantErr, err)
				}
				return
			}
			if err != nil || have != tt.want {
				t.Fatalf("want %s, have %s (%v)", tt.want, have, err)
			}
		})
	}
}
