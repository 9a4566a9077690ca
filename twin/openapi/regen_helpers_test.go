package openapi_test

import (
	"io/fs"
	"testing"

	"github.com/wraithdev/wraith/twin/embedded"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/openapi"
)

// checkRegenerates imports spec with opts and fails unless the result is
// the embedded twin name, file for file (make twins regenerates it). It
// returns the import for the caller's own checks.
func checkRegenerates(t *testing.T, name string, spec []byte, opts openapi.Options) *openapi.Result {
	t.Helper()
	res, err := openapi.Import(spec, opts)
	if err != nil {
		t.Fatal(err)
	}
	have, err := format.Digest(res.FS())
	if err != nil {
		t.Fatal(err)
	}
	committed, err := fs.Sub(embedded.FS(), name)
	if err != nil {
		t.Fatal(err)
	}
	want, err := format.Digest(committed)
	if err != nil {
		t.Fatal(err)
	}
	if have != want {
		for _, p := range res.Paths() {
			if b, err := fs.ReadFile(committed, p); err != nil || string(b) != string(res.Files[p]) {
				t.Errorf("%s differs from the committed twin", p)
			}
		}
		t.Fatalf("regenerated digest %s, committed %s: run `make twins` and commit twin/embedded/%s", have, want, name)
	}
	return res
}
