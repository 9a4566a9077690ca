package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/ipc"
)

// TestMain lets the test binary stand in for both programs exec-wrap
// starts: run as `serve ...` it is a fake wraith (it says where it
// listens on --ready-fd 3, answers every request with its own port, and
// stops when its standard input closes); run as `fake-test CODE` it is a
// fake test binary, which asks STRIPE_MOCK_PORT's server and exits CODE.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "serve":
			os.Exit(fakeWraith())
		case "fake-test":
			os.Exit(fakeTest(os.Args[2], os.Args[3:]))
		}
	}
	os.Exit(m.Run())
}

func fakeWraith() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	port := ln.Addr().(*net.TCPAddr).Port
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "served by the fake wraith on %d", port)
	}))
	fmt.Println(`{"@level":"debug","@message":"request","@module":"wraith.request","@timestamp":"2026-12-02T03:00:00Z","method":"GET","path":"/v1/x","route":"GET /v1/x","session":"default","status":200,"provenance":"template"}`)
	ready := os.NewFile(3, "ready")
	if err := ipc.Write(ready, ipc.Ready{Serve: ipc.Serve{URL: "http://127.0.0.1:" + strconv.Itoa(port), Port: port}}); err != nil {
		return 1
	}
	ready.Close()
	io.Copy(io.Discard, os.Stdin) // --ready-fd's contract: stop when stdin closes
	return 0
}

// fakeTest lists two tests, TestFake and TestOther; run, each asks the
// server and prints go test's lines, TestFake exiting code.
func fakeTest(code string, args []string) int {
	name := ""
	for _, a := range args {
		if a == "-test.list" {
			fmt.Println("TestFake\nTestOther")
			return 0
		}
		if rest, ok := strings.CutPrefix(a, "-test.run="); ok {
			name = strings.Trim(rest, "^$")
		}
	}
	resp, err := http.Get("http://127.0.0.1:" + os.Getenv("STRIPE_MOCK_PORT") + "/")
	if err != nil {
		fmt.Println("no server:", err)
		return 99
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Printf("=== RUN   %s\n%s port %s\n--- PASS: %s (0.00s)\n", name, b, os.Getenv("STRIPE_MOCK_PORT"), name)
	if name == "TestFake" {
		n, _ := strconv.Atoi(code)
		return n
	}
	return 0
}

// TestExecWrap runs exec-wrap as go test -exec does, with the test binary
// as both the wraith and the test binary: each listed test runs once, in
// a process of its own, against the one wraith exec-wrap started for the
// binary (STRIPE_MOCK_PORT); the first failing exit code is exec-wrap's;
// the wraith's log and the marks of when each test ran land under the
// package's name.
func TestExecWrap(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	pkg := filepath.Join(root, "testhelpers", "issuing")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(pkg)
	logs := t.TempDir()
	for _, want := range []int{0, 3} {
		var stdout, stderr bytes.Buffer
		have, err := execWrap(context.Background(), []string{"-wraith", self, "-logs", logs, "-root", root,
			self, "fake-test", strconv.Itoa(want)}, &stdout, &stderr)
		if err != nil {
			t.Fatalf("execWrap: %v (stderr %s)", err, stderr.String())
		}
		if want != have {
			t.Errorf("exit code: want %d, have %d", want, have)
		}
		out := stdout.String()
		for _, name := range []string{"TestFake", "TestOther"} {
			if !strings.Contains(out, "=== RUN   "+name+"\nserved by the fake wraith on ") {
				t.Errorf("%s: want it run, once, against the wraith started for it on STRIPE_MOCK_PORT; have %q", name, out)
			}
		}
		if ports := regexp.MustCompile(`on (\d+) port (\d+)`).FindAllStringSubmatch(out, -1); len(ports) != 2 || ports[0][1] != ports[0][2] || ports[0][1] != ports[1][1] {
			t.Errorf("want both tests served by the one wraith of the binary, on STRIPE_MOCK_PORT; have %q", out)
		}
	}
	m, err := os.Open(filepath.Join(logs, "testhelpers.issuing.marks"))
	if err != nil {
		t.Fatalf("the test marks under the package's name: %v", err)
	}
	defer m.Close()
	marks := readMarks(m)
	var order []string
	for i, m := range marks {
		order = append(order, m.kind+" "+m.name)
		if i > 0 && m.at.Before(marks[i-1].at) {
			t.Errorf("marks: want them in time order, have %+v", marks)
		}
	}
	if want, have := "run TestFake,end TestFake,run TestOther,end TestOther", strings.Join(order, ","); want != have {
		t.Errorf("marks of the last run: want %s, have %s", want, have)
	}
	f, err := os.Open(filepath.Join(logs, "testhelpers.issuing.log"))
	if err != nil {
		t.Fatalf("the wraith's log under the package's name: %v", err)
	}
	defer f.Close()
	reqs, err := readRequests(f)
	if err != nil || len(reqs) != 1 || reqs[0].Path != "/v1/x" {
		t.Errorf("requests of the log: want the one GET /v1/x, have %+v (%v)", reqs, err)
	}
}

// TestExecWrapUsage: exec-wrap without its flags is a usage error.
func TestExecWrapUsage(t *testing.T) {
	_, err := execWrap(context.Background(), []string{"some.test"}, io.Discard, io.Discard)
	if _, ok := err.(usageError); !ok {
		t.Errorf("want a usage error, have %v", err)
	}
}
