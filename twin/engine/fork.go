package engine

import (
	"fmt"

	"github.com/wraithdev/wraith/twin/apierr"
	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/world"
)

// World returns the starting world of sessions provisioned with a
// qualified fixture ("" for none); a *FixtureError when there is none.
func (e *Engine) World(fixture string) (*world.World, error) {
	if fixture == "" {
		return e.worlds[""], nil
	}
	q, err := e.QualifyFixture(fixture)
	if err != nil {
		return nil, err
	}
	return e.worlds[q], nil
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
// allows, or entities of an object type that is none of the twin's
// resources.
func (e *Engine) checkSnapshot(d *session.StateDoc) error {
	if max := e.opts.MaxEntities; max > 0 {
		if len(d.Entities) > max {
			return apierr.Errorf(apierr.InvalidSnapshot, "the snapshot holds %d entities of its own, past this twin's --max-entities %d: restore it into a twin served with a larger --max-entities", len(d.Entities), max).With("limit", max)
		}
		if len(d.Idempotency) > max {
			return apierr.Errorf(apierr.InvalidSnapshot, "the snapshot remembers %d idempotency keys, past this twin's --max-entities %d: restore it into a twin served with a larger --max-entities", len(d.Idempotency), max).With("limit", max)
		}
	}
	known := make(map[string]bool, len(e.twin.Manifest.Resources))
	for _, r := range e.twin.Manifest.Resources {
		known[r.Name] = true
	}
	for i := range d.Entities {
		if obj := d.Entities[i].Object; !known[obj] {
			return apierr.New(apierr.InvalidSnapshot, fmt.Sprintf("entity %q is a %q, which is none of twin %s's resources: take the snapshot from this twin", d.Entities[i].ID, obj, e.twin.Name())).With("object", obj)
		}
	}
	return nil
}
