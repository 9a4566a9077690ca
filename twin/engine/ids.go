package engine

import (
	"encoding/json"
	"hash/fnv"
	"strings"

	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/session"
)

// defaultIDLen is the length of generated ids after the prefix.
const defaultIDLen = 14

// intID returns a new integer id: increasing per session, so never
// reused, with low digits from the session's generator, so that it
// depends on the seed as string ids do.
func intID(st *session.State) json.Number {
	n := st.Next("\x00id")
	h := fnv.New32a()
	h.Write([]byte(st.NewID("", 4)))
	return json64(100000000 + n*1000 + int64(h.Sum32()%1000))
}

// fillIDs sets a new entity's id (by id_kind) and, for a numbered
// resource, its key from the counter of its scope.
func (e *Engine) fillIDs(st *session.State, res *resource, scope []string, o *object.Object) {
	x := res.ext
	switch x.idKind {
	case "string":
		o.Set("id", e.scrubbed("id", st.NewID(res.idPrefix, defaultIDLen)))
	case "integer":
		o.Set("id", intID(st))
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
