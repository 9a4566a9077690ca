package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"time"

	"github.com/wraithdev/wraith/ipc"
)

// startTimeout bounds how long a server may take to say where it listens.
const startTimeout = 60 * time.Second

// wraithProc is a `wraith serve stripe --compat stripe-mock` of the
// runner's, on a free port. It serves until its standard input closes
// (--ready-fd's contract), so it cannot outlive the process that started
// it, whatever ends that one.
type wraithProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	Port  int
}

// startWraith starts bin serving the stripe twin in compat mode, its log
// (JSON, every request at debug) going to logFile. extra are more serve
// flags.
func startWraith(ctx context.Context, bin, logFile string, extra ...string) (*wraithProc, error) {
	log, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	defer log.Close() // the child holds its own descriptor
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer pr.Close()
	args := append([]string{"serve", "stripe", "--compat", "stripe-mock", "--port", "0",
		"--unknown-entity", "synthesize", "--ready-fd", "3",
		"--log-format", "json", "--log-level", "debug"}, extra...)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.ExtraFiles = []*os.File{pw}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		pw.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		pw.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	pw.Close()
	p := &wraithProc{cmd: cmd, stdin: stdin}
	ready, err := ipc.ReadLine(pr, startTimeout)
	if err != nil {
		p.Stop()
		return nil, fmt.Errorf("%s did not say it serves (%v): its log is %s", bin, err, logFile)
	}
	p.Port = ready.Serve.Port
	return p, nil
}

// Reset puts every session of the server back to its start, through the
// control plane's POST reset.
func (p *wraithProc) Reset(ctx context.Context) error {
	url := "http://127.0.0.1:" + strconv.Itoa(p.Port) + ipc.ControlPaths().Reset
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("reset the twin's sessions: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("reset the twin's sessions: POST %s answered %s: %s", url, resp.Status, b)
	}
	return nil
}

// Stop closes the server's standard input, which drains and stops it,
// and waits for it.
func (p *wraithProc) Stop() error {
	p.stdin.Close()
	err := p.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return fmt.Errorf("wraith exited with %v", err)
	}
	return err
}

// mockProc is a stripe-mock of the runner's, on free ports.
type mockProc struct {
	cmd        *exec.Cmd
	HTTPPort   int
	HTTPSPort  int
	waitResult chan error
}

// mockListening is how stripe-mock says where it listens.
var mockListening = regexp.MustCompile(`^Listening for (HTTPS?) at address: .*:(\d+)$`)

// startMock starts stripe-mock on two free ports, one for HTTP and one
// for HTTPS, and reads its ports from what it prints. What it prints
// afterwards (a line per request) is read and dropped, so it never
// blocks on a full pipe.
func startMock(ctx context.Context, bin string) (*mockProc, error) {
	cmd := exec.CommandContext(ctx, bin, "-http-port", "0", "-https-port", "0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	p := &mockProc{cmd: cmd, waitResult: make(chan error, 1)}
	ports := make(chan [2]int, 1)
	go func() {
		var got [2]int
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := mockListening.FindStringSubmatch(sc.Text()); m != nil {
				n, _ := strconv.Atoi(m[2])
				if m[1] == "HTTP" {
					got[0] = n
				} else {
					got[1] = n
				}
				if got[0] != 0 && got[1] != 0 {
					ports <- got
				}
			}
		}
		io.Copy(io.Discard, out)
		p.waitResult <- cmd.Wait()
	}()
	select {
	case got := <-ports:
		p.HTTPPort, p.HTTPSPort = got[0], got[1]
		return p, nil
	case err := <-p.waitResult:
		return nil, fmt.Errorf("%s exited before it listened: %v", bin, err)
	case <-time.After(startTimeout):
		p.Stop()
		return nil, fmt.Errorf("%s did not say where it listens within %s", bin, startTimeout)
	}
}

// Stop ends stripe-mock, which has no graceful stop of its own.
func (p *mockProc) Stop() {
	p.cmd.Process.Kill()
	<-p.waitResult
}
