package server

import (
	"os"
	"testing"

	"github.com/wraithdev/wraith/internal/testbin"
)

// bins builds wraith-twin once for this test binary: the tests that cross
// a process boundary share it, and a race-built link costs seconds.
var bins *testbin.Set

func TestMain(m *testing.M) { os.Exit(testbin.Run(m, &bins)) }
