package engine

import (
	"encoding/json"
	"strconv"

	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/object"
)

// setKey fills the key of an object synthesized for an item path: its id,
// or its key field (a number when the skeleton's is one) for keyed
// resources.
func setKey(o *object.Object, res *compiled.Resource, req *request, scrub func(string, any) any) {
	if !res.Keys.Keyed {
		o.Set("id", scrub("id", req.match.Param("id")))
		return
	}
	x := res.Keys
	v := x.KeyPrefix + req.match.Param(x.KeyParam)
	if _, isNumber := res.Skeleton.Get(x.KeyField); isNumber {
		if cur, _ := res.Skeleton.Get(x.KeyField); cur != nil {
			if _, ok := cur.(json.Number); ok {
				if n, err := strconv.ParseInt(v, 10, 64); err == nil {
					// Written anew: +7 or 007 in a path is no JSON number.
					o.Set(x.KeyField, json.Number(strconv.FormatInt(n, 10)))
					return
				}
			}
		}
	}
	o.Set(x.KeyField, scrub(x.KeyField, v))
}
