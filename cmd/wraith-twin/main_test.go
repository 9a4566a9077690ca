package main

import (
	"os"
	"testing"

	"github.com/wraithdev/wraith/internal/testbin"
)

// bins builds wraith-twin once for every test of this package.
var bins *testbin.Set

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "wraith-twin-test-")
	if err != nil {
		panic(err)
	}
	bins = testbin.New(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
