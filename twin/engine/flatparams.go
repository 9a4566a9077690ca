package engine

import (
	"slices"
	"strings"

	"github.com/wraithdev/wraith/twin/canon"
	"github.com/wraithdev/wraith/twin/object"
)

// reqParams is a write's parameters: the flat list canon.FlatParams reads
// from the form a client usually sends, else (tree not nil) the tree
// canon.Params builds. The flat list spares a create the maps of a tree
// that applyParams would only walk once; both apply alike.
type reqParams struct {
	flat []canon.FlatParam
	tree map[string]any
}

// writeParams decodes the request's parameters into buf when they are
// flat (the dialect's fast path), else as params does, answering 400 when
// it cannot.
func (e *Engine) writeParams(req *request, a *answer, buf []canon.FlatParam) (reqParams, bool) {
	if flat, ok := e.dialect.FlatParams(buf, req.ctype, req.body, req.query); ok {
		return reqParams{flat: flat}, true
	}
	tree, ok := e.params(req, a)
	return reqParams{tree: tree}, ok
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

// apply is w.apply of p.
func (p reqParams) apply(w *setter, o *object.Object, immutable map[string]bool, only []string) ([]string, error) {
	if p.tree != nil {
		return w.apply(o, p.tree, immutable, only)
	}
	return w.applyFlat(o, p.flat, immutable, only)
}

// applyFlat is apply of the tree that params, a list the fast path read,
// stands for. It gives the same object, ignored names and errors
// (TestApplyFlat holds it to that).
func (w *setter) applyFlat(o *object.Object, params []canon.FlatParam, immutable map[string]bool, only []string) (ignored []string, err error) {
	for len(params) > 0 {
		k, n := params[0].Name, 1
		for n < len(params) && params[n].Name == k {
			n++
		}
		group := params[:n]
		params = params[n:]
		cur, ok, err := w.admit(o, k, immutable, only, &ignored)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		v, err := w.convertFlat(k, cur, group)
		if err != nil {
			return nil, err
		}
		if w.scrub != nil {
			v = w.scrub(k, v)
		}
		o.Set(k, v)
	}
	return ignored, nil
}

// convertFlat is convert of the value a group of parameters of one name
// stands for: a string, or an object of the group's keys.
func (w *setter) convertFlat(name string, cur any, group []canon.FlatParam) (any, error) {
	if group[0].Key == "" {
		return w.convert(name, cur, group[0].Value)
	}
	if c, ok := cur.(*object.Object); ok {
		return w.mergeFlat(name, c, group)
	}
	// A nested default or a field of another type: rare enough to build
	// the object convert reads.
	t := make(map[string]any, len(group))
	for _, p := range group {
		t[p.Key] = p.Value
	}
	return w.convert(name, cur, t)
}

// mergeFlat is merge of an object whose members are the group's strings,
// sorted by key.
func (w *setter) mergeFlat(name string, cur *object.Object, group []canon.FlatParam) (*object.Object, error) {
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
		s := group[j].Value
		if s == "" {
			continue
		}
		nv, err := w.convert(name+"["+k+"]", vals[i], s)
		if err != nil {
			return nil, err
		}
		merged.Set(k, nv)
	}
	for _, p := range group {
		if p.Value != "" && !cur.Has(p.Key) {
			merged.Set(p.Key, p.Value)
		}
	}
	return merged, nil
}
