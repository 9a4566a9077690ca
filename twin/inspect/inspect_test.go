package inspect_test

import (
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/wraithdev/wraith/twin/embedded"
	"github.com/wraithdev/wraith/twin/engine"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/inspect"
	"github.com/wraithdev/wraith/twin/scrub"
)

func loadEmbedded(tb testing.TB, name string) *format.Twin {
	tb.Helper()
	sub, err := fs.Sub(embedded.FS(), name)
	if err != nil {
		tb.Fatal(err)
	}
	t, err := format.Load(sub, "embedded twin "+name)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

func load(tb testing.TB, fsys fs.FS) *format.Twin {
	tb.Helper()
	t, err := format.Load(fsys, "test twin")
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// exchange returns a recorded exchange file.
func exchange(method, path, query string, status int, body string) *fstest.MapFile {
	q := ""
	if query != "" {
		q = fmt.Sprintf(`,"query":%q`, query)
	}
	return &fstest.MapFile{Data: []byte(fmt.Sprintf(`{"format":1,"recorded_at":"2026-10-14T09:12:03Z",
"request":{"method":%q,"path":%q%s},"response":{"status":%d,"body":%s}}`, method, path, q, status, body))}
}

const rulesManifest = `format = 1
name = "rules"

[[routes]]
method = "GET"
path = "/v1/widgets/{id}"      # a resource route already: adds nothing

[[routes]]
method = "GET"
path = "/v1/balance"

[[resources]]
name = "widget"
collection = "/v1/widgets"
item = "/v1/widgets/{id}"
id_prefix = "wid_"
skeleton = '{"id":"","object":"widget"}'
update = ["PUT", "PATCH"]
delete = "none"
[[resources.actions]]
name = "spin"
`

func rulesTwin() fstest.MapFS {
	return fstest.MapFS{
		"twin.toml":            {Data: []byte(rulesManifest)},
		"recordings/a/0.json":  exchange("GET", "/v1/widgets/wid_1", "", 200, `{"id":"wid_1","object":"widget"}`),
		"recordings/a/1.json":  exchange("GET", "/v1/widgets/wid_1", "expand[]=x", 200, `{"id":"wid_1","object":"widget"}`),
		"recordings/a/2.json":  exchange("POST", "/v1/widgets/wid_1/spin", "", 200, `{"id":"wid_1","object":"widget"}`),
		"recordings/b/0.json":  exchange("GET", "/v1/events/evt_1", "", 200, `{"id":"evt_1"}`),
		"recordings/b/1.json":  exchange("GET", "/v1/events/evt_1", "", 404, `{"error":{}}`),
		"recordings/b/2.json":  exchange("DELETE", "/v1/widgets/wid_1", "", 405, `{"error":{}}`),
		"fixtures/three.json":  {Data: []byte(`{"format":1,"description":"d","entities":[{"id":"wid_1","object":"widget"},{"id":"wid_2","object":"widget"},{"id":"evt_1","object":"event"}]}`)},
		"fixtures/empty.json":  {Data: []byte(`{"format":1,"entities":[]}`)},
		"recordings/b/10.json": exchange("GET", "/v1/balance", "", 200, `{"object":"balance"}`),
	}
}

func TestInspectRules(t *testing.T) {
	r, err := inspect.Inspect(load(t, rulesTwin()))
	if err != nil {
		t.Fatal(err)
	}
	want := []inspect.Route{
		{Method: "GET", Template: "/v1/balance", Kind: "plain", Origin: "declared", Exchanges: 1},
		{Method: "GET", Template: "/v1/events/evt_1", Kind: "plain", Origin: "recorded", Exchanges: 2},
		{Method: "GET", Template: "/v1/widgets", Kind: "resource", Resource: "widget", Operation: "list"},
		{Method: "POST", Template: "/v1/widgets", Kind: "resource", Resource: "widget", Operation: "create"},
		{Method: "DELETE", Template: "/v1/widgets/wid_1", Kind: "plain", Origin: "recorded", Exchanges: 1},
		{Method: "GET", Template: "/v1/widgets/{id}", Kind: "resource", Resource: "widget", Operation: "retrieve", Exchanges: 2},
		{Method: "PATCH", Template: "/v1/widgets/{id}", Kind: "resource", Resource: "widget", Operation: "update"},
		{Method: "PUT", Template: "/v1/widgets/{id}", Kind: "resource", Resource: "widget", Operation: "update"},
		{Method: "POST", Template: "/v1/widgets/{id}/spin", Kind: "action", Resource: "widget", Operation: "spin", Exchanges: 1},
	}
	if !reflect.DeepEqual(r.Routes, want) {
		t.Errorf("routes:\nwant %+v\nhave %+v", want, r.Routes)
	}
	if want := (inspect.Coverage{Recorded: 5, Routes: 9, Percent: 55.6}); r.Coverage != want {
		t.Errorf("coverage: want %+v, have %+v", want, r.Coverage)
	}
	wantRes := []inspect.Resource{{Name: "widget", Collection: "/v1/widgets", Item: "/v1/widgets/{id}", IDPrefix: "wid_",
		Update: []string{"PUT", "PATCH"}, Delete: "none", Actions: []string{"spin"}}}
	if !reflect.DeepEqual(r.Resources, wantRes) {
		t.Errorf("resources:\nwant %+v\nhave %+v", wantRes, r.Resources)
	}
	wantFix := []inspect.Fixture{
		{Name: "empty", Entities: 0, Objects: map[string]int{}},
		{Name: "three", Description: "d", Entities: 3, Objects: map[string]int{"widget": 2, "event": 1}},
	}
	if !reflect.DeepEqual(r.Fixtures, wantFix) {
		t.Errorf("fixtures:\nwant %+v\nhave %+v", wantFix, r.Fixtures)
	}
	var recs []string
	for _, rec := range r.Recordings {
		recs = append(recs, fmt.Sprintf("%s:%d", rec.Name, rec.Exchanges))
	}
	if have := strings.Join(recs, " "); have != "a:3 b:4" {
		t.Errorf("recordings: want a:3 b:4, have %s", have)
	}
	if r.RecordedAt == nil || r.RecordedAt.Format("2006-01-02T15:04:05Z07:00") != "2026-10-14T09:12:03Z" {
		t.Errorf("recorded_at: want 2026-10-14T09:12:03Z, have %v", r.RecordedAt)
	}
}

func TestInspectEmbedded(t *testing.T) {
	for _, name := range []string{"checkout", "billing"} {
		t.Run(name, func(t *testing.T) {
			tw := loadEmbedded(t, name)
			r, err := inspect.Inspect(tw)
			if err != nil {
				t.Fatal(err)
			}
			total, recorded := 0, 0
			for _, rt := range r.Routes {
				total += rt.Exchanges
				if rt.Exchanges > 0 {
					recorded++
				}
			}
			if total != len(tw.Exchanges) {
				t.Errorf("exchanges over routes: want %d (every exchange on one route), have %d", len(tw.Exchanges), total)
			}
			if r.Coverage.Recorded != recorded || r.Coverage.Routes != len(r.Routes) {
				t.Errorf("coverage: want %d/%d, have %+v", recorded, len(r.Routes), r.Coverage)
			}
			if !sort.SliceIsSorted(r.Routes, func(i, j int) bool {
				a, b := r.Routes[i], r.Routes[j]
				return a.Template < b.Template || a.Template == b.Template && a.Method < b.Method
			}) {
				t.Error("routes: want them sorted by template, then method")
			}
			if r.Digest != tw.Digest || len(r.Resources) != len(tw.Manifest.Resources) || len(r.Fixtures) != len(tw.Fixtures) {
				t.Errorf("want digest %s, %d resources, %d fixture sets; have %s, %d, %d",
					tw.Digest, len(tw.Manifest.Resources), len(tw.Fixtures), r.Digest, len(r.Resources), len(r.Fixtures))
			}
		})
	}
}

// TestInspectMatchesEngine asks the serving engine about every route
// inspect lists: the engine must answer it under the same route, so the
// two compile routes alike.
func TestInspectMatchesEngine(t *testing.T) {
	for _, tc := range []struct {
		name string
		twin *format.Twin
	}{
		{"rules", load(t, rulesTwin())},
		{"checkout", loadEmbedded(t, "checkout")},
		{"billing", loadEmbedded(t, "billing")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := inspect.Inspect(tc.twin)
			if err != nil {
				t.Fatal(err)
			}
			eng, err := engine.New(tc.twin, engine.Options{
				Scrubber: scrub.New([]byte("0123456789abcdef"), scrub.Policy{}),
				Import:   func(name string) (*format.Twin, error) { return loadEmbedded(t, name), nil },
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, rt := range r.Routes {
				path := strings.NewReplacer("{id}", "x_1").Replace(rt.Template)
				req := httptest.NewRequest(rt.Method, path, nil)
				w := httptest.NewRecorder()
				eng.ServeHTTP(w, req)
				want := rt.Method + " " + rt.Template
				if have := w.Header().Get("X-Wraith-Route"); have != want {
					t.Errorf("%s %s: engine answers as route %q (status %d), inspect says %q", rt.Method, path, have, w.Code, want)
				}
			}
			// And a path no route knows is a miss in both.
			w := httptest.NewRecorder()
			eng.ServeHTTP(w, httptest.NewRequest("GET", "/nowhere/at/all", nil))
			if w.Code != http.StatusNotImplemented {
				t.Errorf("GET /nowhere/at/all: want 501 route-miss, have %d", w.Code)
			}
		})
	}
}

func TestInspectRefuses(t *testing.T) {
	fsys := rulesTwin()
	fsys["recordings/c/0.json"] = exchange("GET", "/v1/trailing/", "", 200, `{}`)
	_, err := inspect.Inspect(load(t, fsys))
	if err == nil || !strings.Contains(err.Error(), "recordings/c/0.json") {
		t.Fatalf("want an error naming recordings/c/0.json, have %v", err)
	}
}
