package wraithtest_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/wraithdev/wraith/wraithtest"
)

// signalChildEnv makes this test binary, run again as a child by
// TestSignalsAreTheTests, serve a twin and wait for its standard input to
// close.
const signalChildEnv = "WRAITHTEST_SIGNAL_CHILD"

// TestSignalsAreTheTests: a served twin does not catch the test process's
// SIGINT. The test binary is run again as a child that serves checkout with
// wraithtest and then waits; SIGINT must end that child as it ends any Go
// program that does not ask for the signal, not stop the twin and leave the
// test running.
func TestSignalsAreTheTests(t *testing.T) {
	if os.Getenv(signalChildEnv) == "1" {
		signalChild()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSignalsAreTheTests$")
	cmd.Env = append(os.Environ(), signalChildEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "serving\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child: want the line serving, have %q (%v)", line, err)
	}
	go io.Copy(io.Discard, stdout)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		// Closing standard input lets a child that caught the signal end.
		stdin.Close()
		err = <-done
		t.Fatalf("the child still ran 10 s after SIGINT: the served twin caught the signal (then exited: %v)", err)
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("want the child killed by SIGINT, have %v", err)
	}
	ws, ok := exit.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Errorf("want the child killed by SIGINT, have %v", exit)
	}
}

// signalChild serves checkout, says so, and waits for standard input to
// close.
func signalChild() {
	srv, err := wraithtest.New("checkout")
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	defer srv.Close()
	fmt.Println("serving")
	io.Copy(io.Discard, os.Stdin)
}
