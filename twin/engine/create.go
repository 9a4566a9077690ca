package engine

import (
	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/object"
)

// startCreate returns the object a create of r starts from: a copy of the
// skeleton. The create path replaces top-level fields and never changes a
// nested value in place (a parameter merges into a new object, a rule sets
// a copy), unless an expansion or a computed field sets a field inside a
// nested object; only then does it need a deep copy (Resource.Deep).
// Sharing the skeleton's nested values saves copying them, and encoding
// them again in save.
//
// The top-level copy reuses one that an earlier create handed back with
// endCreate: a create keeps its entity as bytes (a patch and an answer),
// never the object, so the object is garbage as soon as the create is
// done, and its room for values can serve the next one.
func (e *Engine) startCreate(r *compiled.Resource) *object.Object {
	if r.Deep {
		return r.Skeleton.Clone()
	}
	o, _ := e.spent[r.Index].Get().(*object.Object)
	return r.Skeleton.CloneTopInto(o)
}

// endCreate takes back o, which startCreate returned, once nothing refers
// to it or will: the create saved its bytes or was refused.
func (e *Engine) endCreate(r *compiled.Resource, o *object.Object) {
	if r.Deep {
		return
	}
	o.Recycle()
	e.spent[r.Index].Put(o)
}
