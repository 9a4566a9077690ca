package openapi_test

import (
	"io/fs"
	"testing"

	"github.com/wraithdev/wraith/twin/embedded"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/openapi"
)

// TestGitHubRegenerates imports the pinned GitHub description again with
// the shipped overlay: the result must be the committed embedded twin
// (make twins regenerates it).
func TestGitHubRegenerates(t *testing.T) {
	spec, overlay := loadGitHubSpec(t)
	res, err := openapi.Import(spec, openapi.Options{Overlay: overlay})
	if err != nil {
		t.Fatal(err)
	}
	have, err := format.Digest(res.FS())
	if err != nil {
		t.Fatal(err)
	}
	committed, err := fs.Sub(embedded.FS(), "github")
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
		t.Fatalf("regenerated digest %s, committed %s: run `make twins` and commit twin/embedded/github", have, want)
	}
	c := res.Report.Counts
	if c.Resources != 6 || c.Stateful < 25 || c.Template < 1000 {
		t.Errorf("counts: want 6 resources, 25+ stateful and 1000+ template operations, have %+v", c)
	}
	t.Logf("github import: %+v", c)
}
