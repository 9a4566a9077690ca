package openapi_test

import (
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/dialect/importers"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/openapi"
)

// toyDialect is a dialect of a test's own: it detects x-toy, claims GET
// /toys for a resource of its own and declares every other operation with
// a fixed answer, so a test sees which hooks the pipeline called and what
// it made of their results.
type toyDialect struct{}

func (toyDialect) Name() string                { return "toy" }
func (toyDialect) Detect(doc *openapi3.T) bool { return doc.Extensions["x-toy"] != nil }
func (toyDialect) Begin(im *openapi.Importer) (openapi.Hooks, error) {
	return toyHooks{im}, nil
}

type toyHooks struct{ im *openapi.Importer }

func (h toyHooks) Resources() ([]format.Resource, error) {
	h.im.Claim("GET", "/toys", "toy")
	return []format.Resource{{Name: "toy", Collection: "/toys", Item: "/toys/{id}", IDPrefix: "toy_", Skeleton: `{"id":""}`}}, nil
}

func (h toyHooks) Errors() format.Errors {
	return format.Errors{NotFound: &format.Answer{Status: 404, Body: `{"toy_error":"{id}"}`}}
}

func (h toyHooks) Routes(unclaimed []openapi.Operation) []format.Route {
	var out []format.Route
	for _, o := range unclaimed {
		out = append(out, format.Route{Method: o.Method, Path: o.Path, Body: `{"toy":true}`})
	}
	return out
}

// toySpec is a description of GET /toys and GET /ping, with x-toy when
// toy is set.
func toySpec(toy bool) []byte {
	ext := ""
	if toy {
		ext = `"x-toy":true,`
	}
	op := `{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","required":["ok"],"properties":{"ok":{"type":"boolean"}}}}}}}}}`
	return []byte(`{"openapi":"3.0.3",` + ext + `"info":{"title":"Toys","version":"1"},"paths":{"/toys":` + op + `,"/ping":` + op + `}}`)
}

// TestDialectChosen: the overlay's dialect key names the dialect, else the
// first dialect that detects the description, else rest; twin.toml names
// the one taken, and its hooks' resources, errors and routes are what the
// pipeline writes, with the report's counts from the claims.
func TestDialectChosen(t *testing.T) {
	all := append([]openapi.Dialect{toyDialect{}}, importers.All()...)
	for _, tt := range []struct {
		name     string
		spec     []byte
		overlay  string
		dialects []openapi.Dialect
		want     string
	}{
		{"detected", toySpec(true), "", all, "toy"},
		{"not detected", toySpec(false), "", all, "rest"},
		{"named by the overlay", toySpec(false), "dialect = \"toy\"\n", all, "toy"},
		{"the overlay over detection", toySpec(true), "dialect = \"rest\"\n", all, "rest"},
		{"no dialects given", toySpec(true), "", nil, "rest"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := openapi.Import(tt.spec, openapi.Options{Overlay: []byte(tt.overlay), Dialects: tt.dialects})
			if err != nil {
				t.Fatal(err)
			}
			m := res.Twin.Manifest
			if m.Dialect != tt.want || !strings.Contains(string(res.Files["twin.toml"]), "dialect = '"+tt.want+"'") {
				t.Fatalf("dialect: want %s written in twin.toml, have %q:\n%s", tt.want, m.Dialect, res.Files["twin.toml"])
			}
			if tt.want != "toy" {
				return
			}
			c := res.Report.Counts
			if c.Operations != 2 || c.Stateful != 1 || c.Template != 1 || c.Unserved != 0 || c.Resources != 1 {
				t.Errorf("counts: want 2 operations, 1 stateful (claimed), 1 template, 1 resource; have %+v", c)
			}
			if len(m.Resources) != 1 || m.Resources[0].IDPrefix != "toy_" || len(m.Routes) != 1 || m.Routes[0].Body != `{"toy":true}` || m.Errors.NotFound.Body != `{"toy_error":"{id}"}` {
				t.Errorf("want the toy hooks' resource, route and error written, have %+v %+v %+v", m.Resources, m.Routes, m.Errors)
			}
		})
	}
}

// TestDialectUnknown: an overlay naming a dialect the import does not
// know fails, naming the ones it does.
func TestDialectUnknown(t *testing.T) {
	_, err := openapi.Import(toySpec(false), openapi.Options{Overlay: []byte("dialect = \"soap\"\n"), Dialects: importers.All()})
	if err == nil || !strings.Contains(err.Error(), `dialect "soap"`) || !strings.Contains(err.Error(), "github, stripe, rest") {
		t.Fatalf("want an error naming soap and the known dialects, have %v", err)
	}
}

// TestGitHubDialectNeedsAnchors: the github dialect anchors each
// resource on the operation that reads it, so an overlay entry without
// get_op is refused, saying so.
func TestGitHubDialectNeedsAnchors(t *testing.T) {
	ov := "dialect = \"github\"\n[[resources]]\nname = \"toy\"\n"
	_, err := openapi.Import(toySpec(false), openapi.Options{Overlay: []byte(ov), Dialects: importers.All()})
	if err == nil || !strings.Contains(err.Error(), "get_op is required") {
		t.Fatalf("want get_op required, have %v", err)
	}
}
