package ui_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/wraithdev/wraith/internal/testbin"
)

// bins builds wraith once for this test binary: every browser test serves
// a twin with it, and a race-built link costs seconds.
var bins *testbin.Set

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "wraith-ui-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bins = testbin.New(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
