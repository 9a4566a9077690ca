package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wraithdev/wraith/ipc"
	"github.com/wraithdev/wraith/twin/server"
)

var update = flag.Bool("update", false, "rewrite the golden ready documents under testdata/ready")

// testToken is a control token the ready document must never carry.
const testToken = "ready-doc-token-5f1c0e9a"

// openTwin opens twin with the serve flags args through Flags and Open,
// as `wraith serve` and wraith-twin do, on 127.0.0.1:0.
func openTwin(tb testing.TB, env map[string]string, twin string, args ...string) (*server.Server, error) {
	tb.Helper()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	opts := Flags(fs)
	if err := fs.Parse(append(args, "--port", "0")); err != nil {
		tb.Fatal(err)
	}
	opts.Server.Twin = twin
	return Open(opts, Env{
		Getenv:  func(k string) string { return env[k] },
		Dir:     filepath.Join("..", ".."), // the repository root, for testdata/twins
		Version: "test",
	})
}

// start runs srv and returns the function that stops it and returns what
// Run returned. A test that does not call it has it called at its end.
func start(tb testing.TB, srv *server.Server) (stop func() error) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			err = <-done
		})
		return err
	}
	tb.Cleanup(func() {
		if err := stop(); err != nil {
			tb.Errorf("Run: %v", err)
		}
	})
	return stop
}

// readyPipe is a pipe for --ready-fd: the test reads r, and fd is a
// descriptor of the write end that the server owns, as a child owns the
// one it inherited. The server closes it after the line, and r then reads
// end-of-file.
func readyPipe(tb testing.TB) (r *os.File, fd int) {
	tb.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { r.Close() })
	fd, err = syscall.Dup(int(w.Fd()))
	if err != nil {
		tb.Fatal(err)
	}
	w.Close()
	return r, fd
}

// served is a twin serving in this test process, with its ready document
// written to a file and to a descriptor.
type served struct {
	srv  *server.Server
	file string
	fd   *os.File // the read end of the --ready-fd pipe
}

// openServed opens twin as openTwin does, asking for the ready document
// on --ready-json and on --ready-fd, and runs it until the test ends.
func openServed(tb testing.TB, env map[string]string, twin string, args ...string) *served {
	tb.Helper()
	r, fd := readyPipe(tb)
	s := &served{file: filepath.Join(tb.TempDir(), "ready.json"), fd: r}
	srv, err := openTwin(tb, env, twin, append(args, "--ready-json", s.file, "--ready-fd", strconv.Itoa(fd))...)
	if err != nil {
		tb.Fatalf("Open %s %v: %v", twin, args, err)
	}
	s.srv = srv
	start(tb, srv)
	return s
}

// doc is the ready line, decoded.
func (s *served) doc(tb testing.TB) ipc.Ready {
	tb.Helper()
	doc, err := ipc.Unmarshal(s.line(tb))
	if err != nil {
		tb.Fatal(err)
	}
	return doc
}

// line reads the ready line from the descriptor, until the server closes
// it, within a deadline.
func (s *served) line(tb testing.TB) []byte {
	tb.Helper()
	s.fd.SetReadDeadline(time.Now().Add(15 * time.Second))
	b, err := io.ReadAll(s.fd)
	if err != nil {
		tb.Fatalf("read --ready-fd: %v (have %q)", err, b)
	}
	return b
}

// volatile matches what differs from run to run: the port, the pid and
// the twin's age on the wall clock.
var volatile = regexp.MustCompile(`("port":|"pid":|"twin_age_seconds":|"url":"http://127\.0\.0\.1:)[0-9]+`)

// normalize replaces the port, the pid and the age with 0 after checking
// the port and the pid are this server's and this process's.
func normalize(tb testing.TB, b []byte, port int) []byte {
	tb.Helper()
	for _, m := range volatile.FindAllSubmatch(b, -1) {
		n, _ := strconv.Atoi(string(m[0][len(m[1]):]))
		switch string(m[1]) {
		case `"port":`, `"url":"http://127.0.0.1:`:
			if n != port {
				tb.Errorf("%s: want the bound port %d, have %d", m[1], port, n)
			}
		case `"pid":`:
			if n != os.Getpid() {
				tb.Errorf("pid: want this process's %d, have %d", os.Getpid(), n)
			}
		}
	}
	return volatile.ReplaceAll(b, []byte("${1}0"))
}

// readySettings is the settings object of a ready line, as written.
func readySettings(tb testing.TB, line []byte) []byte {
	tb.Helper()
	var doc struct {
		Serve struct {
			Settings json.RawMessage `json:"settings"`
		} `json:"serve"`
	}
	if err := json.Unmarshal(line, &doc); err != nil {
		tb.Fatalf("ready line %s: %v", line, err)
	}
	return doc.Serve.Settings
}

// infoSettings is the settings object /__wraith/info answers, as written.
func infoSettings(tb testing.TB, base string) []byte {
	tb.Helper()
	resp, err := http.Get(base + "/__wraith/info")
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var info struct {
		Settings json.RawMessage `json:"settings"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&info); err != nil || resp.StatusCode != http.StatusOK {
		tb.Fatalf("GET /__wraith/info: %d %v", resp.StatusCode, err)
	}
	return info.Settings
}

// undated is a twin with no recordings and no recorded_at: its ready
// document has an empty recorded_at and an age of 0.
func undated(tb testing.TB) string {
	tb.Helper()
	toml, err := os.ReadFile(filepath.Join("..", "..", "testdata", "twins", "minimal", "twin.toml"))
	if err != nil {
		tb.Fatal(err)
	}
	dir := filepath.Join(tb.TempDir(), "undated")
	if err := os.Mkdir(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "twin.toml"), toml, 0o644); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// TestReadyDocumentGolden: the ready document, byte for byte, as it goes
// to --ready-fd and to --ready-json, for a twin served with defaults,
// with every setting, with a control token, and with no recorded date.
// /__wraith/info reports the same settings object, byte for byte. The
// golden files were written by the server before the mains built the
// document (issue 21), so a change of a byte in the move fails here.
// -update rewrites them.
func TestReadyDocumentGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		twin string
		args []string
	}{
		{"defaults", nil, "checkout", nil},
		{"settings", nil, "checkout", []string{"--fixture", "baseline", "--seed", "42", "--clock", "deterministic",
			"--clock-epoch", "1700000000", "--clock-step", "250ms", "--unknown-entity", "not_found",
			"--fault-profile", "flaky", "--rate-limit", "10/s", "--debug", "--max-sessions", "7", "--max-entities", "9"}},
		{"token", map[string]string{"WRAITH_CONTROL_TOKEN": testToken}, "checkout", []string{"--clock", "fixed", "--control-token-env", "WRAITH_CONTROL_TOKEN"}},
		{"minimal", nil, "testdata/twins/minimal", nil},
		{"undated", nil, undated(t), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openServed(t, tc.env, tc.twin, tc.args...)
			line := s.line(t)
			file, err := os.ReadFile(s.file)
			if err != nil {
				t.Fatalf("--ready-json after the line on --ready-fd: %v", err)
			}
			if !bytes.Equal(line, file) {
				t.Errorf("--ready-fd and --ready-json differ:\nfd   %s\nfile %s", line, file)
			}
			if bytes.Contains(line, []byte(testToken)) {
				t.Errorf("the ready document holds the control token: %s", line)
			}
			if have, want := infoSettings(t, s.srv.URL()), readySettings(t, line); !bytes.Equal(have, want) {
				t.Errorf("settings: /__wraith/info and the ready document differ:\ninfo  %s\nready %s", have, want)
			}
			have := normalize(t, line, s.srv.Addr().Port)
			path := filepath.Join("testdata", "ready", tc.name+".json")
			if *update {
				if err := os.WriteFile(path, have, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to write it)", err)
			}
			if !bytes.Equal(want, have) {
				t.Errorf("ready document (port, pid and age as 0):\nwant %s\nhave %s", want, have)
			}
		})
	}
}
