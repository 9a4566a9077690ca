package engine

import (
	"maps"
	"net/http"
	"slices"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/engine/compiled"
	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/world"
)

// list answers GET {collection} from the session's world: the entities
// of the request's parent scope, filtered by field parameters and the
// resource's list_defaults, paged and enveloped by the dialect. A session
// that has no fixture and changed nothing of this resource gets a
// recorded list verbatim when one matches (lists of a top-level
// collection in the dialect's own shape: those are the ones recorded).
func (e *Engine) list(st session.Reader, req *request, a *answer) {
	res := req.match.Value.Resource
	x := res.Keys
	p, ok := e.params(req, a)
	if !ok || !e.checkTree(st, req, a, p) {
		return
	}
	if !x.Array && len(x.Parents) == 0 && st.World() == e.twin.World("") && !st.HasChanges(res.Name) {
		if rec := e.recordedFor(req); rec != nil {
			a.fromRecorded(rec)
			return
		}
	}
	filters, tests, ignored := e.listFilters(st, res, p)
	for _, d := range x.ListDefaults {
		if v, given := p[d.Field]; given {
			if v == "all" {
				filters = dropFilter(filters, d.Field)
			}
			continue
		}
		filters = append(filters, d)
	}
	all := st.Visible(res.Name)
	url := res.ListURL
	if req.match.Value.Search {
		url = req.path // a search names its own path
	}
	if len(x.Parents) > 0 {
		want := scopeOf(x, req.match)
		scoped := make([]*world.Entity, 0, len(all))
		for _, ent := range all {
			if inScope(ent.Scope(), want) {
				scoped = append(scoped, ent)
			}
		}
		all = scoped
		url = req.path // a parent-scoped list is named by the path it was asked at
	}
	if len(filters) > 0 || len(tests) > 0 {
		all = filter(all, filters, tests)
	}
	page, refused := e.dialect.List(dialect.ListQuery{
		Params:   p,
		Items:    all,
		Object:   res.Name,
		Array:    x.Array,
		Envelope: x.Envelope,
		URL:      url,
		Here:     req.here(),
		Search:   req.match.Value.Search,
	})
	if refused != nil {
		e.invalid(a, refused.Param, refused.Message)
		return
	}
	a.status, a.prov, a.ignored, a.body = http.StatusOK, ProvHandler, ignored, page.Body
	if page.Link != "" {
		a.link = []string{page.Link}
	}
}

func dropFilter(fs []compiled.Filter, field string) []compiled.Filter {
	out := fs[:0]
	for _, f := range fs {
		if f.Field != field {
			out = append(out, f)
		}
	}
	return out
}

// listFilters reads the filters of a list request: the dialect's own
// tests of the parameters it reads otherwise (ranges, sets, nested fields)
// and of a list's default, and the rest as top-level fields compared by
// value. PII fields compare by token, unless st's session keeps them
// verbatim (as it stored them).
func (e *Engine) listFilters(st session.Reader, res *compiled.Resource, p map[string]any) ([]compiled.Filter, []func(*object.Object) bool, []string) {
	var fs []compiled.Filter
	var tests []func(*object.Object) bool
	var ignored []string
	if e.filterer != nil {
		if t := e.filterer.DefaultFilter(res.Name, p); t != nil {
			tests = append(tests, t)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(p)) {
		if e.dialect.ListParam(k) {
			continue
		}
		if e.filterer != nil {
			if t, ok := e.filterer.Filter(res.Name, k, p[k]); ok {
				tests = append(tests, t)
				continue
			}
		}
		want, or, isText := filterValues(p[k])
		cur, isField := res.Skeleton.Get(k)
		_, nested := cur.(*object.Object)
		_, array := cur.([]any)
		if !isText || !isField || nested && !expandedID(cur) || array {
			ignored = append(ignored, k)
			continue
		}
		if e.isPII(st.PIIVerbatim(), k) {
			want = e.scrub.Token(k, want)
			for i := range or {
				or[i] = e.scrub.Token(k, or[i])
			}
		}
		fs = append(fs, compiled.Filter{Field: k, Want: want, Or: or})
	}
	return fs, tests, ignored
}

// filterValues is what a list parameter filters by: its text, or the
// first text of a list of them (a list sent as its name repeated) and the
// rest in or; ok is false for anything else. A plain text, what nearly
// every filter is, allocates nothing.
func filterValues(v any) (want string, or []string, ok bool) {
	switch t := v.(type) {
	case string:
		return t, nil, true
	case []any:
		if len(t) == 0 {
			return "", nil, false
		}
		texts := make([]string, len(t))
		for i, e := range t {
			s, isText := e.(string)
			if !isText {
				return "", nil, false
			}
			texts[i] = s
		}
		return texts[0], texts[1:], true
	}
	return "", nil, false
}

// expandedID reports whether a skeleton's object is an entity stored
// expanded, which a filter names by its id.
func expandedID(v any) bool {
	o, ok := v.(*object.Object)
	if !ok {
		return false
	}
	_, hasID := o.Get("id")
	return hasID && o.String("object") != "list"
}

// filter keeps the entities every filter and test holds for. A field
// that holds an expanded object compares by its id.
func filter(all []*world.Entity, fs []compiled.Filter, tests []func(*object.Object) bool) []*world.Entity {
	var out []*world.Entity
	for _, e := range all {
		o, err := object.Parse(e.Body())
		if err != nil {
			continue
		}
		if keeps(o, fs, tests) {
			out = append(out, e)
		}
	}
	return out
}

func keeps(o *object.Object, fs []compiled.Filter, tests []func(*object.Object) bool) bool {
	for _, f := range fs {
		v, _ := o.Get(f.Field)
		var s string
		switch t := v.(type) {
		case string:
			s = t
		case *object.Object:
			s = t.String("id")
		default:
			s = valueText(v)
		}
		if s != f.Want && !slices.Contains(f.Or, s) {
			return false
		}
	}
	for _, t := range tests {
		if !t(o) {
			return false
		}
	}
	return true
}
