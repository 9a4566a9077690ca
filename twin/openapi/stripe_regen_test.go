package openapi_test

import (
	"io/fs"
	"testing"

	"github.com/wraithdev/wraith/twin/embedded"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/openapi"
)

// TestStripeRegenerates imports the pinned Stripe description again with
// the shipped overlay: the result must be the committed embedded twin,
// file for file (make twins regenerates it).
func TestStripeRegenerates(t *testing.T) {
	s := loadStripeSpec(t)
	res, err := openapi.Import(s.spec, openapi.Options{Fixtures: s.fixtures, Overlay: s.overlay})
	if err != nil {
		t.Fatal(err)
	}
	have, err := format.Digest(res.FS())
	if err != nil {
		t.Fatal(err)
	}
	committed, err := fs.Sub(embedded.FS(), "stripe")
	if err != nil {
		t.Fatal(err)
	}
	want, err := format.Digest(committed)
	if err != nil {
		t.Fatal(err)
	}
	if have != want {
		for _, p := range res.Paths() {
			b, err := fs.ReadFile(committed, p)
			if err != nil || string(b) != string(res.Files[p]) {
				t.Errorf("%s differs from the committed twin", p)
			}
		}
		t.Fatalf("regenerated digest %s, committed %s: run `make twins` and commit twin/embedded/stripe", have, want)
	}
	if c := res.Report.Counts; c.Resources < 90 || c.Stateful+c.Template < 590 {
		t.Errorf("counts: want the whole API (90+ resources, 590+ operations served), have %+v", c)
	}
}
