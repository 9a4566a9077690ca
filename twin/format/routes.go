package format

import (
	"fmt"

	"github.com/wraithdev/wraith/twin/route"
)

// TwinRoute is one route of a twin's route table.
type TwinRoute struct {
	Method string
	Path   string // the template, "/v1/customers/{id}"
	// Resource and Op are set for a resource's route.
	Resource *Resource
	Op       Operation
	// Declared is set for a route of twin.toml's [[routes]].
	Declared *Route
	// Exchanges are the recorded exchanges this route matches, in load
	// order.
	Exchanges []*Exchange
}

// Routes compiles t's route table, the one the engine serves and inspect
// shows: every resource's operations, then each declared route that no
// resource route already is (one a resource's parameter only matches,
// GET /v1/customers/search beside GET /v1/customers/{id}, is its own:
// static segments win), then, for each recorded request no route matches,
// a route of its exact path. Routes are in that order.
func (t *Twin) Routes() ([]*TwinRoute, error) {
	router := route.New[*TwinRoute]()
	var out []*TwinRoute
	add := func(rt *TwinRoute) error {
		if err := router.Add(rt.Method, rt.Path, rt); err != nil {
			return err
		}
		out = append(out, rt)
		return nil
	}
	for i := range t.Manifest.Resources {
		res := &t.Manifest.Resources[i]
		for _, op := range res.Operations() {
			if err := add(&TwinRoute{Method: op.Method, Path: op.Path, Resource: res, Op: op}); err != nil {
				return nil, fmt.Errorf("twin %s: resource %s: %w", t.Name(), res.Name, err)
			}
		}
	}
	for i := range t.Manifest.Routes {
		rt := &t.Manifest.Routes[i]
		if m, ok := router.Match(rt.Method, rt.Path); ok && m.Value.Path == rt.Path {
			continue
		}
		if err := add(&TwinRoute{Method: rt.Method, Path: rt.Path, Declared: rt}); err != nil {
			return nil, fmt.Errorf("twin %s: route %s %s: %w", t.Name(), rt.Method, rt.Path, err)
		}
	}
	for _, ex := range t.Exchanges {
		m, ok := router.Match(ex.Request.Method, ex.Request.Path)
		if ok {
			m.Value.Exchanges = append(m.Value.Exchanges, ex)
			continue
		}
		rt := &TwinRoute{Method: ex.Request.Method, Path: ex.Request.Path, Exchanges: []*Exchange{ex}}
		if err := add(rt); err != nil {
			return nil, fmt.Errorf("twin %s: recordings/%s/%d.json: %w", t.Name(), ex.Recording, ex.Index, err)
		}
	}
	return out, nil
}
