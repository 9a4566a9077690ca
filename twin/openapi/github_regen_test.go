package openapi_test

import (
	"testing"

	"github.com/wraithdev/wraith/twin/dialect/importers"
	"github.com/wraithdev/wraith/twin/openapi"
)

// TestGitHubRegenerates imports the pinned GitHub description again with
// the shipped overlay: the result must be the committed embedded twin
// (make twins regenerates it).
func TestGitHubRegenerates(t *testing.T) {
	t.Parallel()
	spec, overlay := loadGitHubSpec(t)
	res := checkRegenerates(t, "github", spec, openapi.Options{Dialects: importers.All(), Overlay: overlay})
	c := res.Report.Counts
	if c.Resources != 6 || c.Stateful < 25 || c.Template < 1000 {
		t.Errorf("counts: want 6 resources, 25+ stateful and 1000+ template operations, have %+v", c)
	}
	t.Logf("github import: %+v", c)
}
