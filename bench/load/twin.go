package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wraithdev/wraith/ipc"
)

// twin is a running wraith-twin child.
type twin struct {
	cmd      *exec.Cmd
	url      string
	stdin    io.WriteCloser // closing it tells the child to stop
	done     chan error     // the child's exit
	tmp      string
	stopOnce sync.Once
	stopErr  error
}

// startTwin builds (unless -bin is given) and starts wraith-twin on
// 127.0.0.1:0, and waits for its ready line on descriptor 3.
func startTwin(ctx context.Context, c config, stderr io.Writer) (*twin, error) {
	tmp, err := os.MkdirTemp("", "wraith-load-")
	if err != nil {
		return nil, err
	}
	bin := c.bin
	if bin == "" {
		bin = filepath.Join(tmp, "wraith-twin")
		if err := build(ctx, bin, stderr); err != nil {
			os.RemoveAll(tmp)
			return nil, err
		}
	}
	readyR, readyW, err := os.Pipe()
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	defer readyR.Close()
	cmd := exec.Command(bin, c.twin, "--host", "127.0.0.1", "--port", "0", "--ready-fd", "3", "--log-level", "warn")
	cmd.ExtraFiles = []*os.File{readyW}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	readyW.Close()
	t := &twin{cmd: cmd, stdin: stdin, done: make(chan error, 1), tmp: tmp}
	go func() { t.done <- cmd.Wait() }()
	ready, err := ipc.ReadLine(readyR, c.startWait)
	if err != nil {
		t.stop(stderr)
		return nil, fmt.Errorf("wraith-twin did not get ready: %w", err)
	}
	t.url = ready.Serve.URL
	return t, nil
}

// build compiles ./cmd/wraith-twin of the module this command belongs to.
func build(ctx context.Context, out string, stderr io.Writer) error {
	gomod, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("find the module (run from inside the wraith repository): %w", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	if root == "." || root == "" {
		return errors.New("not inside a Go module: run go run ./bench/load from the wraith repository")
	}
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, "./cmd/wraith-twin")
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build ./cmd/wraith-twin: %w", err)
	}
	return nil
}

// goroutines reads the twin's goroutine count from /__wraith/info, on a
// connection of its own that is closed straight after.
func (t *twin) goroutines() (int, error) {
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Get(t.url + "/__wraith/info")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var info struct {
		Goroutines *int `json:"goroutines"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&info); err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK || info.Goroutines == nil {
		return 0, fmt.Errorf("GET /__wraith/info: status %d without a goroutines field (is the twin older than this test?)", resp.StatusCode)
	}
	return *info.Goroutines, nil
}

// reset asks the twin to reset every session (POST /__wraith/reset).
func (t *twin) reset() error {
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Post(t.url+"/__wraith/reset", "application/json", strings.NewReader("{}"))
	if err != nil {
		return fmt.Errorf("POST /__wraith/reset: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("POST /__wraith/reset: status %d: %s", resp.StatusCode, b)
	}
	return nil
}

// rss reads the twin's resident memory (VmRSS, KiB) from /proc.
func (t *twin) rss() (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", t.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("/proc/%d/status has no VmRSS line", t.cmd.Process.Pid)
}

// settled waits up to d for the goroutine count to come down to limit and
// returns the last count read. Server connections end a moment after their
// clients close them, so the count is polled, not read once.
func (t *twin) settled(limit int, d time.Duration) (int, error) {
	deadline := time.Now().Add(d)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		n, err := t.goroutines()
		if err != nil || n <= limit || time.Now().After(deadline) {
			return n, err
		}
		<-tick.C
	}
}

// stop closes the child's standard input, which makes it drain and exit,
// and kills it if it has not exited within 10 s. It is safe to call twice.
func (t *twin) stop(stderr io.Writer) error {
	t.stopOnce.Do(func() {
		defer os.RemoveAll(t.tmp)
		t.stdin.Close()
		timer := time.NewTimer(10 * time.Second)
		defer timer.Stop()
		select {
		case err := <-t.done:
			if err != nil {
				t.stopErr = fmt.Errorf("wraith-twin exited with %v when asked to stop", err)
			}
		case <-timer.C:
			t.cmd.Process.Kill()
			<-t.done
			t.stopErr = errors.New("wraith-twin did not stop within 10 s of its standard input closing; killed it")
		}
	})
	return t.stopErr
}
