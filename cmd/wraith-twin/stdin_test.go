package main

import (
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wraithdev/wraith/internal/testbin"
	"github.com/wraithdev/wraith/ipc"
)

// TestStdinRule: a standalone wraith-twin --ready-fd treats its standard
// input closing as "parent gone" only when it is a pipe. With /dev/null it
// serves until a signal; with a pipe that closes it stops by itself.
func TestStdinRule(t *testing.T) {
	for _, tc := range []struct {
		name      string
		pipe      bool
		wantAlive bool
	}{{"dev null", false, true}, {"pipe closed", true, false}} {
		t.Run(tc.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			cmd := exec.Command(bins.Path(t, "./cmd/wraith-twin"), "checkout", "--port", "0", "--ready-fd", "3")
			cmd.Env = testbin.Env()
			cmd.ExtraFiles = []*os.File{w}
			stderr := &testbin.Buffer{}
			cmd.Stderr = stderr
			if tc.pipe {
				in, err := cmd.StdinPipe()
				if err != nil {
					t.Fatal(err)
				}
				defer in.Close()
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				in.Close() // the "parent" goes away at once
			} else if err := cmd.Start(); err != nil { // Stdin nil: /dev/null
				t.Fatal(err)
			}
			w.Close()
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			defer func() {
				cmd.Process.Kill()
				<-done
			}()
			if !tc.wantAlive {
				select {
				case err := <-done:
					done <- err
					if !strings.Contains(stderr.String(), "parent went away") {
						t.Errorf("want the twin to say its parent went away, have:\n%s", stderr)
					}
				case <-time.After(15 * time.Second):
					t.Fatalf("a twin whose stdin pipe closed still ran after 15 s:\n%s", stderr)
				}
				return
			}
			ready, err := ipc.ReadLine(r, 15*time.Second)
			if err != nil {
				t.Fatalf("ready line: %v\n%s", err, stderr)
			}
			resp, err := http.Get(ready.Serve.URL + "/__wraith/health")
			if err != nil {
				t.Fatalf("health: %v\n%s", err, stderr)
			}
			resp.Body.Close()
			cmd.Process.Signal(syscall.SIGTERM)
			select {
			case err := <-done:
				done <- err
				if err != nil {
					t.Errorf("after SIGTERM: want exit 0, have %v\n%s", err, stderr)
				}
			case <-time.After(15 * time.Second):
				t.Fatalf("no exit 15 s after SIGTERM:\n%s", stderr)
			}
			if strings.Contains(stderr.String(), "parent went away") {
				t.Errorf("stdin on /dev/null was taken for a parent that went away:\n%s", stderr)
			}
		})
	}
}
