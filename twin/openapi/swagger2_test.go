package openapi_test

import (
	"errors"
	"testing"

	"github.com/wraithdev/wraith/twin/dialect/importers"
	"github.com/wraithdev/wraith/twin/openapi"
)

// TestSwagger2Converted: a Swagger 2.0 document, JSON or YAML, is
// converted to OpenAPI 3 and imported like one: its definitions are the
// resource's schema and its basePath the routes' prefix.
func TestSwagger2Converted(t *testing.T) {
	for _, c := range []struct{ name, spec string }{
		{"json", `{"swagger":"2.0","info":{"title":"Old Pets","version":"1"},"basePath":"/v2","produces":["application/json"],
"paths":{"/pets":{"get":{"responses":{"200":{"description":"ok","schema":{"type":"array","items":{"$ref":"#/definitions/Pet"}}}}},
 "post":{"parameters":[{"in":"body","name":"body","schema":{"$ref":"#/definitions/Pet"}}],"responses":{"201":{"description":"ok","schema":{"$ref":"#/definitions/Pet"}}}}},
 "/pets/{petId}":{"get":{"parameters":[{"in":"path","name":"petId","required":true,"type":"integer"}],"responses":{"200":{"description":"ok","schema":{"$ref":"#/definitions/Pet"}}}}}},
"definitions":{"Pet":{"type":"object","required":["id"],"properties":{"id":{"type":"integer"},"name":{"type":"string"}}}}}`},
		{"yaml", "swagger: \"2.0\"\ninfo: {title: Old Pets, version: \"1\"}\nbasePath: /v2\nproduces: [application/json]\npaths:\n  /pets:\n    get:\n      responses:\n        \"200\": {description: ok, schema: {type: array, items: {$ref: \"#/definitions/Pet\"}}}\n    post:\n      parameters: [{in: body, name: body, schema: {$ref: \"#/definitions/Pet\"}}]\n      responses:\n        \"201\": {description: ok, schema: {$ref: \"#/definitions/Pet\"}}\n  /pets/{petId}:\n    get:\n      parameters: [{in: path, name: petId, required: true, type: integer}]\n      responses:\n        \"200\": {description: ok, schema: {$ref: \"#/definitions/Pet\"}}\ndefinitions:\n  Pet: {type: object, required: [id], properties: {id: {type: integer}, name: {type: string}}}\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := openapi.Import([]byte(c.spec), openapi.Options{Dialects: importers.All()})
			if err != nil {
				t.Fatal(err)
			}
			rs := res.Twin.Manifest.Resources
			if len(rs) != 1 || rs[0].Name != "pet" || rs[0].Collection != "/v2/pets" || rs[0].IDKind != "integer" {
				t.Fatalf("want one resource pet at /v2/pets with integer ids, have %+v", rs)
			}
			if src := res.Report.Source; src.OpenAPI[:2] != "3." {
				t.Errorf("report source: want the converted 3.x version, have %q", src.OpenAPI)
			}
		})
	}
}

// TestSwagger2Unimportable: a Swagger 2.0 document whose conversion has
// nothing to serve is refused as one, with the reason.
func TestSwagger2Unimportable(t *testing.T) {
	_, err := openapi.Import([]byte(`{"swagger":"2.0","info":{"title":"t","version":"1"},"paths":{}}`), openapi.Options{Dialects: importers.All()})
	if !errors.Is(err, openapi.ErrSwagger2) {
		t.Errorf("want ErrSwagger2, have %v", err)
	}
}
