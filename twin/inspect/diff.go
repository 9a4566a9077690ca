package inspect

import (
	"encoding/json"

	"github.com/wraithdev/wraith/twin/format"
)

// Diff is what changed from twin A to twin B.
type Diff struct {
	A Side `json:"a"`
	B Side `json:"b"`
	// Same is true when the digests are equal: the twins are the same files.
	Same bool `json:"same"`
	// Manifest lists twin.toml settings outside routes and resources that
	// changed: name, provider, upstream, description, pii, fixture imports
	// and error shapes.
	Manifest  []Change     `json:"manifest"`
	Routes    RouteDiff    `json:"routes"`
	Resources ResourceDiff `json:"resources"`
	Exchanges ExchangeDiff `json:"exchanges"`
	Fixtures  FixtureDiff  `json:"fixtures"`
}

// Side names one of the two twins.
type Side struct {
	Twin   string `json:"twin"`
	Digest string `json:"digest"`
}

// Change is one field whose value differs; A or B is null when the field
// is only on one side.
type Change struct {
	Field string          `json:"field"`
	A     json.RawMessage `json:"a"`
	B     json.RawMessage `json:"b"`
}

// RouteDiff compares the compiled routes.
type RouteDiff struct {
	Added   []Route       `json:"added"`
	Removed []Route       `json:"removed"`
	Changed []RouteChange `json:"changed"`
}

// RouteChange is a route both twins answer in different ways, such as a
// plain route that became a resource route.
type RouteChange struct {
	Method   string `json:"method"`
	Template string `json:"template"`
	A        Route  `json:"a"`
	B        Route  `json:"b"`
}

// ResourceDiff compares declared resources by name.
type ResourceDiff struct {
	Added   []string         `json:"added"`
	Removed []string         `json:"removed"`
	Changed []ResourceChange `json:"changed"`
}

// ResourceChange lists the declaration fields of one resource that differ.
// Actions are compared one by one, as fields "actions.NAME".
type ResourceChange struct {
	Name    string   `json:"name"`
	Changes []Change `json:"changes"`
}

// ExchangeDiff compares recorded exchanges by recording and index.
type ExchangeDiff struct {
	Added   []ExchangeRef    `json:"added"`
	Removed []ExchangeRef    `json:"removed"`
	Changed []ExchangeChange `json:"changed"`
}

// ExchangeRef names an exchange: "<recording>/<index>", as in
// X-Wraith-Exchange, with its request line.
type ExchangeRef struct {
	Exchange string `json:"exchange"`
	Method   string `json:"method"`
	Path     string `json:"path"`
}

// ExchangeChange is an exchange on both sides whose content differs; Parts
// names what differs ("request.query", "response.body", ...). The request
// line is B's.
type ExchangeChange struct {
	ExchangeRef
	Parts []string `json:"parts"`
}

// FixtureDiff compares fixture sets by name.
type FixtureDiff struct {
	Added   []string        `json:"added"`
	Removed []string        `json:"removed"`
	Changed []FixtureChange `json:"changed"`
}

// FixtureChange compares the entities of one set by id.
type FixtureChange struct {
	Name        string   `json:"name"`
	Description *Change  `json:"description,omitempty"`
	Added       []string `json:"added"`
	Removed     []string `json:"removed"`
	Changed     []string `json:"changed"`
}

// Empty reports whether the diff found no difference it compares. Two
// twins can differ in digest and still be Empty, when only files or
// formatting outside what it compares changed.
func (d *Diff) Empty() bool {
	return len(d.Manifest) == 0 &&
		len(d.Routes.Added)+len(d.Routes.Removed)+len(d.Routes.Changed) == 0 &&
		len(d.Resources.Added)+len(d.Resources.Removed)+len(d.Resources.Changed) == 0 &&
		len(d.Exchanges.Added)+len(d.Exchanges.Removed)+len(d.Exchanges.Changed) == 0 &&
		len(d.Fixtures.Added)+len(d.Fixtures.Removed)+len(d.Fixtures.Changed) == 0
}

// Compare returns what changed from a to b. It fails when either twin's
// routes do not compile (see Inspect).
func Compare(a, b *format.Twin) (*Diff, error) {
	ra, err := compile(a)
	if err != nil {
		return nil, err
	}
	rb, err := compile(b)
	if err != nil {
		return nil, err
	}
	d := &Diff{
		A:        Side{Twin: a.Name(), Digest: a.Digest},
		B:        Side{Twin: b.Name(), Digest: b.Digest},
		Same:     a.Digest == b.Digest,
		Manifest: []Change{},
	}
	d.Manifest = manifestChanges(a.Manifest, b.Manifest)
	d.Routes = routeDiff(ra, rb)
	d.Resources = resourceDiff(a.Manifest.Resources, b.Manifest.Resources)
	d.Exchanges = exchangeDiff(a.Exchanges, b.Exchanges)
	d.Fixtures = fixtureDiff(a.Fixtures, b.Fixtures)
	return d, nil
}
