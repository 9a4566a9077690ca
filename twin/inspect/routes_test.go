package inspect_test

import (
	"io/fs"
	"testing"

	"github.com/wraithdev/wraith/twin/embedded"
	"github.com/wraithdev/wraith/twin/engine"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/inspect"
	"github.com/wraithdev/wraith/twin/scrub"
)

// TestRoutesAsServed: inspect shows the routes the engine serves. The
// stripe and github twins declare routes a resource's parameter also
// matches (GET /v1/customers/search beside /v1/customers/{id}); the
// engine serves them, so inspect counts them.
func TestRoutesAsServed(t *testing.T) {
	load := func(name string) (*format.Twin, error) {
		sub, err := fs.Sub(embedded.FS(), name)
		if err != nil {
			return nil, err
		}
		return format.Load(sub, name)
	}
	for _, name := range []string{"checkout", "billing", "stripe", "github"} {
		t.Run(name, func(t *testing.T) {
			tw, err := load(name)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := inspect.Inspect(tw)
			if err != nil {
				t.Fatal(err)
			}
			e, err := engine.New(tw, engine.Options{Scrubber: scrub.New([]byte("test"), scrub.Policy{}), Import: load})
			if err != nil {
				t.Fatal(err)
			}
			if want, have := e.Info().Routes, rep.Coverage.Routes; want != have {
				t.Errorf("routes: the engine serves %d, inspect shows %d", want, have)
			}
		})
	}
}
