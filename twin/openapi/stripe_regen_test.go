package openapi_test

import (
	"testing"

	"github.com/wraithdev/wraith/twin/dialect/importers"
	"github.com/wraithdev/wraith/twin/openapi"
)

// TestStripeRegenerates imports the pinned Stripe description again with
// the shipped overlay: the result must be the committed embedded twin,
// file for file (make twins regenerates it).
func TestStripeRegenerates(t *testing.T) {
	t.Parallel()
	s := loadStripeSpec(t)
	res := checkRegenerates(t, "stripe", s.spec, openapi.Options{Dialects: importers.All(), Fixtures: s.fixtures, Overlay: s.overlay})
	if c := res.Report.Counts; c.Resources < 90 || c.Stateful+c.Template < 590 {
		t.Errorf("counts: want the whole API (90+ resources, 590+ operations served), have %+v", c)
	}
}
