package openapi

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/route"
)

// paramTrie names path parameters so that the twin's route templates
// agree: the router wants templates that share a parameter position to
// name it alike, and the engine reads a resource item's parameter as
// {id}. The description names them per path ({customer}, {id}, ...).
type paramTrie struct {
	static map[string]*paramTrie
	param  *paramTrie
	names  map[string]bool // the description's names at this position
	isItem bool            // a resource's item position: named id
	name   string
}

func newParamTrie() *paramTrie { return &paramTrie{static: map[string]*paramTrie{}} }

func (t *paramTrie) add(path string, item bool) {
	n := t
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for _, s := range segs {
		if isParam(s) {
			if n.param == nil {
				n.param = &paramTrie{static: map[string]*paramTrie{}, names: map[string]bool{}}
			}
			n = n.param
			n.names[s[1:len(s)-1]] = true
			continue
		}
		if n.static[s] == nil {
			n.static[s] = newParamTrie()
		}
		n = n.static[s]
	}
	if item {
		n.isItem = true
	}
}

// assign names every parameter position: id at a resource's item, else
// the smallest name the description uses there, made unique along the
// path by a numeric suffix.
func (t *paramTrie) assign(used map[string]bool) {
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

// rename returns path with the assigned parameter names.
func (t *paramTrie) rename(path string) string {
	n := t
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	for i, s := range segs {
		if isParam(s) {
			n = n.param
			segs[i] = "{" + n.name + "}"
			continue
		}
		n = n.static[s]
	}
	return "/" + strings.Join(segs, "/")
}

// skipped reports whether the twin cannot serve an operation at the
// route template path, and if so reports the operation as skipped, with
// the router's reason. The check is the router's own parse (route.Router
// Add), the one format.Load and the engine run over the twin's whole route
// table, so what an import writes is what serve serves.
func (im *importer) skipped(o operation, path string) bool {
	return skipUnservable(im.report, o, path)
}

func skipUnservable(rep *Report, o operation, path string) bool {
	err := route.New[struct{}]().Add(o.method, path, struct{}{})
	if err == nil {
		return false
	}
	rep.Counts.Skipped++
	rep.unresolved(o.method+" "+o.path, fmt.Sprintf("not served: %v; the twin's router matches whole segments, so requests to it get a route miss", err), "high")
	return true
}

// literalPattern matches a url pattern that is a literal path prefix.
var literalPattern = regexp.MustCompile(`^\^(/[A-Za-z0-9_./-]*)$`)

// templateBody is an operation's template answer: a list envelope with no
// items, else an instance of its schema.
func (im *importer) templateBody(s *openapi3.SchemaRef, path string) any {
	if kind, _ := isList(s.Value); kind != "" {
		env, _ := im.sp.sample(s).(map[string]any)
		if env == nil {
			env = map[string]any{}
		}
		env["object"], env["data"], env["has_more"] = kind, []any{}, false
		url := path
		if u := s.Value.Properties["url"]; u != nil && u.Value != nil {
			if m := literalPattern.FindStringSubmatch(u.Value.Pattern); m != nil {
				url = m[1]
			}
		}
		if _, ok := s.Value.Properties["url"]; ok {
			env["url"] = url
		}
		return env
	}
	ref := pick(s, "")
	if name := objectEnum(schemaOf(ref)); name != "" {
		o, _ := im.instance(ref, name)
		return o
	}
	return im.sp.sample(s)
}
