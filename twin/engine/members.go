package engine

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/world"
)

// addMembers answers POST {item}/{member}: it adds entities of the member
// resource, named by key, to an array field of the item, creating in the
// item's scope those that do not exist yet (as a label added to an issue
// is created in its repository), and answers the field's new value.
func (e *Engine) addMembers(st *session.State, req *request, a *answer) {
	ep := req.match.Value
	res, mem := ep.Resource, ep.Member
	keys, ok := e.memberKeys(req, mem, a)
	if !ok {
		return
	}
	o, ent, ok := e.current(st, req, a)
	if !ok {
		return
	}
	mr := mem.Resource
	mx := mr.Keys
	scope := scopeOf(mx, req.match)
	cur, _ := o.Get(mem.Field)
	list, _ := cur.([]any)
	have := make(map[string]bool, len(list)+len(keys))
	for _, el := range list {
		if so, ok := el.(*object.Object); ok {
			v, _ := so.Get(mx.KeyField)
			have[keyText(v)] = true
		}
	}
	list = append([]any(nil), list...)
	for _, k := range keys {
		if have[k] {
			continue
		}
		have[k] = true
		list = append(list, e.memberEntity(st, mr, scope, k, req))
	}
	o.Set(mem.Field, list)
	e.compute(res, o, scopeOf(res.Keys, req.match), req)
	if !e.save(st, req, o, ent, a) {
		return
	}
	a.body = object.AppendValue(nil, list)
}

// memberKeys reads the keys a member request names: a bare JSON array of
// strings, or the member's parameter in an object or form body.
func (e *Engine) memberKeys(req *request, mem *compiled.Member, a *answer) ([]string, bool) {
	if body := bytes.TrimSpace(req.body); len(body) > 0 && body[0] == '[' {
		var keys []string
		if err := json.Unmarshal(body, &keys); err != nil {
			e.refuse(a, dialect.Problem{Kind: dialect.ExpectedNames, Param: mem.Param})
			return nil, false
		}
		return keys, true
	}
	p, ok := e.params(req, a)
	if !ok {
		return nil, false
	}
	raw, _ := p[mem.Param].([]any)
	keys := make([]string, 0, len(raw))
	for _, v := range raw {
		switch t := v.(type) {
		case string:
			keys = append(keys, t)
		case map[string]any: // [{"name":"bug"}]
			if s, ok := t[mem.Resource.Keys.KeyField].(string); ok {
				keys = append(keys, s)
			}
		}
	}
	if len(keys) == 0 {
		e.validation(a, mem.Resource, mem.Param, "missing_field")
		return nil, false
	}
	return keys, true
}

// memberEntity returns the member with key in scope, creating it from the
// member resource's skeleton when the session has none.
func (e *Engine) memberEntity(st *session.State, mr *compiled.Resource, scope []string, key string, req *request) *object.Object {
	x := mr.Keys
	if x.KeyPrefix != "" && !strings.HasPrefix(key, x.KeyPrefix) {
		key = x.KeyPrefix + key
	}
	addr := addressOf(mr, scope, key)
	if cur := st.Get(addr); cur != nil && !cur.Deleted && cur.Resource == mr.Name {
		if o, err := object.Parse(cur.Body()); err == nil {
			return o
		}
	}
	o := mr.Skeleton.Clone()
	e.fillIDs(st, mr, scope, o)
	for _, f := range mr.Timestamps {
		o.Set(f, timeValue(x, req.now))
	}
	o.Set(x.KeyField, e.scrubbed(x.KeyField, key))
	e.applyRules(mr.Create, o, req.now)
	e.compute(mr, o, scope, req)
	ne := &world.Entity{ID: addr, Resource: mr.Name, Created: req.now, Seq: st.NextSeq(), Provenance: world.Handler}
	ne.SetScope(joinSlash(scope))
	ne.SetBody(e.encode(o))
	st.Put(ne)
	return o
}
