package dialect

import (
	"strconv"
	"strings"

	"github.com/wraithdev/wraith/twin/world"
)

// LinkPages pages a list as a bare JSON array by page number: page (from
// 1) and per_page (default PerPage, at most MaxPerPage), with a Link
// header (RFC 8288) of absolute URLs to the next, last, previous and
// first pages.
type LinkPages struct {
	PerPage, MaxPerPage int
}

// List answers q's page. Values that are no positive number are the
// defaults, and per_page is capped: nothing is refused.
func (lp LinkPages) List(q ListQuery) ListAnswer {
	n := len(q.Items)
	page, perPage := pageParam(q.Params["page"], 1, 1<<20), pageParam(q.Params["per_page"], lp.PerPage, lp.MaxPerPage)
	last := (n + perPage - 1) / perPage
	start := min((page-1)*perPage, n)
	end := min(start+perPage, n)
	return ListAnswer{Body: ArrayBody(q.Items[start:end]), Link: linkHeader(q.Here, page, last)}
}

// pageParam reads a page or per_page value: anything that is not a
// positive number is def, and max caps it.
func pageParam(v any, def, max int) int {
	s, _ := v.(string)
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return def
	}
	return min(n, max)
}

// ArrayBody is the JSON array of the entities' bodies.
func ArrayBody(items []*world.Entity) []byte {
	n := 2
	for _, e := range items {
		n += e.BodyLen() + 1
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, e := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = e.AppendBody(b)
	}
	return append(b, ']')
}

// linkHeader is next and last when there are later pages, prev and
// first when there are earlier ones; "" when the list fits one page.
func linkHeader(here Here, page, last int) string {
	if last <= 1 && page <= 1 {
		return ""
	}
	url := here.pages("page")
	link := func(rel string, n int) string {
		return "<" + url(n) + `>; rel="` + rel + `"`
	}
	var parts []string
	if page < last {
		parts = append(parts, link("next", page+1), link("last", last))
	}
	if page > 1 {
		parts = append(parts, link("prev", min(page-1, max(last, 1))), link("first", 1))
	}
	return strings.Join(parts, ", ")
}
