package inspect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strconv"

	"github.com/wraithdev/wraith/twin/canon"
	"github.com/wraithdev/wraith/twin/format"
)

// The comparisons behind Compare, one per part of a twin.

func manifestChanges(a, b format.Manifest) []Change {
	out := []Change{}
	field := func(name string, va, vb any) {
		if !reflect.DeepEqual(va, vb) {
			out = append(out, change(name, va, vb))
		}
	}
	field("name", a.Name, b.Name)
	field("provider", a.Provider, b.Provider)
	field("upstream", a.Upstream, b.Upstream)
	field("description", a.Description, b.Description)
	field("pii.fields", nonNil(a.PII.Fields), nonNil(b.PII.Fields))
	field("pii.verbatim", nonNil(a.PII.Verbatim), nonNil(b.PII.Verbatim))
	field("fixtures.imports", nonNil(a.Fixtures.Imports), nonNil(b.Fixtures.Imports))
	answer := func(name string, va, vb *format.Answer) {
		if !sameAnswer(va, vb) {
			out = append(out, change(name, va, vb))
		}
	}
	answer("errors.not_found", a.Errors.NotFound, b.Errors.NotFound)
	answer("errors.invalid_request", a.Errors.InvalidRequest, b.Errors.InvalidRequest)
	answer("errors.idempotency", a.Errors.Idempotency, b.Errors.Idempotency)
	answer("errors.rate_limited", a.Errors.RateLimited, b.Errors.RateLimited)
	answer("errors.unexpected_state", a.Errors.UnexpectedState, b.Errors.UnexpectedState)
	return out
}

func routeDiff(a, b []Route) RouteDiff {
	d := RouteDiff{Added: []Route{}, Removed: []Route{}, Changed: []RouteChange{}}
	key := func(r Route) string { return r.Method + " " + r.Template }
	inA := map[string]Route{}
	for _, r := range a {
		inA[key(r)] = r
	}
	inB := map[string]bool{}
	for _, r := range b { // sorted, so every list below is too
		inB[key(r)] = true
		ra, ok := inA[key(r)]
		switch {
		case !ok:
			d.Added = append(d.Added, r)
		case ra.Kind != r.Kind || ra.Resource != r.Resource || ra.Operation != r.Operation || ra.Origin != r.Origin:
			d.Changed = append(d.Changed, RouteChange{Method: r.Method, Template: r.Template, A: ra, B: r})
		}
	}
	for _, r := range a {
		if !inB[key(r)] {
			d.Removed = append(d.Removed, r)
		}
	}
	return d
}

func resourceDiff(a, b []format.Resource) ResourceDiff {
	d := ResourceDiff{Added: []string{}, Removed: []string{}, Changed: []ResourceChange{}}
	inA := map[string]format.Resource{}
	for _, r := range a {
		inA[r.Name] = r
	}
	inB := map[string]bool{}
	for _, r := range b {
		inB[r.Name] = true
		ra, ok := inA[r.Name]
		if !ok {
			d.Added = append(d.Added, r.Name)
			continue
		}
		if ch := resourceChanges(ra, r); len(ch) > 0 {
			d.Changed = append(d.Changed, ResourceChange{Name: r.Name, Changes: ch})
		}
	}
	for _, r := range a {
		if !inB[r.Name] {
			d.Removed = append(d.Removed, r.Name)
		}
	}
	sort.Strings(d.Added)
	sort.Strings(d.Removed)
	sort.Slice(d.Changed, func(i, j int) bool { return d.Changed[i].Name < d.Changed[j].Name })
	return d
}

func resourceChanges(a, b format.Resource) []Change {
	var out []Change
	field := func(name string, va, vb any) {
		if !reflect.DeepEqual(va, vb) {
			out = append(out, change(name, va, vb))
		}
	}
	text := func(name, va, vb string) {
		if !sameJSONText(va, vb) {
			out = append(out, change(name, va, vb))
		}
	}
	field("collection", a.Collection, b.Collection)
	field("item", a.Item, b.Item)
	field("id_prefix", a.IDPrefix, b.IDPrefix)
	text("skeleton", a.Skeleton, b.Skeleton)
	field("timestamps", nonNil(a.Timestamps), nonNil(b.Timestamps))
	field("create", jsonOf(a.Create), jsonOf(b.Create))
	field("update", a.UpdateMethods(), b.UpdateMethods())
	field("delete", a.DeleteMode(), b.DeleteMode())
	text("deleted_body", a.DeletedBody, b.DeletedBody)
	if !sameAnswer(a.NotFound, b.NotFound) {
		out = append(out, change("not_found", a.NotFound, b.NotFound))
	}
	field("immutable", nonNil(a.Immutable), nonNil(b.Immutable))
	actA := map[string]format.Action{}
	for _, x := range a.Actions {
		actA[x.Name] = x
	}
	seen := map[string]bool{}
	for _, x := range b.Actions {
		seen[x.Name] = true
		xa, ok := actA[x.Name]
		switch {
		case !ok:
			out = append(out, change("actions."+x.Name, nil, x))
		case jsonOf(xa) != jsonOf(x):
			out = append(out, change("actions."+x.Name, xa, x))
		}
	}
	for _, x := range a.Actions {
		if !seen[x.Name] {
			out = append(out, change("actions."+x.Name, x, nil))
		}
	}
	return out
}

func exchangeDiff(a, b []*format.Exchange) ExchangeDiff {
	d := ExchangeDiff{Added: []ExchangeRef{}, Removed: []ExchangeRef{}, Changed: []ExchangeChange{}}
	inA := map[string]*format.Exchange{}
	for _, ex := range a {
		inA[exchangeName(ex)] = ex
	}
	inB := map[string]bool{}
	for _, ex := range b { // in recording, then index order: so is every list
		name := exchangeName(ex)
		inB[name] = true
		ref := ExchangeRef{Exchange: name, Method: ex.Request.Method, Path: ex.Request.Path}
		xa, ok := inA[name]
		if !ok {
			d.Added = append(d.Added, ref)
			continue
		}
		if parts := exchangeParts(xa, ex); len(parts) > 0 {
			d.Changed = append(d.Changed, ExchangeChange{ExchangeRef: ref, Parts: parts})
		}
	}
	for _, ex := range a {
		if name := exchangeName(ex); !inB[name] {
			d.Removed = append(d.Removed, ExchangeRef{Exchange: name, Method: ex.Request.Method, Path: ex.Request.Path})
		}
	}
	return d
}

func exchangeName(ex *format.Exchange) string {
	return ex.Recording + "/" + strconv.Itoa(ex.Index)
}

// exchangeParts names the parts of two exchanges that differ. JSON bodies
// compare compacted: indentation is not a change, key order is (it is
// served as recorded).
func exchangeParts(a, b *format.Exchange) []string {
	var parts []string
	part := func(name string, differ bool) {
		if differ {
			parts = append(parts, name)
		}
	}
	part("recorded_at", !a.RecordedAt.Equal(b.RecordedAt))
	part("request.method", a.Request.Method != b.Request.Method)
	part("request.path", a.Request.Path != b.Request.Path)
	part("request.query", a.Request.Query != b.Request.Query)
	part("request.headers", !sameHeaders(a.Request.Headers, b.Request.Headers))
	part("request.body", !bytes.Equal(compact(a.Request.Body), compact(b.Request.Body)))
	part("request.form", a.Request.Form != b.Request.Form)
	part("response.status", a.Response.Status != b.Response.Status)
	part("response.headers", !sameHeaders(a.Response.Headers, b.Response.Headers))
	part("response.body", !bytes.Equal(compact(a.Response.Body), compact(b.Response.Body)))
	part("response.body_text", a.Response.BodyText != b.Response.BodyText)
	return parts
}

func fixtureDiff(a, b map[string]*format.FixtureSet) FixtureDiff {
	d := FixtureDiff{Added: []string{}, Removed: []string{}, Changed: []FixtureChange{}}
	for _, name := range slices.Sorted(maps.Keys(b)) {
		sa, ok := a[name]
		if !ok {
			d.Added = append(d.Added, name)
			continue
		}
		sb := b[name]
		c := FixtureChange{Name: name, Added: []string{}, Removed: []string{}, Changed: []string{}}
		if sa.Description != sb.Description {
			ch := change("description", sa.Description, sb.Description)
			c.Description = &ch
		}
		ea, eb := entities(sa), entities(sb)
		for _, id := range slices.Sorted(maps.Keys(eb)) {
			va, ok := ea[id]
			switch {
			case !ok:
				c.Added = append(c.Added, id)
			case !bytes.Equal(va, eb[id]):
				c.Changed = append(c.Changed, id)
			}
		}
		for _, id := range slices.Sorted(maps.Keys(ea)) {
			if _, ok := eb[id]; !ok {
				c.Removed = append(c.Removed, id)
			}
		}
		if c.Description != nil || len(c.Added)+len(c.Removed)+len(c.Changed) > 0 {
			d.Changed = append(d.Changed, c)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(a)) {
		if _, ok := b[name]; !ok {
			d.Removed = append(d.Removed, name)
		}
	}
	return d
}

// entities maps a set's entity ids to their compacted JSON; with a
// repeated id, the last one counts, as it does when a world is built.
func entities(set *format.FixtureSet) map[string][]byte {
	out := map[string][]byte{}
	for _, e := range set.Entities {
		var head struct {
			ID string `json:"id"`
		}
		json.Unmarshal(e, &head)
		out[head.ID] = compact(e)
	}
	return out
}

func change(field string, a, b any) Change {
	return Change{Field: field, A: rawJSON(a), B: rawJSON(b)}
}

func rawJSON(v any) json.RawMessage {
	if v == nil || (reflect.ValueOf(v).Kind() == reflect.Pointer && reflect.ValueOf(v).IsNil()) {
		return json.RawMessage("null")
	}
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(strconv.Quote(fmt.Sprint(v)))
	}
	return b
}

// jsonOf is v's JSON text, for comparing values holding maps of any.
func jsonOf(v any) string { return string(rawJSON(v)) }

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// sameJSONText compares two JSON texts by their canonical forms, so that
// layout changes in a TOML multi-line string are not changes; text that is
// not JSON compares as it is.
func sameJSONText(a, b string) bool {
	if a == b {
		return true
	}
	ca, errA := canon.JSON([]byte(a))
	cb, errB := canon.JSON([]byte(b))
	return errA == nil && errB == nil && bytes.Equal(ca, cb)
}

func sameAnswer(a, b *format.Answer) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Status == b.Status && sameJSONText(a.Body, b.Body)
}

func sameHeaders(a, b http.Header) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

func compact(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return b
	}
	return buf.Bytes()
}
