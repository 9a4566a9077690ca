package openapi_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/wraithdev/wraith/twin/dialect/importers"
	"github.com/wraithdev/wraith/twin/engine"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/openapi"
	"github.com/wraithdev/wraith/twin/scrub"
)

// withPath is a description of GET /ping and GET path, in the Stripe style
// or (github) with x-github on every operation.
func withPath(path string, github bool) []byte {
	ext := ""
	if github {
		ext = `"x-github":{},`
	}
	var params []string
	for _, seg := range strings.Split(path, "/") {
		if i, j := strings.Index(seg, "{"), strings.Index(seg, "}"); i >= 0 && j > i {
			params = append(params, fmt.Sprintf(`{"name":%q,"in":"path","required":true,"schema":{"type":"string"}}`, seg[i+1:j]))
		}
	}
	op := func(params string) string {
		return `{"get":{` + ext + `"parameters":[` + params + `],"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","required":["ok"],"properties":{"ok":{"type":"boolean"}}}}}}}}}`
	}
	return []byte(`{"openapi":"3.0.3","info":{"title":"Files","version":"1"},"paths":{` +
		fmt.Sprintf("%q:%s,", path, op(strings.Join(params, ","))) + `"/ping":` + op("") + `}}`)
}

// TestImportSkipsUnservablePaths: a path the twin's router cannot serve is
// left out of the import with a report line, and the rest is served; the
// route table of a twin.toml declaring that route (Twin.Routes, which
// serve compiles) refuses it. So what import writes, serve serves. Import used to write such a
// route, and serve then refused the whole twin. (A GitHub-style import
// names a segment's parameters as one, x{id} as {id}, which the
// router serves; only too many parameters are left to skip there.)
func TestImportSkipsUnservablePaths(t *testing.T) {
	for _, tt := range []struct {
		path   string
		github bool
	}{
		{"/files/x{id}", false},
		{"/{a}/{b}/{c}/{d}/{e}", false},
		{"/items/{item-id}", false},
		{"/{a}/{b}/{c}/{d}/{e}", true},
	} {
		path, github := tt.path, tt.github
		t.Run(fmt.Sprintf("%s github=%v", path, github), func(t *testing.T) {
			opts := openapi.Options{Dialects: importers.All()}
			if github {
				opts.Overlay = []byte("[twin]\nname = \"files\"\n")
			}
			res, err := openapi.Import(withPath(path, github), opts)
			if err != nil {
				t.Fatalf("want the import, have %v", err)
			}
			if c := res.Report.Counts; c.Skipped != 1 || c.Template != 1 {
				t.Errorf("counts: want 1 skipped and 1 template, have %+v", c)
			}
			found := false
			for _, u := range res.Report.Unresolved {
				found = found || (u.Subject == "GET "+path && strings.HasPrefix(u.Reason, "not served: "))
			}
			if !found {
				t.Errorf("report: want an unresolved GET %s saying it is not served, have %+v", path, res.Report.Unresolved)
			}
			if strings.Contains(string(res.Files["twin.toml"]), path) {
				t.Errorf("twin.toml declares %s:\n%s", path, res.Files["twin.toml"])
			}
			status, _, body := send(t, newEngine(t, res.Twin), "GET", "/ping", "")
			if status != 200 || body["ok"] != false {
				t.Errorf("GET /ping: want 200 {\"ok\":false}, have %d %v", status, body)
			}
			manifest := fmt.Sprintf("format = 1\nname = \"files\"\n[[routes]]\nmethod = \"GET\"\npath = %q\nbody = '{}'\n", path)
			tw, err := format.Load(fstest.MapFS{"twin.toml": {Data: []byte(manifest)}}, "files")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tw.Routes(); err == nil {
				t.Errorf("the route table of a twin declaring GET %s: want the route refused, as serve refuses it, have none", path)
			}
		})
	}
}

// TestImportRecordedAt: an imported twin is as of its overlay's [source]
// date, else the date its info.version starts with, else the
// description's modification time, and serves that date; with none its
// age is unknown. Imported twins said X-Wraith-Recorded-At
// 0001-01-01T00:00:00Z.
func TestImportRecordedAt(t *testing.T) {
	modified := time.Date(2026, 3, 4, 5, 6, 7, 890, time.UTC)
	spec := func(version string) []byte {
		return []byte(strings.Replace(string(withPath("/pong", false)), `"version":"1"`, fmt.Sprintf(`"version":%q`, version), 1))
	}
	for _, tt := range []struct {
		name string
		spec []byte
		opts openapi.Options
		want string
	}{
		{"the overlay's date wins", spec("2026-08-26.dahlia"), openapi.Options{Dialects: importers.All(), Overlay: []byte("[source]\ndate = \"2026-09-09\"\n"), Modified: modified}, "2026-09-09T00:00:00Z"},
		{"the version's date", spec("2026-08-26.dahlia"), openapi.Options{Dialects: importers.All(), Modified: modified}, "2026-08-26T00:00:00Z"},
		{"the file's time", spec("1.2.3"), openapi.Options{Dialects: importers.All(), Modified: modified}, "2026-03-04T05:06:07Z"},
		{"none", spec("20260826"), openapi.Options{Dialects: importers.All()}, "0001-01-01T00:00:00Z"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := openapi.Import(tt.spec, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if have := res.Twin.RecordedAt.Format(time.RFC3339); have != tt.want {
				t.Errorf("recorded_at: want %s, have %s", tt.want, have)
			}
			at, _ := time.Parse(time.RFC3339, tt.want)
			e, err := engine.New(res.Twin, engine.Options{
				Scrubber: scrub.New(scrub.DeriveKey([]byte(res.Twin.Digest)), scrub.Policy{}),
				Now:      func() time.Time { return at.Add(time.Hour) },
			})
			if err != nil {
				t.Fatal(err)
			}
			w := httptest.NewRecorder()
			e.ServeHTTP(w, httptest.NewRequest("GET", "/ping", nil))
			wantAge := "3600"
			if at.Year() == 1 {
				wantAge = "0" // unknown
			}
			if have := w.Header().Get("X-Wraith-Recorded-At"); have != tt.want {
				t.Errorf("X-Wraith-Recorded-At: want %s, have %s", tt.want, have)
			}
			if have := w.Header().Get("X-Wraith-Twin-Age"); have != wantAge {
				t.Errorf("X-Wraith-Twin-Age: want %s, have %s", wantAge, have)
			}
		})
	}
}

// TestImportOverlayDateRefused: an overlay's [source] date that is no
// date is an error naming it.
func TestImportOverlayDateRefused(t *testing.T) {
	_, err := openapi.Import(withPath("/pong", false), openapi.Options{Dialects: importers.All(), Overlay: []byte("[source]\ndate = \"last tuesday\"\n")})
	if err == nil || !strings.Contains(err.Error(), `[source] date "last tuesday"`) {
		t.Errorf("want an error naming the date, have %v", err)
	}
}
