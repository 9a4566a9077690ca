package engine

import (
	"strings"

	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/session"
)

// fillIDs sets a new entity's id (by id_kind) and, for a numbered
// resource, its key from the counter of its scope.
func (e *Engine) fillIDs(st *session.State, res *resource, scope []string, o *object.Object) {
	x := res.ext
	switch id := e.dialect.NewID(st, x.idKind, res.idPrefix).(type) {
	case nil:
	case string:
		o.Set("id", e.scrubbed("id", id))
	default:
		o.Set("id", id)
	}
	if x.counter != "" {
		o.Set(x.keyField, json64(st.Next(x.counter+"\x00"+strings.Join(scope, "/"))))
	}
}

// finishKey returns the key text of a new entity, giving the key field
// its prefix when the request left it out.
func (e *Engine) finishKey(res *resource, o *object.Object) string {
	x := res.ext
	v, _ := o.Get(x.keyField)
	key := keyText(v)
	if key != "" && x.keyPrefix != "" && !strings.HasPrefix(key, x.keyPrefix) {
		key = x.keyPrefix + key
		o.Set(x.keyField, key)
	}
	return key
}
