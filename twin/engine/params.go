package engine

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/wraithdev/wraith/twin/canon"
	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/reqschema"
	"github.com/wraithdev/wraith/twin/session"
)

// paramError is a request parameter the provider would refuse, for the
// dialect to word.
type paramError struct{ p dialect.Problem }

// Error words p plainly; an answer words it in the twin's dialect.
func (p *paramError) Error() string { return dialect.Base{}.Word(p.p) }

func problem(kind dialect.Kind, param, value string) *paramError {
	return &paramError{dialect.Problem{Kind: kind, Param: param, Value: value}}
}

// setter sets a write's parameters onto an object the way the provider
// stores them: its dialect's value rules (d), the resource's nested
// defaults (fill, nil when it has none), and the engine's scrubber with
// the session's verbatim fields (e and keep; no scrub when e is nil).
// It holds the engine, not a scrub func: a func value here would be
// allocated on every write.
type setter struct {
	d    dialect.Dialect
	fill *filler
	e    *Engine
	keep []string
	// schema is the route's request schema (nil: none): a value is
	// stored in the type it names, whatever the field held before.
	schema *reqschema.Schema
}

// reqParams is a write's parameters as the setter applies them: by name,
// in sorted order, each a string, a group of keyed strings
// (name[key]=value) or a tree value. Most writes send a form of such
// strings, which the dialect's fast path (FlatParams) reads into a flat
// list, sparing the maps of a tree that apply would walk only once; the
// rest are the tree its Params builds (tree not nil).
type reqParams struct {
	flat []canon.FlatParam // sorted by name, then key
	tree map[string]any
	// env is the item envelope the tree was taken out of (unwrap), ""
	// for none: its members' schemas are the envelope member's.
	env string
}

// writeParams decodes the request's parameters into buf when they are
// flat (the dialect's fast path), else as params does, and checks them
// against the route's request schema, answering 400 when it cannot or
// they fail.
func (e *Engine) writeParams(st session.Reader, req *request, a *answer, buf []canon.FlatParam) (reqParams, bool) {
	var flat []canon.FlatParam
	var ok bool
	if e.decoder == nil {
		flat, ok = canon.FlatParams(buf, req.ctype, req.body, req.query)
	} else {
		// buf is never handed to the interface: it would escape, and be
		// allocated on every write of every dialect.
		flat, ok = e.decoder.FlatParams(nil, req.ctype, req.body, req.query)
	}
	if ok && len(req.match.Value.Repeated) > 0 && req.match.Value.Params.Repeats(flat) {
		flat, ok = nil, false // a list sent as its name repeated: the tree reads it whole
	}
	// flat and tree stay apart until checked: escape analysis follows a
	// struct as one, so a tree in the same struct as flat would take
	// buf, on the caller's stack, to the heap with it.
	var tree map[string]any
	if !ok {
		if tree, ok = e.params(req, a); !ok {
			return reqParams{}, false
		}
	}
	if tree, ok = e.checkWrite(st, req, a, flat, tree); !ok {
		return reqParams{}, false
	}
	p := reqParams{flat: flat, tree: tree}
	p.unwrap(req.match.Value.Resource)
	return p, true
}

// unwrap takes a write's parameters out of its resource's item envelope
// ({"data": {"name": ...}} sets name), once the request schema, which
// names the envelope, has checked them.
func (p *reqParams) unwrap(res *compiled.Resource) {
	if res == nil || res.Keys.ItemEnvelope == "" || len(p.tree) != 1 {
		return
	}
	if inner, ok := p.tree[res.Keys.ItemEnvelope].(map[string]any); ok {
		p.tree, p.env = inner, res.Keys.ItemEnvelope
	}
}

// setParams sets a write's parameters onto o, the resource's object
// being written (see setter.apply; only, when not nil, names the
// parameters an action copies), and replaces the ids its expansions name
// by their entities. It returns the parameters that named no field, or
// answers 400 and reports false.
func (e *Engine) setParams(st *session.State, req *request, o *object.Object, p reqParams, only []string, a *answer) ([]string, bool) {
	res := req.match.Value.Resource
	schema := req.match.Value.Params
	if p.env != "" {
		schema = schema.At(p.env) // the members' own, as the tree is
	}
	w := e.setterFor(res, st, o, req.now, schema)
	ignored, err := w.apply(o, p, res.Immutable, only)
	if err != nil {
		e.paramFailed(a, err)
		return nil, false
	}
	if e.namer != nil {
		e.namer.Named(o, e.memberFinder(st, req, res), req.baseURL())
	}
	return ignored, e.expand(st, res, o, a)
}

// namer is a dialect whose provider answers as objects what a write
// names by name (labels and assignees named by their names); the engine asserts it
// once, in New.
type namer interface {
	Named(o *object.Object, member func(field, name string) *object.Object, base string)
}

// memberFinder finds, or makes, the entity named name of res's member at
// field in the scope of the entity being written, as POST {item}/{member}
// does; nil when res has no members.
func (e *Engine) memberFinder(st *session.State, req *request, res *compiled.Resource) func(field, name string) *object.Object {
	if len(res.Keys.Members) == 0 {
		return nil
	}
	return func(field, name string) *object.Object {
		for _, m := range res.Keys.Members {
			if m.Field == field && m.Resource != nil {
				return e.memberEntity(st, m.Resource, scopeOf(m.Resource.Keys, req.match), name, req)
			}
		}
		return nil
	}
}

// sent reports whether the request sent the top-level parameter name,
// empty or not.
func (p reqParams) sent(name string) bool {
	if p.tree != nil {
		_, ok := p.tree[name]
		return ok
	}
	for _, f := range p.flat {
		if f.Name == name {
			return true
		}
	}
	return false
}

// names returns the top-level parameter names the request sent, in a
// slice of their own.
func (p *reqParams) names() []string {
	if p.tree != nil {
		out := make([]string, 0, len(p.tree))
		for k := range p.tree {
			out = append(out, k)
		}
		return out
	}
	out := make([]string, 0, len(p.flat))
	for _, f := range p.flat {
		if len(out) == 0 || out[len(out)-1] != f.Name { // flat is sorted by name
			out = append(out, f.Name)
		}
	}
	return out
}

// has reports whether p sets name to something: a value other than ""
// and null.
func (p reqParams) has(name string) bool {
	if p.tree != nil {
		v, ok := p.tree[name]
		return ok && v != nil && v != ""
	}
	for _, f := range p.flat {
		if f.Name == name && (f.Key != "" || f.Value != "") {
			return true
		}
	}
	return false
}

// paramIter walks a write's parameters in name order. Each is, on the
// fast path, the group of flat parameters of its name (one unkeyed
// string, or keyed strings sorted by key), else its tree value.
type paramIter struct {
	flat []canon.FlatParam
	tree map[string]any
	keys []string // the tree's names, sorted, still to walk
}

// iter returns an iterator over p, sorting a tree's names into keys.
func (p reqParams) iter(keys []string) paramIter {
	if p.tree == nil {
		return paramIter{flat: p.flat}
	}
	for k := range p.tree {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return paramIter{tree: p.tree, keys: keys}
}

// next returns the next parameter's name and its group or tree value,
// or ok false when there are no more. (Separate results, not a struct:
// a struct would carry the group's backing array wherever the name goes,
// and move the caller's buffers to the heap.)
func (it *paramIter) next() (name string, group []canon.FlatParam, value any, ok bool) {
	if it.tree != nil {
		if len(it.keys) == 0 {
			return "", nil, nil, false
		}
		name = it.keys[0]
		it.keys = it.keys[1:]
		return name, nil, it.tree[name], true
	}
	if len(it.flat) == 0 {
		return "", nil, nil, false
	}
	name, n := it.flat[0].Name, 1
	for n < len(it.flat) && it.flat[n].Name == name {
		n++
	}
	group = it.flat[:n]
	it.flat = it.flat[n:]
	return name, group, nil, true
}

// apply sets a write's parameters onto o: a parameter names a field;
// nested objects merge (an empty string clears a key, or the whole field,
// as the dialect clears it); strings are converted to the field's type
// when the field is a number or boolean, and scrubbed. A parameter that
// writes a nested object where the field holds none, or the elements of a
// nested list, is merged over the nested default for that place.
// Parameters that name no field are returned, sorted, so the answer can
// say they were ignored. The fast path's flat parameters and a tree give
// the same object, ignored names and errors (TestApplyFlat holds them to
// that): only convertParam tells them apart.
func (w *setter) apply(o *object.Object, p reqParams, immutable map[string]bool, only []string) (ignored []string, err error) {
	var keys [16]string // on the stack for the few parameters a request usually has
	it := p.iter(keys[:0])
	for {
		k, group, value, more := it.next()
		if !more {
			return ignored, nil
		}
		cur, ok, err := w.admit(o, k, immutable, only, &ignored)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		v, err := w.convertParam(k, w.schema.At(k), cur, group, value)
		if err != nil {
			return nil, err
		}
		if w.e != nil {
			v = w.e.scrubbedKeep(w.keep, k, v)
		}
		o.Set(k, v)
	}
}

// admit applies the rules a parameter meets before its value is read: one
// the engine ignores is skipped, one outside only or naming no field of o
// is skipped and added to ignored, and one naming an immutable field is
// refused. ok says the parameter applies to cur, o's field k.
func (w *setter) admit(o *object.Object, k string, immutable map[string]bool, only []string, ignored *[]string) (cur any, ok bool, err error) {
	if w.d.Reserved(k) {
		return nil, false, nil
	}
	if only != nil && !contains(only, k) {
		*ignored = append(*ignored, k)
		return nil, false, nil
	}
	if cur, ok = o.Get(k); !ok || w.schema.At(k).IsUnanswered() {
		*ignored = append(*ignored, k)
		return nil, false, nil
	}
	if immutable[k] && w.schema.At(k) == nil {
		// A field no write may change, unless this operation's schema
		// takes it: a create that takes a custom id.
		return nil, false, immutableParam(k)
	}
	return cur, true, nil
}

// immutableParam refuses a parameter that names a field no write may
// change.
func immutableParam(k string) error {
	return problem(dialect.Immutable, k, "")
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// convertParam returns the new value of field name, whose current value
// is cur, from the parameter's tree value, or the string or object its
// flat group stands for.
func (w *setter) convertParam(name string, s *reqschema.Schema, cur any, group []canon.FlatParam, value any) (any, error) {
	switch {
	case group == nil:
		return w.convert(name, s, cur, value)
	case group[0].Key == "":
		return w.convert(name, s, cur, group[0].Value)
	}
	if c, ok := cur.(*object.Object); ok {
		return w.mergeFlat(name, s, c, group)
	}
	// A nested default or a field of another type: rare enough to build
	// the object convert reads.
	t := make(map[string]any, len(group))
	for _, f := range group {
		t[f.Key] = f.Value
	}
	return w.convert(name, s, cur, t)
}

// convert returns the new value of a field whose current value is cur,
// from v, sent where the request schema is s (nil: unknown). A string
// sent where s names a number or a boolean is stored as one; where cur
// holds an object that s says may be named by its id (an expandable
// field: price=price_123), the id is stored; a hash sent where cur holds
// a scalar is a request-only shape (a capability requested with
// capabilities[card_payments][requested]=true, where the answer says
// "active") and leaves cur as it was.
func (w *setter) convert(name string, s *reqschema.Schema, cur, v any) (any, error) {
	if t, ok := v.(string); ok && t != "" {
		if typed, ok := scalarOf(s, t); ok {
			return typed, nil
		}
	}
	if m, ok := v.(map[string]any); ok && cur == nil {
		if d := w.fill.defaultAt(dottedPath(name)); d != nil {
			return w.merge(name, s, d, m)
		}
	}
	if l, ok := v.([]any); ok && w.fill.has(dottedPath(name)+"[]") {
		if _, isList := cur.([]any); isList || cur == nil {
			return w.mergeEach(name, dottedPath(name)+"[]", s, l)
		}
	}
	switch c := cur.(type) {
	case *object.Object:
		switch t := v.(type) {
		case map[string]any:
			return w.merge(name, s, c, t)
		case string:
			if t == "" {
				return w.d.Cleared(name), nil
			}
			if o, ok := w.d.FromString(name, c, t); ok {
				return o, nil
			}
			if s.Accepts("string") {
				return t, nil
			}
		case nil:
			return nil, nil
		case []any:
			if data, count, ok := w.d.ListField(c); ok {
				env := c.Clone()
				items, err := w.mergeEach(name, dottedPath(name)+"."+data+"[]", s, t)
				if err != nil {
					return nil, err
				}
				env.Set(data, items)
				if _, ok := env.Get(count); ok && count != "" {
					env.Set(count, json.Number(strconv.Itoa(len(t))))
				}
				return env, nil
			}
		}
		return nil, problem(dialect.ExpectedHash, name, "")
	case json.Number:
		if requestOnly(v) && s != nil {
			return cur, nil
		}
		return numberParam(name, c, v)
	case bool:
		switch t := v.(type) {
		case bool:
			return t, nil
		case string:
			b, err := strconv.ParseBool(t)
			if err != nil {
				return nil, problem(dialect.InvalidBoolean, name, t)
			}
			return b, nil
		}
		return nil, problem(dialect.ExpectedBoolean, name, "")
	case string:
		if requestOnly(v) && s != nil {
			return cur, nil
		}
		return typedParam(s, v), nil
	default:
		return typedParam(s, v), nil
	}
}

// typedParam is paramValue with the strings of a form read in the types
// the request schema s names, at every depth (package_dimensions[height]
// =2.234 is the number 2.234); without a schema, paramValue.
func typedParam(s *reqschema.Schema, v any) any {
	if s == nil {
		return paramValue(v)
	}
	switch t := v.(type) {
	case string:
		if typed, ok := scalarOf(s, t); ok {
			return typed
		}
		return t
	case map[string]any:
		o := object.New(len(t))
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if !s.At(k).IsUnanswered() {
				o.Set(k, typedParam(s.At(k), t[k]))
			}
		}
		return o
	case []any:
		items := s.ItemsOf()
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = typedParam(items, e)
		}
		return out
	}
	return paramValue(v)
}

// requestOnly reports whether v is a shape only a request has where the
// answer holds a scalar: a hash or a list.
func requestOnly(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// scalarOf is text read in the scalar type s names (a number or a
// boolean), when it names one and text is one; a request that is not
// was refused by validation, or is served under --validate warn or off,
// and keeps the field's own rules.
func scalarOf(s *reqschema.Schema, text string) (any, bool) {
	if s == nil {
		return nil, false
	}
	switch s.Type {
	case "integer", "number", "boolean":
		v, prob := s.Value(text)
		if prob != nil {
			return nil, false
		}
		if n, ok := v.(json.Number); ok && s.Type == "integer" {
			i, err := strconv.ParseInt(string(n), 10, 64)
			if err != nil {
				return nil, false
			}
			return json.Number(strconv.FormatInt(i, 10)), true
		}
		return v, true
	}
	return nil, false
}

// merge returns cur with the parameters of t merged in: a field t names
// takes its converted value, an empty string removes it, fields t adds
// follow cur's in sorted order. It builds the result in one pass over cur
// and one over t, so a merge of n keys costs O(n log n) for the sort and
// nothing quadratic. cur itself is left as it was.
func (w *setter) merge(name string, s *reqschema.Schema, cur *object.Object, t map[string]any) (*object.Object, error) {
	merged := object.New(cur.Len() + len(t))
	vals := cur.Values()
	for i, k := range cur.Keys() {
		v, named := t[k]
		if !named {
			merged.Set(k, object.CloneValue(vals[i]))
			continue
		}
		if text, ok := v.(string); (ok && text == "") || s.At(k).IsUnanswered() {
			switch {
			case s.At(k).Answered() != "":
				merged.Set(k, s.At(k).Answered())
			case !ok || text != "":
				merged.Set(k, object.CloneValue(vals[i]))
			}
			continue
		}
		nv, err := w.convert(name+"["+k+"]", s.At(k), vals[i], v)
		if err != nil {
			return nil, err
		}
		merged.Set(k, nv)
	}
	added := make([]string, 0, 8) // on the stack for the few keys a request usually adds
	for k := range t {
		if !cur.Has(k) && (!s.At(k).IsUnanswered() || s.At(k).Answered() != "") {
			added = append(added, k)
		}
	}
	slices.Sort(added)
	for _, k := range added {
		v := t[k]
		if ans := s.At(k).Answered(); ans != "" {
			merged.Set(k, ans)
			continue
		}
		if text, isString := v.(string); isString {
			if text == "" { // what convert makes of "" for a field cur lacks
				continue
			}
			if typed, ok := scalarOf(s.At(k), text); ok {
				v = typed
			}
			merged.Set(k, v) // v as it is: a string made an interface again would be a copy
			continue
		}
		nv, err := w.convert(name+"["+k+"]", s.At(k), nil, v)
		if err != nil {
			return nil, err
		}
		merged.Set(k, nv)
	}
	return merged, nil
}

// mergeFlat is merge of an object whose members are the group's strings,
// sorted by key: the fast path's, which looks keys up in the group by
// binary search rather than in a map built for them.
func (w *setter) mergeFlat(name string, s *reqschema.Schema, cur *object.Object, group []canon.FlatParam) (*object.Object, error) {
	merged := object.New(cur.Len() + len(group))
	vals := cur.Values()
	for i, k := range cur.Keys() {
		j, named := slices.BinarySearchFunc(group, k, func(p canon.FlatParam, k string) int {
			return strings.Compare(p.Key, k)
		})
		if !named {
			merged.Set(k, object.CloneValue(vals[i]))
			continue
		}
		text := group[j].Value
		if text == "" {
			continue
		}
		if s.At(k).IsUnanswered() {
			merged.Set(k, object.CloneValue(vals[i]))
			continue
		}
		nv, err := w.convert(name+"["+k+"]", s.At(k), vals[i], text)
		if err != nil {
			return nil, err
		}
		merged.Set(k, nv)
	}
	for _, p := range group {
		if p.Value != "" && !cur.Has(p.Key) && !s.At(p.Key).IsUnanswered() {
			if typed, ok := scalarOf(s.At(p.Key), p.Value); ok {
				merged.Set(p.Key, typed)
				continue
			}
			merged.Set(p.Key, p.Value)
		}
	}
	return merged, nil
}

// mergeEach converts the elements of a list parameter, merging each
// object over the nested default at path when there is one.
func (w *setter) mergeEach(name, path string, s *reqschema.Schema, l []any) ([]any, error) {
	out := make([]any, len(l))
	items := s.ItemsOf()
	for i, el := range l {
		if t, isString := el.(string); isString && t != "" && w.fill.has(path) {
			// A key sent for an element that is an object (the dialect
			// reads it as that object, named by its key).
			if o, ok := w.d.FromString(name, w.fill.defaultAt(path), t); ok {
				out[i] = o
				continue
			}
		}
		m, ok := el.(map[string]any)
		if !ok || !w.fill.has(path) {
			out[i] = typedParam(items, el)
			continue
		}
		merged, err := w.merge(name+"["+strconv.Itoa(i)+"]", items, w.fill.defaultAt(path), m)
		if err != nil {
			return nil, err
		}
		out[i] = merged
	}
	return out, nil
}

// paramValue converts a decoded parameter into package object's value set,
// with object keys sorted so the result is deterministic.
func paramValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		o := object.New(len(t))
		for _, k := range slices.Sorted(maps.Keys(t)) {
			o.Set(k, paramValue(t[k]))
		}
		return o
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = paramValue(e)
		}
		return out
	case float64:
		return json.Number(strconv.FormatFloat(t, 'f', -1, 64))
	default:
		return v
	}
}

// numberParam converts v, sent for a field whose current value is the
// number cur. A field that holds an integer takes only integers within
// int64, written in decimal (1.5 is an InvalidInteger); any
// other number field takes a JSON number that a 64-bit float holds. NaN,
// Inf, hex, 1_000 and the like, which strconv would read, are refused:
// stored, they would be served as text no JSON decoder reads. The result
// is always valid JSON text: an integer is rewritten in canonical form
// (+7 and 007 are 7).
func numberParam(name string, cur json.Number, v any) (json.Number, error) {
	var text string
	switch t := v.(type) {
	case json.Number:
		text = string(t)
	case string:
		text = t
	default:
		return "", problem(dialect.ExpectedNumber, name, "")
	}
	if isInteger(cur) {
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return "", problem(dialect.InvalidInteger, name, text)
		}
		return json.Number(strconv.FormatInt(n, 10)), nil
	}
	if !canon.Number(text) {
		return "", problem(dialect.InvalidFloat, name, text)
	}
	return json.Number(text), nil
}

// isInteger reports whether a number field holds an integer: its text has
// no fraction and no exponent.
func isInteger(n json.Number) bool {
	return !strings.ContainsAny(string(n), ".eE")
}

// params decodes the request's parameters as the dialect reads them,
// answering 400 when it cannot.
func (e *Engine) params(req *request, a *answer) (map[string]any, bool) {
	var p map[string]any
	var err error
	if e.decoder == nil {
		p, err = canon.Params(req.ctype, req.body, req.query)
	} else {
		p, err = e.decoder.Params(req.ctype, req.body, req.query)
	}
	if err != nil {
		if ne, ok := err.(*canon.NumberError); ok {
			e.refuse(a, dialect.Problem{Kind: dialect.InvalidNumber, Param: ne.Param, Detail: ne.Error()})
			return nil, false
		}
		p := dialect.Problem{Kind: dialect.InvalidRequest, Detail: err.Error()}
		if e.twin.Errors.Unreadable != nil {
			a.prov = ProvHandler
			a.shape(e.twin.Errors.Unreadable, map[string]string{"message": e.dialect.Word(p)})
			return nil, false
		}
		e.refuse(a, p)
		return nil, false
	}
	if names := req.match.Value.Repeated; len(names) > 0 {
		e.readRepeated(req, p, names)
	}
	return p, true
}

// readRepeated sets each of names, the route's lists sent as their name
// repeated (Permission=a&Permission=b), to all its values, where the
// tree has the last: only a list's values are read so, and a scalar sent
// twice keeps its last value, as package canon reads it. A list whose
// last value is not the tree's was replaced by another spelling or
// source (the tree's rules decide which), and is not taken. A list's
// name sent once in a form or query is a list of one, whatever the
// validation mode, so that what is stored is the list the request meant.
func (e *Engine) readRepeated(req *request, p map[string]any, names []string) {
	var rep map[string][]any
	if e.decoder == nil {
		rep = canon.Repeated(req.ctype, req.body, req.query)
	} else {
		rep = e.decoder.Repeated(req.ctype, req.body, req.query)
	}
	form := e.formSent(req)
	for _, k := range names {
		one, plain := p[k].(string)
		if !plain {
			continue // absent, or a list or object the tree made
		}
		if vs := rep[k]; len(vs) > 0 && vs[len(vs)-1] == one {
			p[k] = vs
		} else if form {
			p[k] = []any{one}
		}
	}
}

// setterFor is how a write of res in st sets its parameters onto o, in
// the types of its request schema (nil: none).
func (e *Engine) setterFor(res *compiled.Resource, st *session.State, o *object.Object, now int64, schema *reqschema.Schema) setter {
	return setter{d: e.dialect, fill: fillerFor(res, e.dialect, st, o, now), e: e, keep: st.PIIVerbatim(), schema: schema}
}

// fillerFor returns nil when the resource declares no nested defaults,
// so that parameters of most resources cost nothing more.
func fillerFor(res *compiled.Resource, d dialect.Dialect, st *session.State, o *object.Object, now int64) *filler {
	if res.Nested == nil || len(res.Nested.Defaults) == 0 {
		return nil
	}
	return &filler{n: res.Nested, d: d, st: st, o: o, now: now}
}
