// Package stripe is Stripe's dialect (SPEC §13): form-encoded parameters
// with bracketed keys, metadata that a write merges and "" clears, list
// envelopes ({"object":"list","data":[...],"has_more":...,"url":...})
// paged by cursors, prefixed string ids, and Bearer or Basic keys.
package stripe

import (
	"net/http"
	"strconv"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/object"
	"github.com/wraithdev/wraith/twin/world"
)

// Dialect is Stripe's.
type Dialect struct {
	dialect.Base
	b behaviours // behave.go
}

var (
	_ dialect.Dialect = Dialect{}
	_ dialect.Handler = Dialect{}
	_ dialect.Ticker  = Dialect{}
)

// New returns Stripe's dialect.
func New() Dialect { return Dialect{b: newBehaviours()} }

// Name is "stripe".
func (Dialect) Name() string { return "stripe" }

// Defaults: creates and deletes answer 200 (a delete with the deleted
// object), ids are prefixed strings, and every object names its type.
func (Dialect) Defaults() dialect.Defaults {
	return dialect.Defaults{CreateStatus: http.StatusOK, DeleteStatus: http.StatusOK, IDKind: "string", Typed: true}
}

// Reserved is expand: it names the fields to expand in the answer.
func (Dialect) Reserved(p string) bool { return p == "expand" }

// Cleared: metadata="" empties the metadata, any other field="" unsets
// it.
func (Dialect) Cleared(field string) any {
	if field == "metadata" {
		return object.New(0)
	}
	return nil
}

// ListField: a list parameter sent into a list envelope (items[0][price]
// into a subscription's items) replaces its data, and its total_count.
func (Dialect) ListField(cur *object.Object) (string, string, bool) {
	if cur.String("object") != "list" {
		return "", "", false
	}
	return "data", "total_count", true
}

// listParams page or shape a list; page and per_page page the lists a
// twin declares bare arrays.
var listParams = map[string]bool{"limit": true, "starting_after": true, "ending_before": true, "expand": true, "page": true, "per_page": true, "query": true}

// ListParam reports whether p pages or shapes a list.
func (Dialect) ListParam(p string) bool { return listParams[p] }

const (
	defaultLimit = 10
	maxLimit     = 100
)

// List answers a page in the list envelope: limit is 1 to 100 (default
// 10), starting_after or ending_before name the entity the page starts
// after or ends before. A list the twin declares a bare array pages by
// page numbers instead.
func (d Dialect) List(q dialect.ListQuery) (dialect.ListAnswer, *dialect.Refusal) {
	if q.Array {
		return dialect.LinkPages{PerPage: 30, MaxPerPage: 100}.List(q), nil
	}
	if q.Search {
		return search(q)
	}
	limit := defaultLimit
	if v, ok := q.Params["limit"]; ok {
		s, _ := v.(string)
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxLimit {
			return dialect.ListAnswer{}, &dialect.Refusal{Param: "limit", Message: "Invalid limit: must be an integer between 1 and 100"}
		}
		limit = n
	}
	after, _ := q.Params["starting_after"].(string)
	before, _ := q.Params["ending_before"].(string)
	if after != "" && before != "" {
		return dialect.ListAnswer{}, &dialect.Refusal{Param: "ending_before", Message: "You may only specify one of these parameters: ending_before, starting_after."}
	}
	start, end, more, ok := paginate(q.Items, limit, after, before)
	if !ok {
		cursor, param := after, "starting_after"
		if before != "" {
			cursor, param = before, "ending_before"
		}
		return dialect.ListAnswer{}, &dialect.Refusal{Param: param, Message: d.Word(dialect.Problem{Kind: dialect.NoSuchObject, Param: param, Object: q.Object, Value: cursor})}
	}
	return dialect.ListAnswer{Body: envelope(q.Items[start:end], more, q.URL)}, nil
}

// paginate cuts one page. ok is false when a cursor names no item.
func paginate(items []*world.Entity, limit int, after, before string) (start, end int, more, ok bool) {
	start, end = 0, len(items)
	switch {
	case after != "":
		i := indexOf(items, after)
		if i < 0 {
			return 0, 0, false, false
		}
		start = i + 1
		if end-start > limit {
			end = start + limit
		}
		return start, end, end < len(items), true
	case before != "":
		i := indexOf(items, before)
		if i < 0 {
			return 0, 0, false, false
		}
		end = i
		if end-start > limit {
			start = end - limit
		}
		return start, end, start > 0, true
	}
	if end > limit {
		end = limit
	}
	return 0, end, end < len(items), true
}

func indexOf(items []*world.Entity, id string) int {
	for i, e := range items {
		if e.ID == id {
			return i
		}
	}
	return -1
}

// envelope writes the list envelope around the page's bodies.
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
