package engine

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/route"
	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/world"
)

// ext is what a resource declares through format.Keys: how it is
// addressed, scoped, numbered, listed and answered when it is not
// Stripe-shaped. A resource that declares none of it has a nil ext and is
// served by the Stripe-shaped code alone.
type ext struct {
	keyed        bool     // stored under an address built from its path, not its id
	keyField     string   // the field the item path's last parameter names
	keyParam     string   // that parameter's name
	keyPrefix    string   // what the field has before the path's value ("refs/")
	addrParams   []string // the item path's other parameters, in order
	idKind       string   // "string", "integer" or "none"
	parents      []string
	defaults     map[string]string
	counter      string
	array        bool // lists are bare arrays paged by Link headers
	listDefaults []fieldFilter
	createStatus int
	deleteStatus int
	required     []string
	class        string
	rfc3339      bool
	computed     []computed
	updateRules  []rule
	members      []*member
}

// computed is a field set on every write from a template.
type computed struct {
	path []string // "owner.login" is [owner login]
	tmpl string
}

// member is a sub-collection kept in an array field of its parent item.
type member struct {
	name     string
	field    string
	param    string
	resource string
	res      *resource // resolved once every resource is compiled
}

func compileExt(spec *format.Resource) (*ext, error) {
	k := &spec.Keys
	if !spec.Keyed() && k.List != "array" && k.CreateStatus == 0 && k.DeleteStatus == 0 && len(k.Required) == 0 &&
		k.TimeFormat == "" && len(k.Computed) == 0 && len(k.UpdateRules) == 0 && len(k.Members) == 0 && k.IDKind == "" &&
		len(k.CreatePaths) == 0 && len(k.ListPaths) == 0 && len(k.ReadPaths) == 0 && len(k.ListDefaults) == 0 {
		return nil, nil
	}
	x := &ext{
		keyed:        spec.Keyed(),
		keyField:     spec.KeyField(),
		keyParam:     spec.KeyParam(),
		keyPrefix:    k.KeyPrefix,
		idKind:       k.IDKind,
		parents:      k.Parents,
		defaults:     k.ParentDefaults,
		counter:      k.Counter,
		array:        k.List == "array",
		createStatus: k.CreateStatus,
		deleteStatus: k.DeleteStatus,
		required:     k.Required,
		class:        k.Class,
		rfc3339:      k.TimeFormat == "rfc3339",
	}
	if x.idKind == "" {
		x.idKind = "string"
	}
	if x.createStatus == 0 {
		x.createStatus = http.StatusOK
	}
	if x.deleteStatus == 0 {
		x.deleteStatus = http.StatusOK
	}
	if x.class == "" {
		x.class = spec.Name
	}
	for _, p := range format.PathParams(spec.Item) {
		if p != x.keyParam {
			x.addrParams = append(x.addrParams, p)
		}
	}
	for _, f := range sortedKeys(k.ListDefaults) {
		x.listDefaults = append(x.listDefaults, fieldFilter{field: f, want: k.ListDefaults[f]})
	}
	for _, f := range sortedKeys(k.Computed) {
		x.computed = append(x.computed, computed{path: strings.Split(f, "."), tmpl: k.Computed[f]})
	}
	var err error
	if x.updateRules, err = compileRules(k.UpdateRules); err != nil {
		return nil, fmt.Errorf("update_rules: %w", err)
	}
	for _, m := range k.Members {
		mm := &member{name: m.Path, field: m.Field, param: m.Param, resource: m.Resource}
		if mm.field == "" {
			mm.field = m.Path
		}
		x.members = append(x.members, mm)
	}
	return x, nil
}

// address is the key an entity is stored under in a session: the id for
// Stripe-shaped resources, else the resource's name and the item path's
// values ("issue:octocat/hello/7"), so an item read under another parent
// misses.
func (r *resource) address(m *route.Match[*endpoint]) string {
	if r.ext == nil || !r.ext.keyed {
		return m.Param("id")
	}
	x := r.ext
	if x.byID() {
		return m.Param(x.keyParam)
	}
	var b strings.Builder
	b.WriteString(r.name)
	b.WriteByte(':')
	for _, p := range x.addrParams {
		b.WriteString(m.Param(p))
		b.WriteByte('/')
	}
	b.WriteString(x.keyPrefix)
	b.WriteString(m.Param(x.keyParam))
	return b.String()
}

// scopeOf returns the values of r's parents for a request: its path's
// values, else the declared defaults ("" for neither).
func (x *ext) scopeOf(m *route.Match[*endpoint]) []string {
	vals := make([]string, len(x.parents))
	for i, p := range x.parents {
		if v := m.Param(p); v != "" {
			vals[i] = v
		} else {
			vals[i] = x.defaults[p]
		}
	}
	return vals
}

func (x *ext) parentValue(scope []string, name string) string {
	for i, p := range x.parents {
		if p == name {
			return scope[i]
		}
	}
	return ""
}

// addressOf is the address of an entity of r with scope and key text.
func (r *resource) addressOf(scope []string, key string) string {
	x := r.ext
	if !x.keyed || x.byID() {
		return key
	}
	var b strings.Builder
	b.WriteString(r.name)
	b.WriteByte(':')
	for _, p := range x.addrParams {
		b.WriteString(x.parentValue(scope, p))
		b.WriteByte('/')
	}
	b.WriteString(key)
	return b.String()
}

// keyText is a key field's value as a path carries it.
func keyText(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case json.Number:
		return string(t)
	}
	return ""
}

// timeValue is a session time as the resource writes it.
func (x *ext) timeValue(now int64) any {
	if x != nil && x.rfc3339 {
		return time.Unix(now, 0).UTC().Format(time.RFC3339)
	}
	return json64(now)
}

// intID returns a new integer id: increasing per session, so never
// reused, with low digits from the session's generator, so that it
// depends on the seed as string ids do.
func intID(st *session.State) json.Number {
	n := st.Next("\x00id")
	h := fnv.New32a()
	h.Write([]byte(st.NewID("", 4)))
	return json64(100000000 + n*1000 + int64(h.Sum32()%1000))
}

// baseURL is where the client reached the provider's API: the scheme and
// host the request was sent to, and the /__s/{session} prefix when the
// path named the session, for computed fields ({base}) and Link headers.
// Without the prefix, a client that follows a link would leave its session.
func (req *request) baseURL() string {
	scheme := "http://"
	if req.tls {
		scheme = "https://"
	}
	return scheme + req.host + req.prefix
}

// createExt answers a create of a resource with an ext.
func (e *Engine) createExt(st *session.State, req *request, a *answer) {
	res := req.match.Value.res
	x := res.ext
	p, ok := e.params(req, a)
	if !ok {
		return
	}
	for _, f := range x.required {
		if v, ok := p[f]; !ok || v == nil || v == "" {
			e.validation(a, res, f, "missing_field")
			return
		}
	}
	scope := x.scopeOf(req.match)
	o := res.skeleton.Clone()
	e.fillIDs(st, res, scope, o)
	for _, f := range res.timestamps {
		o.Set(f, x.timeValue(req.now))
	}
	ignored, err := applyParams(o, p, res.immutable, nil, e.scrubFor(st))
	if err != nil {
		e.paramFailed(a, err)
		return
	}
	e.applyRules(res.create, o, req.now)
	key := e.finishKey(res, o)
	if key == "" {
		e.validation(a, res, x.keyField, "missing_field")
		return
	}
	addr := res.addressOf(scope, key)
	if cur := st.Get(addr); cur != nil && !cur.Deleted && cur.Resource == res.name {
		e.validation(a, res, x.keyField, "already_exists")
		return
	}
	e.compute(res, o, scope, req)
	if !e.save(st, req, o, &world.Entity{ID: addr, Resource: res.name, Created: req.now, Seq: st.NextSeq(), Scope: strings.Join(scope, "/")}, a) {
		return
	}
	a.status, a.ignored = x.createStatus, ignored
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

// afterUpdate applies what an ext adds to an update: the key stays (it is
// the entity's address), update rules, computed fields.
func (e *Engine) afterUpdate(res *resource, o *object.Object, ent *world.Entity, req *request, a *answer) bool {
	x := res.ext
	if x.keyed {
		v, _ := o.Get(x.keyField)
		if key := keyText(v); !strings.HasSuffix(ent.ID, "/"+key) && !strings.HasSuffix(ent.ID, ":"+key) {
			e.invalid(a, x.keyField, fmt.Sprintf("You cannot change `%s`: it is part of the item's path.", x.keyField))
			return false
		}
	}
	e.applyRules(x.updateRules, o, req.now)
	e.compute(res, o, x.scopeOf(req.match), req)
	return true
}

// compute sets the computed fields of o.
func (e *Engine) compute(res *resource, o *object.Object, scope []string, req *request) {
	x := res.ext
	for _, c := range x.computed {
		v := fillComputed(c.tmpl, func(name string) string {
			if name == "base" {
				return req.baseURL()
			}
			for i, p := range x.parents {
				if p == name {
					return scope[i]
				}
			}
			fv, _ := o.Get(name)
			if s := keyText(fv); s != "" {
				return s
			}
			return valueText(fv)
		})
		setPath(o, c.path, v)
	}
}

func fillComputed(tmpl string, val func(string) string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(tmpl, '{')
		j := strings.IndexByte(tmpl, '}')
		if i < 0 || j < i {
			b.WriteString(tmpl)
			return b.String()
		}
		b.WriteString(tmpl[:i])
		b.WriteString(val(tmpl[i+1 : j]))
		tmpl = tmpl[j+1:]
	}
}

// setPath sets a dotted field, making the objects on its way.
func setPath(o *object.Object, path []string, v any) {
	for _, f := range path[:len(path)-1] {
		cur, _ := o.Get(f)
		next, ok := cur.(*object.Object)
		if !ok {
			next = object.New(1)
			o.Set(f, next)
		}
		o = next
	}
	o.Set(path[len(path)-1], v)
}

// validation answers a create the provider would refuse field by field:
// the twin's errors.validation shape, else its invalid-request shape.
func (e *Engine) validation(a *answer, res *resource, field, code string) {
	a.prov = ProvHandler
	if e.errors.validation != nil {
		e.errors.validation.set(a, map[string]string{"resource": res.ext.class, "param": field, "code": code, "object": res.name})
		return
	}
	msg := "Missing required param: " + field + "."
	if code == "already_exists" {
		msg = "A " + res.name + " with this " + field + " already exists."
	}
	e.invalid(a, field, msg)
}

// inScope reports whether an entity's scope matches want, position by
// position; "" in want matches anything.
func inScope(scope string, want []string) bool {
	for _, w := range want {
		v, rest, _ := strings.Cut(scope, "/")
		if w != "" && v != w {
			return false
		}
		scope = rest
	}
	return true
}

// endpointFor is what a resource's operation (see format.Operations)
// resolves to.
func (r *resource) endpointFor(op format.Operation) *endpoint {
	switch op.Op {
	case "list":
		return &endpoint{kind: kindList}
	case "create":
		return &endpoint{kind: kindCreate}
	case "retrieve":
		return &endpoint{kind: kindRetrieve}
	case "update":
		return &endpoint{kind: kindUpdate}
	case "delete":
		if r.onDelete != nil {
			return &endpoint{kind: kindAction, action: r.onDelete}
		}
		return &endpoint{kind: kindDelete}
	case "member":
		for _, m := range r.ext.members {
			if m.name == op.Name {
				return &endpoint{kind: kindMember, member: m}
			}
		}
	}
	for _, a := range r.actions {
		if a.name == op.Name {
			return &endpoint{kind: kindAction, action: a}
		}
	}
	return &endpoint{kind: kindPlain}
}

// linkMembers points every member at its resource, once all are compiled.
func linkMembers(resources map[string]*resource) {
	for _, r := range resources {
		if r.ext == nil {
			continue
		}
		for _, m := range r.ext.members {
			m.res = resources[m.resource]
		}
	}
}

// setKey fills the key of an object synthesized for an item path: its id,
// or its key field (a number when the skeleton's is one) for keyed
// resources.
func setKey(o *object.Object, res *resource, req *request, scrub func(string, any) any) {
	if res.ext == nil || !res.ext.keyed {
		o.Set("id", scrub("id", req.match.Param("id")))
		return
	}
	x := res.ext
	v := x.keyPrefix + req.match.Param(x.keyParam)
	if _, isNumber := res.skeleton.Get(x.keyField); isNumber {
		if cur, _ := res.skeleton.Get(x.keyField); cur != nil {
			if _, ok := cur.(json.Number); ok {
				if n, err := strconv.ParseInt(v, 10, 64); err == nil {
					// Written anew: +7 or 007 in a path is no JSON number.
					o.Set(x.keyField, json.Number(strconv.FormatInt(n, 10)))
					return
				}
			}
		}
	}
	o.Set(x.keyField, scrub(x.keyField, v))
}

// scopeText is the scope of the item a request names.
func (r *resource) scopeText(req *request) string {
	if r.ext == nil {
		return ""
	}
	return joinSlash(r.ext.scopeOf(req.match))
}
