package engine

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/wraithdev/wraith/twin/session"
	"github.com/wraithdev/wraith/twin/world"
)

// GitHub-style paging: page (from 1) and per_page (default 30, at most
// 100), with a Link header of absolute URLs.
const (
	defaultPerPage = 30
	maxPerPage     = 100
)

// listExt answers a list of a resource with an ext: the entities of the
// request's parent scope, filtered by field parameters and list_defaults,
// as a bare array paged by Link headers or in the Stripe envelope.
func (e *Engine) listExt(st *session.State, req *request, a *answer) {
	res := req.match.Value.res
	x := res.ext
	p, ok := e.params(req, a)
	if !ok {
		return
	}
	filters, ignored := e.listFilters(st, res, p)
	for _, d := range x.listDefaults {
		if v, given := p[d.field]; given {
			if v == "all" {
				filters = dropFilter(filters, d.field)
			}
			continue
		}
		filters = append(filters, d)
	}
	all := visible(st, res.name)
	if len(x.parents) > 0 {
		want := x.scopeOf(req.match)
		scoped := make([]*world.Entity, 0, len(all))
		for _, ent := range all {
			if inScope(ent.Scope, want) {
				scoped = append(scoped, ent)
			}
		}
		all = scoped
	}
	if len(filters) > 0 {
		all = filter(all, filters)
	}
	if !x.array {
		// A parent-scoped list (a customer's tax ids) pages as Stripe's
		// top-level lists do; its url is the path it was asked at.
		e.stripeList(a, res, p, all, req.path, ignored)
		return
	}
	a.status, a.prov, a.ignored = http.StatusOK, ProvHandler, ignored
	pageNo, perPage := pageParam(p["page"], 1, 1<<20), pageParam(p["per_page"], defaultPerPage, maxPerPage)
	last := (len(all) + perPage - 1) / perPage
	start := min((pageNo-1)*perPage, len(all))
	end := min(start+perPage, len(all))
	a.body = arrayBody(all[start:end])
	a.link = linkHeader(req, pageNo, last)
}

func dropFilter(fs []fieldFilter, field string) []fieldFilter {
	out := fs[:0]
	for _, f := range fs {
		if f.field != field {
			out = append(out, f)
		}
	}
	return out
}

// pageParam reads a page or per_page value as GitHub does: anything that
// is not a positive number is the default, and per_page is capped.
func pageParam(v any, def, max int) int {
	s, _ := v.(string)
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return def
	}
	return min(n, max)
}

func arrayBody(page []*world.Entity) []byte {
	n := 2
	for _, e := range page {
		n += e.BodyLen() + 1
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, e := range page {
		if i > 0 {
			b = append(b, ',')
		}
		b = e.AppendBody(b)
	}
	return append(b, ']')
}

// linkHeader builds GitHub's Link header: next and last when there are
// later pages, first and prev when there are earlier ones. nil when the
// list fits one page.
func linkHeader(req *request, page, last int) []string {
	if last <= 1 && page <= 1 {
		return nil
	}
	q, _ := url.ParseQuery(req.query)
	base := req.baseURL() + req.path + "?"
	link := func(rel string, n int) string {
		q.Set("page", strconv.Itoa(n))
		return "<" + base + q.Encode() + `>; rel="` + rel + `"`
	}
	var parts []string
	if page < last {
		parts = append(parts, link("next", page+1), link("last", last))
	}
	if page > 1 {
		parts = append(parts, link("prev", min(page-1, max(last, 1))), link("first", 1))
	}
	if len(parts) == 0 {
		return nil
	}
	return []string{joinCommaSpace(parts)}
}

func joinCommaSpace(parts []string) string {
	s := parts[0]
	for _, p := range parts[1:] {
		s += ", " + p
	}
	return s
}
