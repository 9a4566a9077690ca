package inspect

import (
	"fmt"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/route"
)

// compile lists t's routes by the engine's rules (see the package comment),
// with the number of exchanges each one answers, sorted by template and
// method.
func compile(t *format.Twin) ([]Route, error) {
	router := route.New[*Route]()
	var routes []*Route
	add := func(rt *Route, what string) error {
		if err := router.Add(rt.Method, rt.Template, rt); err != nil {
			return fmt.Errorf("twin %s: %s: %w", t.Name(), what, err)
		}
		routes = append(routes, rt)
		return nil
	}
	for _, res := range t.Manifest.Resources {
		what := "resource " + res.Name
		var ops []Route
		for _, op := range res.Operations() {
			rt := Route{Method: op.Method, Template: op.Path, Kind: KindResource, Resource: res.Name, Operation: op.Op}
			if op.Op == "action" || op.Op == "member" {
				rt.Kind, rt.Operation = KindAction, op.Name
			}
			ops = append(ops, rt)
		}
		for i := range ops {
			if err := add(&ops[i], what); err != nil {
				return nil, err
			}
		}
	}
	for _, rt := range t.Manifest.Routes {
		// A declared route that a resource route already answers adds
		// nothing, as in the engine.
		if _, ok := router.Match(rt.Method, rt.Path); ok {
			continue
		}
		r := &Route{Method: rt.Method, Template: rt.Path, Kind: KindPlain, Origin: "declared"}
		if err := add(r, "route "+rt.Method+" "+rt.Path); err != nil {
			return nil, err
		}
	}
	for _, ex := range t.Exchanges {
		m, ok := router.Match(ex.Request.Method, ex.Request.Path)
		if ok {
			m.Value.Exchanges++
			continue
		}
		r := &Route{Method: ex.Request.Method, Template: ex.Request.Path, Kind: KindPlain, Origin: "recorded", Exchanges: 1}
		if err := add(r, fmt.Sprintf("recordings/%s/%d.json", ex.Recording, ex.Index)); err != nil {
			return nil, err
		}
	}
	out := make([]Route, len(routes))
	for i, r := range routes {
		out[i] = *r
	}
	sortRoutes(out)
	return out, nil
}
