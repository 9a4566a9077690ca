package main

import (
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wraithdev/wraith/internal/testbin"
)

// runTwin runs wraith-twin checkout with args and extra descriptors (the
// first is 3) and returns its exit code and standard error; it fails the
// test if the child is still running after 15 s.
func runTwin(tb testing.TB, extra []*os.File, args ...string) (int, string) {
	tb.Helper()
	cmd := exec.Command(bins.Path(tb, "./cmd/wraith-twin"), append([]string{"checkout", "--port", "0"}, args...)...)
	cmd.Env = testbin.Env()
	cmd.ExtraFiles = extra
	stderr := &testbin.Buffer{}
	cmd.Stderr = stderr
	// An open standard input, as a supervisor gives: end-of-file on it
	// would mean "parent gone" and stop the twin for another reason.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode(), stderr.String()
		}
		if err != nil {
			tb.Fatal(err)
		}
		return 0, stderr.String()
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		<-done
		tb.Fatalf("wraith-twin %v still ran after 15 s:\n%s", args, stderr)
		return -1, ""
	}
}

// TestReadyFDChecked: a --ready-fd that is not an open, writable
// descriptor is a usage error (exit 2) naming the flag, found before the
// twin binds; a descriptor whose reader went away stops the twin (exit 1).
func TestReadyFDChecked(t *testing.T) {
	t.Run("not open", func(t *testing.T) {
		code, stderr := runTwin(t, nil, "--ready-fd", "9")
		if code != 2 || !strings.Contains(stderr, "--ready-fd 9") || !strings.Contains(stderr, "not open") {
			t.Errorf("want exit 2 naming --ready-fd 9, have %d:\n%s", code, stderr)
		}
		if strings.Contains(stderr, "serving") {
			t.Errorf("the twin served before its descriptor was checked:\n%s", stderr)
		}
	})
	t.Run("read-only", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		defer w.Close()
		code, stderr := runTwin(t, []*os.File{r}, "--ready-fd", "3")
		if code != 2 || !strings.Contains(stderr, "--ready-fd 3") || !strings.Contains(stderr, "reading only") {
			t.Errorf("want exit 2 naming --ready-fd 3, have %d:\n%s", code, stderr)
		}
	})
	t.Run("reader gone", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close() // nobody will read the ready line
		defer w.Close()
		code, stderr := runTwin(t, []*os.File{w}, "--ready-fd", "3")
		if code != 1 || !strings.Contains(stderr, "--ready-fd") || !strings.Contains(stderr, "broken pipe") {
			t.Errorf("want exit 1 naming --ready-fd and the broken pipe, have %d:\n%s", code, stderr)
		}
	})
}

// TestIPv6Host runs wraith-twin on the IPv6 loopback, --host bracketed as
// in a URL, and calls it over HTTP at the URL of its ready line.
func TestIPv6Host(t *testing.T) {
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skipf("this machine has no IPv6 loopback (%v)", err)
	}
	ln.Close()
	tw := testbin.StartTwin(t, bins.Path(t, "./cmd/wraith-twin"), "checkout", "--host", "[::1]", "--port", "0")
	if want := "http://[::1]:" + strconv.Itoa(tw.Ready.Serve.Port); tw.URL != want {
		t.Fatalf("ready url: want %s, have %s", want, tw.URL)
	}
	resp, err := http.Get(tw.URL + "/__wraith/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET health over [::1]: want 200, have %d", resp.StatusCode)
	}
}
