package server

import (
	"fmt"
	"os"
	"testing"

	"github.com/wraithdev/wraith/internal/testbin"
)

// bins builds wraith-twin once for this test binary: the tests that cross
// a process boundary share it, and a race-built link costs seconds.
var bins *testbin.Set

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "wraith-server-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bins = testbin.New(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
