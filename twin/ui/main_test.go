package ui_test

import (
	"os"
	"testing"

	"github.com/wraithdev/wraith/internal/testbin"
)

// bins builds wraith once for this test binary: every browser test serves
// a twin with it, and a race-built link costs seconds.
var bins *testbin.Set

func TestMain(m *testing.M) { os.Exit(testbin.Run(m, &bins)) }
