package engine

import (
	"strings"

	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/session"
)

// fillIDs sets a new entity's id (by id_kind) and, for a numbered
// resource, its key from the counter of its scope.
func (e *Engine) fillIDs(st *session.State, res *compiled.Resource, scope []string, o *object.Object) {
	x := res.Keys
	switch id := e.dialect.NewID(st, x.IDKind, res.IDPrefix).(type) {
	case nil:
	case string:
		o.Set("id", e.scrubbed("id", id))
	default:
		o.Set("id", id)
	}
	if x.Counter != "" {
		o.Set(x.KeyField, json64(st.Next(x.Counter+"\x00"+strings.Join(scope, "/"))))
	}
}

// finishKey returns the key text of a new entity, giving the key field
// its prefix when the request left it out.
func (e *Engine) finishKey(res *compiled.Resource, o *object.Object) string {
	x := res.Keys
	v, _ := o.Get(x.KeyField)
	key := compiled.KeyText(v)
	if key != "" && x.KeyPrefix != "" && !strings.HasPrefix(key, x.KeyPrefix) {
		key = x.KeyPrefix + key
		o.Set(x.KeyField, key)
	}
	return key
}
