package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/wraithdev/wraith/internal/procfs"
)

// spec says how to start one server and how to know it is ready.
type spec struct {
	name  string
	argv  []string
	env   []string
	dir   string
	url   string // base URL when known before start; else read from readyFile
	ready string // ready JSON file that the server writes, if it writes one
	probe probe  // the request whose first success counts as "answering"
}

// probe is one HTTP request with the headers every load sends.
type probe struct {
	method, path string
	header       map[string]string
}

// proc is a started server. Its process group is its pid, so stop reaches
// whatever the server itself started (a JVM's or node's helpers).
type proc struct {
	name   string
	cmd    *exec.Cmd
	pid    int
	url    string
	log    *os.File
	exited chan struct{}
	err    error
}

// startup is what starting a server measured.
type startup struct {
	Ready  time.Duration // exec → ready JSON on disk (0 if the server writes none)
	Answer time.Duration // exec → first 2xx answer to the probe
	Body   []byte        // that first answer's body
}

// start execs s, waits (polling every millisecond) for its ready file and
// then for the first 2xx answer to its probe, and returns the running
// process. On any failure the process is already stopped.
func start(ctx context.Context, s spec, logPath string, timeout time.Duration) (*proc, startup, error) {
	var st startup
	if s.ready != "" {
		os.Remove(s.ready)
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, st, err
	}
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Env = append(os.Environ(), s.env...)
	cmd.Dir = s.dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, st, fmt.Errorf("start %s: %w", s.name, err)
	}
	p := &proc{name: s.name, cmd: cmd, pid: cmd.Process.Pid, url: s.url, log: logf, exited: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.exited) }()
	fail := func(err error) (*proc, startup, error) {
		p.stop()
		return nil, st, fmt.Errorf("%s: %w%s", s.name, err, tail(logPath))
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for {
		select {
		case <-ctx.Done():
			return fail(ctx.Err())
		case <-p.exited:
			return fail(fmt.Errorf("exited before it was ready: %v", p.err))
		case <-deadline.C:
			return fail(fmt.Errorf("not ready %s after exec", timeout))
		case <-tick.C:
		}
		if s.ready != "" && st.Ready == 0 {
			if _, err := os.Stat(s.ready); err != nil {
				continue
			}
			st.Ready = time.Since(t0)
			if p.url == "" {
				u, err := readyURL(s.ready)
				if err != nil {
					return fail(err)
				}
				p.url = u
			}
		}
		code, body, err := do(client, p.url, s.probe, nil)
		if err != nil || code/100 != 2 {
			continue
		}
		st.Answer = time.Since(t0)
		st.Body = body
		return p, st, nil
	}
}

// readyURL reads serve.url from a Wraith ready document.
func readyURL(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var doc struct {
		Serve struct {
			URL string `json:"url"`
		} `json:"serve"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || doc.Serve.URL == "" {
		return "", fmt.Errorf("ready JSON %s has no serve.url: %v", path, err)
	}
	return doc.Serve.URL, nil
}

func do(c *http.Client, base string, p probe, body []byte) (int, []byte, error) {
	x, err := fetch(c, base, p, body)
	return x.code, x.body, err
}

// answer is one server answer: status, headers and body.
type answer struct {
	code   int
	header http.Header
	body   []byte
}

// fetch sends p (with body, when not nil) and reads the whole answer.
func fetch(c *http.Client, base string, p probe, body []byte) (answer, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(p.method, base+p.path, rd)
	if err != nil {
		return answer{}, err
	}
	for k, v := range p.header {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{code: resp.StatusCode, header: resp.Header, body: b}, err
}

// stop sends SIGTERM to the process group, waits up to 10 s, then sends
// SIGKILL. It is safe to call twice.
func (p *proc) stop() {
	if p == nil {
		return
	}
	select {
	case <-p.exited:
	default:
		syscall.Kill(-p.pid, syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
			syscall.Kill(-p.pid, syscall.SIGKILL)
			<-p.exited
		}
	}
	// Helpers left in the group (none expected) go too.
	syscall.Kill(-p.pid, syscall.SIGKILL)
	p.log.Close()
}

func (p *proc) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// cpuTicks is the process's user+system CPU time in clock ticks (all its
// threads, live and exited).
func cpuTicks(pid int) (int64, error) { return procfs.CPUTicks(pid) }

// busyTicks is the CPU time all processes on the machine spent, in clock
// ticks: every field of /proc/stat's cpu line but idle and iowait.
func busyTicks() (int64, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, fmt.Errorf("/proc/stat: unexpected first line %q", line)
	}
	var busy int64
	for i, v := range f[1:9] { // user nice system idle iowait irq softirq steal
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, err
		}
		if i != 3 && i != 4 {
			busy += n
		}
	}
	return busy, nil
}

// clockTick is USER_HZ, 100 on every Linux that this harness runs on.
const clockTick = 10 * time.Millisecond

// procStatus reads the kB and count fields of /proc/PID/status.
func procStatus(pid int) (map[string]int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	m := map[string]int64{}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
			m[k] = n
		}
	}
	return m, nil
}

// resetPeak makes VmHWM start again from the current RSS, so a peak can be
// read per load. It needs root or the process's owner.
func resetPeak(pid int) error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tail returns the last lines of a log file, for error messages.
func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 8 {
		lines = lines[len(lines)-8:]
	}
	return "\n  log " + path + ":\n    " + strings.Join(lines, "\n    ")
}
