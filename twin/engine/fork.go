package engine

import (
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
// when name is taken, a *FixtureError for an unknown fixture and a
// *ProfileError for an unknown fault profile.
func (e *Engine) Restore(name string, set session.Settings, d *session.StateDoc) (*session.Session, error) {
	if err := e.CheckProfile(set.FaultProfile); err != nil {
		return nil, err
	}
	w, err := e.World(set.Fixture)
	if err != nil {
		return nil, err
	}
	if set.Fixture != "" {
		set.Fixture, _ = e.QualifyFixture(set.Fixture)
	}
	return e.store.Restore(name, set, w, d)
}
