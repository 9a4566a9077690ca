package main

import (
	"testing"

	"github.com/wraithdev/wraith/internal/testbin"
)

// bins builds wraith-twin once for every test of this package.
var bins *testbin.Set

func TestMain(m *testing.M) { testbin.Main(m, &bins) }
