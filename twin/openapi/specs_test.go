package openapi_test

import (
	"fmt"
	"strings"
	"testing"
)

// specMissing ends a test that needs a provider's description which is
// not there: outside CI it skips, saying why; with CI=true (CI sets it)
// it fails, since a skipped regeneration or conformance test would let a
// stale embedded twin through unnoticed.
func specMissing(tb testing.TB, getenv func(string) string, why string) {
	tb.Helper()
	if getenv("CI") == "true" {
		tb.Fatalf("%s; CI=true, so the test fails instead of skipping: run `make specs` before the tests", why)
		return // only a recording TB gets here
	}
	tb.Skip(why)
}

// endTB records how a test ended instead of ending it.
type endTB struct {
	testing.TB
	fatal, skip string
}

func (e *endTB) Helper()                      {}
func (e *endTB) Fatalf(f string, args ...any) { e.fatal = fmt.Sprintf(f, args...) }
func (e *endTB) Skip(args ...any)             { e.skip = fmt.Sprint(args...) }

// TestSpecMissing: a missing description fails the test under CI=true,
// naming make specs, and skips with the reason elsewhere.
func TestSpecMissing(t *testing.T) {
	const why = "GitHub's description is not installed: run `make specs`"
	for _, c := range []struct {
		ci        string
		wantFatal bool
	}{{"true", true}, {"", false}, {"false", false}} {
		t.Run("CI="+c.ci, func(t *testing.T) {
			e := &endTB{TB: t}
			specMissing(e, func(k string) string {
				if k == "CI" {
					return c.ci
				}
				return ""
			}, why)
			switch {
			case c.wantFatal && (e.fatal == "" || !strings.Contains(e.fatal, "make specs") || e.skip != ""):
				t.Errorf("want a failure naming make specs, have fatal %q, skip %q", e.fatal, e.skip)
			case !c.wantFatal && (e.fatal != "" || e.skip != why):
				t.Errorf("want a skip saying %q, have fatal %q, skip %q", why, e.fatal, e.skip)
			}
		})
	}
}
