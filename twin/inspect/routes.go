package inspect

import (
	"github.com/wraithdev/wraith/twin/format"
)

// compile lists t's routes, the table format's Twin.Routes compiles and the
// engine serves, with the number of exchanges each one answers, sorted by
// template and method.
func compile(t *format.Twin) ([]Route, error) {
	table, err := t.Routes()
	if err != nil {
		return nil, err
	}
	out := make([]Route, len(table))
	for i, rt := range table {
		r := Route{Method: rt.Method, Template: rt.Path, Kind: KindPlain, Exchanges: len(rt.Exchanges)}
		switch {
		case rt.Resource != nil:
			r.Kind, r.Resource, r.Operation = KindResource, rt.Resource.Name, rt.Op.Op
			if rt.Op.Op == "action" || rt.Op.Op == "member" {
				r.Kind, r.Operation = KindAction, rt.Op.Name
			}
		case rt.Declared != nil:
			r.Origin = "declared"
		default:
			r.Origin = "recorded"
		}
		out[i] = r
	}
	sortRoutes(out)
	return out, nil
}
