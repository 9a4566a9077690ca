package engine

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/world"
)

// buildWorlds builds the recorded world and one world per fixture set,
// own and imported.
func (e *Engine) buildWorlds(resources map[string]*Resource) error {
	var seq uint64
	rb := world.NewBuilder()
	for _, ex := range e.twin.Exchanges {
		observe(rb, ex, resources, &seq)
	}
	base := rb.Build()
	e.worlds[""] = base

	sets := map[string]*format.FixtureSet{}
	for name, set := range e.twin.Fixtures {
		sets[e.twin.Name()+":"+name] = set
	}
	for _, imp := range e.twin.Manifest.Fixtures.Imports {
		if e.opts.Import == nil {
			return fmt.Errorf("twin %s imports fixtures of %s, but no twin loader was given", e.twin.Name(), imp)
		}
		it, err := e.opts.Import(imp)
		if err != nil {
			return fmt.Errorf("twin %s imports fixtures of %s: %w", e.twin.Name(), imp, err)
		}
		for name, set := range it.Fixtures {
			sets[imp+":"+name] = set
		}
	}
	for _, q := range slices.Sorted(maps.Keys(sets)) {
		w, err := e.fixtureWorld(base, sets[q], resources, seq)
		if err != nil {
			return fmt.Errorf("fixture %s: %w", q, err)
		}
		e.worlds[q] = w
		e.fixtures = append(e.fixtures, q)
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
		Exchange:   exchange,
	}
	ent.SetBody(o.AppendJSON(nil))
	b.Put(ent)
}

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
func (e *Engine) fixtureWorld(base *world.World, set *format.FixtureSet, resources map[string]*Resource, seq uint64) (*world.World, error) {
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
		e.scrubObject(o)
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
