package openapi_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/dialect/importers"
	"github.com/wraithdev/wraith/twin/engine"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/openapi"
	"github.com/wraithdev/wraith/twin/scrub"
)

func importFile(tb testing.TB, path string) (*openapi.Result, *format.Twin) {
	tb.Helper()
	spec, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	res, err := openapi.Import(spec, openapi.Options{Dialects: importers.All(), Name: "shop"})
	if err != nil {
		tb.Fatalf("import %s: %v", path, err)
	}
	tw, err := format.Load(res.FS(), path)
	if err != nil {
		tb.Fatalf("the import of %s does not load: %v", path, err)
	}
	return res, tw
}

func newEngine(tb testing.TB, tw *format.Twin) *engine.Engine {
	tb.Helper()
	e, err := engine.New(tw, engine.Options{Scrubber: scrub.New(scrub.DeriveKey([]byte(tw.Digest)), scrub.Policy{}), UnknownEntity: engine.NotFound})
	if err != nil {
		tb.Fatalf("engine: %v", err)
	}
	return e
}

// servedEngine is the engine serve makes of tw: the twin's [pii]
// verbatim names are not tokenized, and an entity the session lacks is
// not found.
func servedEngine(tb testing.TB, tw *format.Twin) *engine.Engine {
	tb.Helper()
	e, err := engine.New(tw, engine.Options{Scrubber: scrub.New(scrub.DeriveKey([]byte(tw.Digest)), scrub.Policy{Fields: tw.Manifest.PII.Fields, Verbatim: tw.Manifest.PII.Verbatim}), UnknownEntity: engine.NotFound})
	if err != nil {
		tb.Fatalf("engine: %v", err)
	}
	return e
}

func send(tb testing.TB, h http.Handler, method, path, form string) (int, string, map[string]any) {
	tb.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(form))
	if form != "" {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var m map[string]any
	json.Unmarshal(w.Body.Bytes(), &m)
	return w.Code, w.Header().Get("X-Wraith-Provenance"), m
}

// TestImportShop imports one small API in each form a user may hand over
// and serves the result.
func TestImportShop(t *testing.T) {
	for _, file := range []string{"testdata/shop.json", "testdata/shop30.yaml", "testdata/shop31.yaml"} {
		t.Run(file, func(t *testing.T) {
			res, tw := importFile(t, file)
			c := res.Report.Counts
			if c.Resources != 1 || c.Stateful != 6 || c.Template != 1 || c.Operations != 7 {
				t.Errorf("counts: want 1 resource, 6 stateful and 1 template of 7 operations, have %+v", c)
			}
			if len(tw.Manifest.Resources) != 1 {
				t.Fatalf("resources: want widget, have %+v", tw.Manifest.Resources)
			}
			r := tw.Manifest.Resources[0]
			if r.Name != "widget" || r.IDPrefix != "wid_" || r.Delete != "tombstone" || r.Item != "/v1/widgets/{id}" || len(r.Actions) != 1 || r.Actions[0].Name != "activate" {
				t.Errorf("widget: want prefix wid_ (voted from the example), tombstone delete, action activate; have %+v", r)
			}
			e := newEngine(t, tw)
			status, prov, w := send(t, e, "POST", "/v1/widgets", "color=red&name=Lamp")
			id, _ := w["id"].(string)
			if status != 200 || prov != "handler" || !strings.HasPrefix(id, "wid_") || w["color"] != "red" || w["status"] != "inactive" {
				t.Fatalf("create: want 200 handler wid_... color red, status inactive; have %d %s %v", status, prov, w)
			}
			if status, _, a := send(t, e, "POST", "/v1/widgets/"+id+"/activate", "status=active"); status != 200 || a["status"] != "active" {
				t.Errorf("activate: want status active, have %d %v", status, a)
			}
			if status, _, l := send(t, e, "GET", "/v1/widgets", ""); status != 200 || l["object"] != "list" || len(l["data"].([]any)) != 1 {
				t.Errorf("list: want a list of one, have %d %v", status, l)
			}
			if status, _, d := send(t, e, "DELETE", "/v1/widgets/"+id, ""); status != 200 || d["deleted"] != true {
				t.Errorf("delete: want the tombstone, have %d %v", status, d)
			}
			if status, prov, s := send(t, e, "GET", "/v1/status", ""); status != 200 || prov != "template" || s["object"] != "status" || s["healthy"] != false {
				t.Errorf("template: want the sampled status object, have %d %s %v", status, prov, s)
			}
			status, _, nf := send(t, e, "GET", "/v1/widgets/wid_nope", "")
			errObj, _ := nf["error"].(map[string]any)
			if status != 404 || errObj["type"] != "invalid_request_error" || errObj["code"] != "resource_missing" {
				t.Errorf("not found: want 404 in the spec's error shape, have %d %v", status, nf)
			}
		})
	}
}

func TestSwagger2Refused(t *testing.T) {
	for _, file := range []string{"testdata/swagger2.json", "testdata/swagger2.yaml"} {
		spec, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := openapi.Import(spec, openapi.Options{Dialects: importers.All()}); !errors.Is(err, openapi.ErrSwagger2) {
			t.Errorf("%s: want ErrSwagger2, have %v", file, err)
		}
	}
}

// TestImportDeterministic imports the same documents again and again: the
// files, byte for byte, and so the digest, must not change.
func TestImportDeterministic(t *testing.T) {
	for _, file := range []string{"testdata/shop.json", "testdata/shop31.yaml"} {
		first, tw := importFile(t, file)
		for i := 0; i < 5; i++ {
			again, tw2 := importFile(t, file)
			if tw2.Digest != tw.Digest {
				t.Fatalf("%s: import %d: digest %s, first %s", file, i, tw2.Digest, tw.Digest)
			}
			for _, p := range first.Paths() {
				if string(first.Files[p]) != string(again.Files[p]) {
					t.Fatalf("%s: %s differs between imports", file, p)
				}
			}
		}
	}
}
