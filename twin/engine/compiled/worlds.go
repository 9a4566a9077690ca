package compiled

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/world"
)

// buildWorlds builds the recorded world and one world per fixture set,
// own and imported.
func (c *compiler) buildWorlds(resources map[string]*Resource) error {
	var seq uint64
	rb := world.NewBuilder()
	for _, ex := range c.src.Exchanges {
		observe(rb, ex, resources, &seq)
	}
	base := rb.Build()
	c.out.worlds[""] = base

	sets := map[string]*format.FixtureSet{}
	for name, set := range c.src.Fixtures {
		sets[c.src.Name()+":"+name] = set
	}
	for _, imp := range c.src.Manifest.Fixtures.Imports {
		if c.opts.Import == nil {
			return fmt.Errorf("twin %s imports fixtures of %s, but no twin loader was given", c.src.Name(), imp)
		}
		it, err := c.opts.Import(imp)
		if err != nil {
			return fmt.Errorf("twin %s imports fixtures of %s: %w", c.src.Name(), imp, err)
		}
		for name, set := range it.Fixtures {
			sets[imp+":"+name] = set
		}
	}
	for _, q := range slices.Sorted(maps.Keys(sets)) {
		w, err := c.fixtureWorld(base, sets[q], resources, seq)
		if err != nil {
			return fmt.Errorf("fixture %s: %w", q, err)
		}
		c.out.worlds[q] = w
		c.out.fixtures = append(c.out.fixtures, q)
	}
	return nil
}

// observe records what an exchange shows of entities: a single object, or
// the objects of a list envelope. A successful delete removes the entity.
func observe(b *world.Builder, ex *format.Exchange, resources map[string]*Resource, seq *uint64) {
	st := ex.Response.Status
	if st < 200 || st >= 300 || len(ex.Response.Body) == 0 {
		return
	}
	exchange := ex.Recording + "/" + strconv.Itoa(ex.Index)
	var head struct {
		ID      string            `json:"id"`
		Object  string            `json:"object"`
		Deleted bool              `json:"deleted"`
		Data    []json.RawMessage `json:"data"`
	}
	if json.Unmarshal(ex.Response.Body, &head) != nil {
		return
	}
	if head.Object == "list" {
		for _, item := range head.Data {
			observeOne(b, item, exchange, resources, seq)
		}
		return
	}
	if head.Deleted || ex.Request.Method == "DELETE" {
		b.Remove(head.ID)
		return
	}
	observeOne(b, ex.Response.Body, exchange, resources, seq)
}

func observeOne(b *world.Builder, raw json.RawMessage, exchange string, resources map[string]*Resource, seq *uint64) {
	o, err := object.Parse(raw)
	if err != nil {
		return
	}
	id, typ := o.String("id"), o.String("object")
	if _, ok := resources[typ]; !ok || id == "" {
		return
	}
	*seq++
	ent := &world.Entity{
		ID:         id,
		Resource:   typ,
		Created:    CreatedOf(o),
		Seq:        *seq,
		Provenance: world.Recorded,
	}
	ent.SetPlace(exchange, "")
	ent.SetBody(o.AppendJSON(nil))
	b.Put(ent)
}

// CreatedOf is an object's created time, 0 when it has none.
func CreatedOf(o *object.Object) int64 {
	v, _ := o.Get("created")
	if n, ok := v.(json.Number); ok {
		i, _ := n.Int64()
		return i
	}
	return 0
}

// fixtureWorld overlays a fixture set on the recorded world. Entities whose
// object type this twin does not declare are skipped: an imported set
// brings only what the importing twin can serve.
func (c *compiler) fixtureWorld(base *world.World, set *format.FixtureSet, resources map[string]*Resource, seq uint64) (*world.World, error) {
	b := world.NewBuilder()
	b.From(base)
	n := 0
	for i, raw := range set.Entities {
		o, err := object.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("entities[%d]: %w", i, err)
		}
		typ := o.String("object")
		if _, ok := resources[typ]; !ok {
			continue
		}
		c.opts.Scrub(o)
		seq++
		ent := &world.Entity{
			ID:         o.String("id"),
			Resource:   typ,
			Created:    CreatedOf(o),
			Seq:        seq,
			Provenance: world.Fixture,
		}
		ent.SetBody(o.AppendJSON(nil))
		b.Put(ent)
		n++
	}
	b.Seeded(n)
	return b.Build(), nil
}

// QualifyFixture turns a fixture name as a user gives it (SET or TWIN:SET)
// into its qualified form, or returns a *FixtureError.
func (t *Twin) QualifyFixture(name string) (string, error) {
	if strings.Contains(name, ":") {
		if _, ok := t.worlds[name]; ok {
			return name, nil
		}
	} else {
		for _, tw := range t.fixtureTwins() {
			if _, ok := t.worlds[tw+":"+name]; ok {
				return tw + ":" + name, nil
			}
		}
	}
	return "", &FixtureError{Name: name, Available: t.fixtures}
}

func (t *Twin) fixtureTwins() []string {
	return append([]string{t.Name()}, t.Source.Manifest.Fixtures.Imports...)
}

// FixtureError says a fixture set does not exist.
type FixtureError struct {
	Name      string
	Available []string
}

func (f *FixtureError) Error() string {
	return fmt.Sprintf("fixture set %q not found; available: %s", f.Name, strings.Join(f.Available, ", "))
}

// Fixtures returns the qualified names of every fixture set, sorted.
func (t *Twin) Fixtures() []string { return slices.Clone(t.fixtures) }

// World returns the starting world of a qualified fixture name, "" for
// the recorded world, or nil for none.
func (t *Twin) World(qualified string) *world.World { return t.worlds[qualified] }
