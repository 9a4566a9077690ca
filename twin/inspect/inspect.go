// Package inspect describes a loaded twin — its routes, resources, fixture
// sets, recordings and recording coverage — and compares two twins.
//
// It works on *format.Twin alone. Its routes are the table the serving
// engine serves, compiled once by format's Twin.Routes
// (docs/twin-format.md): every resource's operations; then the manifest's
// [[routes]] that are not already a resource's route; then the path of
// every recorded exchange that no route matches, as a plain route of its
// own. Each exchange counts towards the route it matches, as it does when
// served.
//
// The JSON field names of Report and Diff are what `wraith inspect
// --format json` and `wraith diff --format json` print.
package inspect

import (
	"encoding/json"
	"math"
	"sort"
	"time"

	"github.com/wraithdev/wraith/twin/format"
)

// Report describes one twin.
type Report struct {
	Twin        string     `json:"twin"`
	Provider    string     `json:"provider,omitempty"`
	Upstream    string     `json:"upstream,omitempty"`
	Description string     `json:"description,omitempty"`
	Digest      string     `json:"digest"`
	RecordedAt  *time.Time `json:"recorded_at"` // null without recordings
	Coverage    Coverage   `json:"coverage"`
	Routes      []Route    `json:"routes"`
	Resources   []Resource `json:"resources"`
	// FixtureImports are the twins whose fixture sets this one can load.
	FixtureImports []string    `json:"fixture_imports"`
	Fixtures       []Fixture   `json:"fixtures"`
	Recordings     []Recording `json:"recordings"`
}

// Route kinds.
const (
	KindResource = "resource" // list, create, retrieve, update or delete of a resource
	KindAction   = "action"   // POST {item}/{action}
	KindPlain    = "plain"    // declared in [[routes]] or known from a recording
)

// Route is one route the twin answers.
type Route struct {
	Method   string `json:"method"`
	Template string `json:"template"`
	Kind     string `json:"kind"`
	// Resource and Operation say what a resource or action route does:
	// list, create, retrieve, update, delete, or the action's name.
	Resource  string `json:"resource,omitempty"`
	Operation string `json:"operation,omitempty"`
	// Origin says where a plain route comes from: "declared" in
	// twin.toml, or "recorded" (only a recording knows it).
	Origin string `json:"origin,omitempty"`
	// Exchanges is how many recorded exchanges match the route.
	Exchanges int `json:"exchanges"`
}

// Coverage is how much of the twin's surface has recordings.
type Coverage struct {
	Recorded int     `json:"recorded"` // routes with at least one exchange
	Routes   int     `json:"routes"`   // all routes
	Percent  float64 `json:"percent"`  // 100 * Recorded / Routes to one decimal; 0 without routes
}

// Resource is a declared resource, as it serves.
type Resource struct {
	Name       string   `json:"name"`
	Collection string   `json:"collection"`
	Item       string   `json:"item"`
	IDPrefix   string   `json:"id_prefix"`
	Update     []string `json:"update"`
	Delete     string   `json:"delete"` // not_found, tombstone or none
	Actions    []string `json:"actions"`
}

// Fixture is one of the twin's own fixture sets.
type Fixture struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Entities    int    `json:"entities"`
	// Objects counts the entities per "object" type.
	Objects map[string]int `json:"objects"`
}

// Recording is one recording session.
type Recording struct {
	Name      string    `json:"name"`
	Exchanges int       `json:"exchanges"`
	First     time.Time `json:"first_recorded_at"`
	Last      time.Time `json:"last_recorded_at"`
}

// Inspect describes t. It fails where the engine would refuse to serve t:
// a recorded path or a declared template that does not compile.
func Inspect(t *format.Twin) (*Report, error) {
	routes, err := compile(t)
	if err != nil {
		return nil, err
	}
	m := t.Manifest
	r := &Report{
		Twin:           m.Name,
		Provider:       m.Provider,
		Upstream:       m.Upstream,
		Description:    m.Description,
		Digest:         t.Digest,
		Routes:         routes,
		Resources:      []Resource{},
		FixtureImports: append([]string{}, m.Fixtures.Imports...),
		Fixtures:       []Fixture{},
		Recordings:     []Recording{},
	}
	if !t.RecordedAt.IsZero() {
		at := t.RecordedAt.UTC()
		r.RecordedAt = &at
	}
	for _, rt := range routes {
		if rt.Exchanges > 0 {
			r.Coverage.Recorded++
		}
	}
	r.Coverage.Routes = len(routes)
	if len(routes) > 0 {
		r.Coverage.Percent = math.Round(float64(r.Coverage.Recorded)*1000/float64(len(routes))) / 10
	}
	for _, res := range m.Resources {
		out := Resource{
			Name:       res.Name,
			Collection: res.Collection,
			Item:       res.Item,
			IDPrefix:   res.IDPrefix,
			Update:     res.UpdateMethods(),
			Delete:     res.DeleteMode(),
			Actions:    []string{},
		}
		for _, a := range res.Actions {
			out.Actions = append(out.Actions, a.Name)
		}
		r.Resources = append(r.Resources, out)
	}
	for _, name := range t.FixtureNames() {
		r.Fixtures = append(r.Fixtures, describeFixture(t.Fixtures[name]))
	}
	for _, ex := range t.Exchanges { // grouped by recording, in name order
		n := len(r.Recordings)
		if n == 0 || r.Recordings[n-1].Name != ex.Recording {
			r.Recordings = append(r.Recordings, Recording{Name: ex.Recording, First: ex.RecordedAt.UTC(), Last: ex.RecordedAt.UTC()})
			n++
		}
		rec := &r.Recordings[n-1]
		rec.Exchanges++
		if at := ex.RecordedAt.UTC(); at.Before(rec.First) {
			rec.First = at
		} else if at.After(rec.Last) {
			rec.Last = at
		}
	}
	return r, nil
}

func describeFixture(set *format.FixtureSet) Fixture {
	f := Fixture{Name: set.Name, Description: set.Description, Entities: len(set.Entities), Objects: map[string]int{}}
	for _, e := range set.Entities {
		var head struct {
			Object string `json:"object"`
		}
		json.Unmarshal(e, &head) // the loader checked every entity
		f.Objects[head.Object]++
	}
	return f
}

// sortRoutes orders routes by template, then method, as route.Router.Routes does.
func sortRoutes(routes []Route) {
	sort.Slice(routes, func(i, j int) bool {
		if routes[i].Template != routes[j].Template {
			return routes[i].Template < routes[j].Template
		}
		return routes[i].Method < routes[j].Method
	})
}
