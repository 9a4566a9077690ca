package engine

import (
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/world"
)

const (
	defaultLimit = 10
	maxLimit     = 100
)

// listParams are the pagination parameters; every other query parameter
// that names a top-level field of the resource filters by equality.
var listParams = map[string]bool{"limit": true, "starting_after": true, "ending_before": true, "expand": true, "page": true, "per_page": true}

// list answers GET {collection} from the session's world, in the
// provider's list envelope. A session that has no fixture and changed
// nothing of this resource gets a recorded list verbatim when one matches.
func (e *Engine) list(st *session.State, req *request, a *answer) {
	res := req.match.Value.res
	if res.ext != nil && (res.ext.array || len(res.ext.parents) > 0) {
		e.listExt(st, req, a)
		return
	}
	if st.World() == e.worlds[""] && !st.HasChanges(res.name) {
		if rec := e.recordedFor(req); rec != nil {
			a.fromRecorded(rec)
			return
		}
	}
	p, ok := e.params(req, a)
	if !ok {
		return
	}
	filters, ignored := e.listFilters(st, res, p)
	all := visible(st, res.name)
	if len(filters) > 0 {
		all = filter(all, filters)
	}
	e.stripeList(a, res, p, all, res.listURL, ignored)
}

// stripeList answers with the page of all that p asks for, in Stripe's
// list envelope: limit is 1 to 100 (default 10), starting_after or
// ending_before name the entity the page starts after or ends before.
// Top-level and parent-scoped lists page alike; url is the envelope's url.
func (e *Engine) stripeList(a *answer, res *resource, p map[string]any, all []*world.Entity, url string, ignored []string) {
	limit := defaultLimit
	if v, ok := p["limit"]; ok {
		s, _ := v.(string)
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxLimit {
			e.invalid(a, "limit", "Invalid limit: must be an integer between 1 and 100")
			return
		}
		limit = n
	}
	after, _ := p["starting_after"].(string)
	before, _ := p["ending_before"].(string)
	if after != "" && before != "" {
		e.invalid(a, "ending_before", "You may only specify one of these parameters: ending_before, starting_after.")
		return
	}
	page, more, ok := paginate(all, limit, after, before)
	if !ok {
		cursor, param := after, "starting_after"
		if before != "" {
			cursor, param = before, "ending_before"
		}
		e.invalid(a, param, "No such "+res.name+": '"+cursor+"'")
		return
	}
	a.status, a.prov, a.ignored = http.StatusOK, ProvHandler, ignored
	a.body = envelope(page, more, url)
}

type fieldFilter struct {
	field string
	want  string
}

// listFilters reads the filters of a list request: PII fields compare by
// token, unless st's session keeps them verbatim (as it stored them).
func (e *Engine) listFilters(st *session.State, res *resource, p map[string]any) ([]fieldFilter, []string) {
	var fs []fieldFilter
	var ignored []string
	for _, k := range slices.Sorted(maps.Keys(p)) {
		if listParams[k] {
			continue
		}
		s, isString := p[k].(string)
		cur, isField := res.skeleton.Get(k)
		_, nested := cur.(*object.Object)
		_, array := cur.([]any)
		if !isString || !isField || nested || array {
			ignored = append(ignored, k)
			continue
		}
		if e.isPII(st.PIIVerbatim(), k) {
			s = e.scrub.Token(k, s)
		}
		fs = append(fs, fieldFilter{field: k, want: s})
	}
	return fs, ignored
}

// visible returns the session's entities of a resource, newest first:
// its starting world with its changes applied, and what it created.
func visible(st *session.State, resource string) []*world.Entity {
	base := st.World().List(resource)
	if !st.HasChanges(resource) {
		return base
	}
	out := make([]*world.Entity, 0, len(base)+4)
	for _, e := range base {
		cur := st.Get(e.ID)
		if !cur.Deleted {
			out = append(out, cur)
		}
	}
	for _, e := range st.Changed(resource) {
		if st.World().Get(e.ID) == nil && !e.Deleted {
			out = append(out, e)
		}
	}
	world.SortNewestFirst(out)
	return out
}

func filter(all []*world.Entity, fs []fieldFilter) []*world.Entity {
	var out []*world.Entity
	for _, e := range all {
		o, err := object.Parse(e.Body())
		if err != nil {
			continue
		}
		keep := true
		for _, f := range fs {
			v, _ := o.Get(f.field)
			s, isString := v.(string)
			if !isString {
				s = valueText(v)
			}
			if s != f.want {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, e)
		}
	}
	return out
}

// paginate cuts one page. ok is false when a cursor names no entity.
func paginate(all []*world.Entity, limit int, after, before string) (page []*world.Entity, more, ok bool) {
	start, end := 0, len(all)
	switch {
	case after != "":
		i := indexOf(all, after)
		if i < 0 {
			return nil, false, false
		}
		start = i + 1
		if end-start > limit {
			end = start + limit
		}
		return all[start:end], end < len(all), true
	case before != "":
		i := indexOf(all, before)
		if i < 0 {
			return nil, false, false
		}
		end = i
		if end-start > limit {
			start = end - limit
		}
		return all[start:end], start > 0, true
	}
	if end > limit {
		end = limit
	}
	return all[:end], end < len(all), true
}

func indexOf(all []*world.Entity, id string) int {
	for i, e := range all {
		if e.ID == id {
			return i
		}
	}
	return -1
}

// envelope writes the provider's list envelope around entity bodies.
func envelope(page []*world.Entity, more bool, url string) []byte {
	n := 64 + len(url)
	for _, e := range page {
		n += e.BodyLen() + 1
	}
	b := make([]byte, 0, n)
	b = append(b, `{"object":"list","data":[`...)
	for i, e := range page {
		if i > 0 {
			b = append(b, ',')
		}
		b = e.AppendBody(b)
	}
	b = append(b, `],"has_more":`...)
	b = strconv.AppendBool(b, more)
	b = append(b, `,"url":`...)
	b = object.AppendString(b, url)
	return append(b, '}')
}
