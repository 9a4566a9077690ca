package openapi

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// ParamTrie names path parameters so that the twin's route templates
// agree: the router wants templates that share a parameter position to
// name it alike, and an engine reads a resource item's parameter as {id}.
// A description names them per path ({customer}, {id}, ...). Add every
// path, Assign, then Rename.
type ParamTrie struct {
	static map[string]*ParamTrie
	param  *ParamTrie
	names  map[string]bool // the description's names at this position
	isItem bool            // a resource's item position: named id
	name   string
}

// NewParamTrie is an empty trie.
func NewParamTrie() *ParamTrie { return &ParamTrie{static: map[string]*ParamTrie{}} }

// Add adds a description path; item marks its last parameter as a
// resource's item, named id.
func (t *ParamTrie) Add(path string, item bool) {
	n := t
	for _, s := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		if IsParam(s) {
			if n.param == nil {
				n.param = &ParamTrie{static: map[string]*ParamTrie{}, names: map[string]bool{}}
			}
			n = n.param
			n.names[s[1:len(s)-1]] = true
			continue
		}
		if n.static[s] == nil {
			n.static[s] = NewParamTrie()
		}
		n = n.static[s]
	}
	if item {
		n.isItem = true
	}
}

// Assign names every parameter position: id at a resource's item, else
// the smallest name the description uses there, made unique along the
// path by a numeric suffix.
func (t *ParamTrie) Assign() { t.assign(map[string]bool{}) }

func (t *ParamTrie) assign(used map[string]bool) {
	for _, k := range slices.Sorted(maps.Keys(t.static)) {
		t.static[k].assign(used)
	}
	p := t.param
	if p == nil {
		return
	}
	name := "id"
	if !p.isItem {
		name = slices.Sorted(maps.Keys(p.names))[0]
	}
	base := name
	for i := 2; used[name]; i++ {
		name = base + strconv.Itoa(i)
	}
	p.name = name
	used[name] = true
	p.assign(used)
	delete(used, name)
}

// Rename returns an added path with the assigned parameter names.
func (t *ParamTrie) Rename(path string) string {
	n := t
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for i, s := range segs {
		if IsParam(s) {
			n = n.param
			segs[i] = "{" + n.name + "}"
			continue
		}
		n = n.static[s]
	}
	return "/" + strings.Join(segs, "/")
}

// IsParam reports a path segment that is one whole parameter, {name}.
func IsParam(seg string) bool {
	return len(seg) > 2 && seg[0] == '{' && seg[len(seg)-1] == '}'
}

// ByPath maps each description path to its operations by method.
func ByPath(ops []Operation) map[string]map[string]Operation {
	out := map[string]map[string]Operation{}
	for _, o := range ops {
		if out[o.Path] == nil {
			out[o.Path] = map[string]Operation{}
		}
		out[o.Path][o.Method] = o
	}
	return out
}

// ItemPaths maps each collection path of byPath to its item path,
// collection/{param}, the smallest when there are several.
func ItemPaths[V any](byPath map[string]V) map[string]string {
	out := map[string]string{}
	for p := range byPath {
		i := strings.LastIndex(p, "/")
		if i <= 0 || !IsParam(p[i+1:]) {
			continue
		}
		coll := p[:i]
		if _, ok := byPath[coll]; ok {
			if prev, dup := out[coll]; !dup || p < prev {
				out[coll] = p
			}
		}
	}
	return out
}
