package dialect

import (
	"strconv"
	"strings"
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
func (lp LinkPages) List(q *ListQuery) *ListAnswer {
	n := q.Items.Len()
	page, perPage := pageParam(q.Params["page"], 1, 1<<20), pageParam(q.Params["per_page"], lp.PerPage, lp.MaxPerPage)
	last := (n + perPage - 1) / perPage
	start := min((page-1)*perPage, n)
	end := min(start+perPage, n)
	return &ListAnswer{Body: ArrayBody(q.Items, start, end), Link: linkHeader(q, page, last)}
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

// ArrayBody is the JSON array of items[start:end].
func ArrayBody(items Items, start, end int) []byte {
	n := 2
	for i := start; i < end; i++ {
		n += items.BodyLen(i) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i := start; i < end; i++ {
		if i > start {
			b = append(b, ',')
		}
		b = items.AppendBody(b, i)
	}
	return append(b, ']')
}

// linkHeader is next and last when there are later pages, prev and
// first when there are earlier ones; "" when the list fits one page.
func linkHeader(q *ListQuery, page, last int) string {
	if last <= 1 && page <= 1 {
		return ""
	}
	link := func(rel string, n int) string {
		if q.Link == nil {
			return "<" + q.Here.With("page", n) + `>; rel="` + rel + `"`
		}
		return "<" + q.Link("page", n) + `>; rel="` + rel + `"`
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
