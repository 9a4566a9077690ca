package supervisor

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/wraithdev/wraith/internal/testbin"
)

// fakeBin is the fake wraith-twin, built once for the whole test binary.
var fakeBin string

func TestMain(m *testing.M) {
	switch os.Getenv("SUPERVISOR_TEST_HELPER") {
	case "1":
		os.Exit(helperMain())
	case "exiting":
		os.Exit(exitingMain()) // see down_test.go
	}
	dir, err := os.MkdirTemp("", "supervisor-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fakeBin = filepath.Join(dir, "fakechild")
	build := exec.Command("go", "build", "-o", fakeBin, "./testdata/fakechild")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build fakechild:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// helperMain runs a supervisor in a process of its own, so tests can kill
// it: SUP_BIN, SUP_DIR, SUP_CHILDREN (count), SUP_TAG (children's FAKE_TAG).
func helperMain() int {
	n, _ := strconv.Atoi(os.Getenv("SUP_CHILDREN"))
	dir := os.Getenv("SUP_DIR")
	unlock, err := Lock(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer unlock()
	var children []Child
	for i := range n {
		children = append(children, Child{Name: fmt.Sprintf("t%d", i), Twin: "checkout", Host: "127.0.0.1", Env: []string{"FAKE_TAG=" + os.Getenv("SUP_TAG")}})
	}
	sup, err := New(Config{
		Binary: os.Getenv("SUP_BIN"), Children: children, Dir: dir, StateFile: StatePath(dir),
		Logger: hclog.New(&hclog.LoggerOptions{Output: os.Stderr, Level: hclog.Debug}),
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := sup.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// testLogger logs into a buffer that is printed if the test fails.
func testLogger(tb testing.TB) (hclog.Logger, *testbin.Buffer) {
	tb.Helper()
	buf := &testbin.Buffer{}
	tb.Cleanup(func() {
		if tb.Failed() {
			tb.Logf("supervisor log:\n%s", buf.String())
		}
	})
	return hclog.New(&hclog.LoggerOptions{Output: buf, Level: hclog.Trace}), buf
}

// taggedPIDs lists the live processes whose environment has FAKE_TAG=tag.
func taggedPIDs(tb testing.TB, tag string) []int {
	tb.Helper()
	return testbin.Tagged(tb, "FAKE_TAG", tag)
}

// uniqueTag names the children of one test.
func uniqueTag(tb testing.TB) string {
	return strings.ReplaceAll(tb.Name(), "/", "_") + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
}
