package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/world"
)

// World returns the starting world of sessions provisioned with a
// qualified fixture ("" for none); a *FixtureError when there is none.
func (e *Engine) World(fixture string) (*world.World, error) {
	if fixture == "" {
		return e.twin.World(""), nil
	}
	q, err := e.QualifyFixture(fixture)
	if err != nil {
		return nil, err
	}
	return e.twin.World(q), nil
}

// Restore recreates a session from its snapshot state under name, over
// the starting world of set's fixture. It fails with session.ErrExists
// when name is taken, a *FixtureError for an unknown fixture, a
// *ProfileError for an unknown fault profile and an *apierr.Error
// (invalid-snapshot) for state this twin would never have made.
func (e *Engine) Restore(name string, set session.Settings, d *session.StateDoc) (*session.Session, error) {
	if err := e.CheckProfile(set.FaultProfile); err != nil {
		return nil, err
	}
	w, err := e.World(set.Fixture)
	if err != nil {
		return nil, err
	}
	if err := e.checkSnapshot(d); err != nil {
		return nil, err
	}
	if set.Fixture != "" {
		set.Fixture, _ = e.QualifyFixture(set.Fixture)
	}
	return e.store.Restore(name, set, w, d)
}

// checkSnapshot refuses snapshot state that no session of this twin could
// hold: more entities or idempotency keys of its own than --max-entities
// allows, entities of an object type that is none of the twin's
// resources, or entities whose bodies are not keyed as the entity is.
func (e *Engine) checkSnapshot(d *session.StateDoc) error {
	if max := e.opts.MaxEntities; max > 0 {
		if len(d.Entities) > max {
			return apierr.Errorf(apierr.InvalidSnapshot, "entities: the snapshot holds %d entities of its own, past this twin's --max-entities %d: restore it into a twin served with a larger --max-entities", len(d.Entities), max).With("limit", max).With("path", "entities")
		}
		if len(d.Idempotency) > max {
			return apierr.Errorf(apierr.InvalidSnapshot, "idempotency: the snapshot remembers %d idempotency keys, past this twin's --max-entities %d: restore it into a twin served with a larger --max-entities", len(d.Idempotency), max).With("limit", max).With("path", "idempotency")
		}
	}
	for i := range d.Entities {
		ed := &d.Entities[i]
		res := e.twin.Resource(ed.Object)
		if res == nil {
			return apierr.New(apierr.InvalidSnapshot, fmt.Sprintf("entities[%d].object: entity %q is a %q, which is none of twin %s's resources: take the snapshot from this twin", i, ed.ID, ed.Object, e.twin.Name())).With("object", ed.Object).With("path", fmt.Sprintf("entities[%d].object", i))
		}
		if err := owns(res, ed); err != "" {
			p := fmt.Sprintf("entities[%d].body", i)
			return apierr.New(apierr.InvalidSnapshot, p+": "+err).With("path", p)
		}
	}
	return nil
}

// owns says what is wrong with ed as an entity of r, "" for nothing: its
// body must be a JSON object that names the key ed is stored under and r's
// type, as the engine's own writes and the starting worlds key them. A body
// that named another entity would be served under one address and updated
// as another; one that is no object breaks every update of it.
func owns(r *compiled.Resource, ed *session.EntityDoc) string {
	body := bytes.TrimSpace(ed.Body)
	if ed.Deleted && (len(body) == 0 || string(body) == "null") {
		return ""
	}
	o, err := object.Parse(body)
	if err != nil {
		return "want the entity as a JSON object: " + err.Error()
	}
	// The starting worlds key an entity by its id and type (see
	// observeOne, fixtureWorld); a session's change of one keeps them.
	if o.String("id") == ed.ID && o.String("object") == r.Name {
		return ""
	}
	if v, ok := o.Get("object"); (r.Keys.Typed || r.Skeleton.String("object") == r.Name) && (!ok || v != r.Name) {
		return fmt.Sprintf("the body's object is %s: want %q, the resource the entity is stored as", jsonText(v, ok), r.Name)
	}
	x := r.Keys
	if !x.Keyed || byID(x) {
		v, ok := o.Get("id")
		if keyText(v) != ed.ID {
			return fmt.Sprintf("the body's id is %s: want %q, the key the entity is stored under", jsonText(v, ok), ed.ID)
		}
		return ""
	}
	var scope []string
	if len(x.Parents) > 0 {
		scope = strings.Split(ed.Scope, "/")
	}
	if len(scope) != len(x.Parents) {
		return fmt.Sprintf("the entity's scope %q names %d parents: a %s has %d (%s)", ed.Scope, len(scope), r.Name, len(x.Parents), strings.Join(x.Parents, ", "))
	}
	v, ok := o.Get(x.KeyField)
	if addr := addressOf(r, scope, keyText(v)); addr != ed.ID {
		return fmt.Sprintf("the body's %s is %s, which in scope %q is the address %q: want the address the entity is stored under, %q", x.KeyField, jsonText(v, ok), ed.Scope, addr, ed.ID)
	}
	return ""
}

// jsonText shows a field's value in a message.
func jsonText(v any, present bool) string {
	if !present {
		return "missing"
	}
	b, err := json.Marshal(v)
	if err != nil || len(b) > 80 {
		return fmt.Sprintf("a %T", v)
	}
	return string(b)
}
