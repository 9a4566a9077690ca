package engine_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wraithdev/wraith/twin/dialect"
	"github.com/wraithdev/wraith/twin/engine"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/scrub"
)

// toy is a dialect no provider speaks, defined here and nowhere else: ids
// "wid-0001", "wid-0002" from a counter; lists as {"items":[...],
// "count":N,"next":offset|null} paged by offset and size; refusals as
// {"toy":{...}} with words of its own; 201 creates.
type toy struct{ dialect.Base }

func (toy) Name() string { return "toy" }

func (toy) Defaults() dialect.Defaults {
	return dialect.Defaults{CreateStatus: http.StatusCreated, DeleteStatus: http.StatusNoContent, IDKind: "string"}
}

func (toy) NewID(src dialect.IDSource, kind, prefix string) any {
	return fmt.Sprintf("%s-%04d", prefix, src.Next("toy ids"))
}

func (toy) ListParam(p string) bool { return p == "offset" || p == "size" }

func (toy) List(q dialect.ListQuery) (dialect.ListAnswer, *dialect.Refusal) {
	offset, size := 0, 2
	for name, dst := range map[string]*int{"offset": &offset, "size": &size} {
		if v, ok := q.Params[name].(string); ok {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return dialect.ListAnswer{}, &dialect.Refusal{Param: name, Message: "toy wants a count for " + name}
			}
			*dst = n
		}
	}
	n := len(q.Items)
	start, end := min(offset, n), min(offset+size, n)
	b := []byte(`{"items":`)
	b = append(b, dialect.ArrayBody(q.Items[start:end])...)
	b = append(b, `,"count":`...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, `,"next":`...)
	if end < n {
		b = strconv.AppendInt(b, int64(end), 10)
	} else {
		b = append(b, "null"...)
	}
	return dialect.ListAnswer{Body: append(b, '}')}, nil
}

func (toy) Word(p dialect.Problem) string {
	if p.Kind == dialect.InvalidInteger {
		return "toy cannot count " + strconv.Quote(p.Value)
	}
	return "toy refuses: " + dialect.Base{}.Word(p)
}

func (toy) Errors() map[string]dialect.Shape {
	return map[string]dialect.Shape{
		"invalid_request": {Status: http.StatusUnprocessableEntity, Body: `{"toy":{"complaint":"{message}","field":"{param}"}}`},
		"not_found":       {Status: http.StatusNotFound, Body: `{"toy":{"missing":"{id}","kind":"{object}"}}`},
		"validation":      {Status: http.StatusUnprocessableEntity, Body: `{"toy":{"field":"{param}","problem":"{code}"}}`},
	}
}

// toyTwin names no dialect of its own: the engine is given the toy.
const toyTwin = `format = 1
name = "toys"

[[resources]]
name = "widget"
collection = "/widgets"
item = "/widgets/{id}"
id_prefix = "wid"
required = ["label"]
skeleton = '{"id":"","label":"","size":0}'
`

// TestToyDialect serves a twin in a dialect defined by this test alone,
// through the engine's public API: the ids, the list envelope and paging,
// the error shapes and the words are all the toy's.
func TestToyDialect(t *testing.T) {
	tw, err := format.Load(fstest.MapFS{"twin.toml": {Data: []byte(toyTwin)}}, "toys")
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(tw, engine.Options{
		Dialect:       toy{},
		UnknownEntity: engine.NotFound,
		Scrubber:      scrub.New(scrub.DeriveKey([]byte(tw.Digest)), scrub.Policy{}),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e)
	defer srv.Close()
	send := func(method, path, form string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(form))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Wraith-Session", "toy-1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(b)
	}
	for i, name := range []string{"cog", "gear", "spring"} {
		status, body := send("POST", "/widgets", "label="+name+"&size="+strconv.Itoa(i+1))
		want := fmt.Sprintf(`{"id":"wid-%04d","label":%q,"size":%d}`, i+1, name, i+1)
		if status != http.StatusCreated || body != want {
			t.Fatalf("create %s: want 201 %s, have %d %s", name, want, status, body)
		}
	}
	for _, tc := range []struct {
		name, method, path, form string
		status                   int
		want                     string
	}{
		{"first page", "GET", "/widgets", "", 200,
			`{"items":[{"id":"wid-0003","label":"spring","size":3},{"id":"wid-0002","label":"gear","size":2}],"count":3,"next":2}`},
		{"last page", "GET", "/widgets?offset=2", "", 200,
			`{"items":[{"id":"wid-0001","label":"cog","size":1}],"count":3,"next":null}`},
		{"a list refused in the toy's words and shape", "GET", "/widgets?size=many", "", 422,
			`{"toy":{"complaint":"toy wants a count for size","field":"size"}}`},
		{"a bad integer", "POST", "/widgets", "label=x&size=big", 422,
			`{"toy":{"complaint":"toy cannot count \"big\"","field":"size"}}`},
		{"an unchangeable field", "POST", "/widgets/wid-0001", "id=wid-9", 422,
			"{\"toy\":{\"complaint\":\"toy refuses: You cannot change `id`.\",\"field\":\"id\"}}"},
		{"a missing required field", "POST", "/widgets", "size=1", 422,
			`{"toy":{"field":"label","problem":"missing_field"}}`},
		{"an unknown item", "GET", "/widgets/wid-0099", "", 404,
			`{"toy":{"missing":"wid-0099","kind":"widget"}}`},
		{"an update", "POST", "/widgets/wid-0002", "size=20", 200,
			`{"id":"wid-0002","label":"gear","size":20}`},
		{"a delete", "DELETE", "/widgets/wid-0003", "", 204, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := send(tc.method, tc.path, tc.form)
			if status != tc.status || body != tc.want {
				t.Errorf("%s %s: want %d %s, have %d %s", tc.method, tc.path, tc.status, tc.want, status, body)
			}
			if tc.want != "" && !json.Valid([]byte(body)) {
				t.Errorf("the answer is no JSON: %s", body)
			}
		})
	}
}
