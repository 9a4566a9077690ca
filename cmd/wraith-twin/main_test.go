package main

import (
	"os"
	"testing"

	"github.com/wraithdev/wraith/internal/testbin"
)

// bins builds wraith-twin once for every test of this package.
var bins *testbin.Set

func TestMain(m *testing.M) { os.Exit(testbin.Run(m, &bins)) }
