package openapi_test

import (
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/dialect/importers"
	"github.com/wraithdev/wraith/twin/openapi"
)

// TestRestBasePathAndMappings: the servers' path, its variables at their
// defaults, prefixes every route; an operation's own servers win; a
// discriminator mapping into another file is dropped rather than the
// description refused, while an external $ref elsewhere still is.
func TestRestBasePathAndMappings(t *testing.T) {
	const spec = `{"openapi":"3.0.0","info":{"title":"Records","version":"1"},
"servers":[{"url":"https://{host}/api/{version}","variables":{"host":{"default":"example.com"},"version":{"default":"2"}}}],
"paths":{
 "/records":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"array","items":{"$ref":"#/components/schemas/Record"}}}}}}}},
 "/records/{id}":{"get":{"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Record"}}}}}}},
 "/health":{"get":{"servers":[{"url":"https://status.example.com"}],"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}}}}}}},
"components":{"schemas":{
 "Record":{"type":"object","properties":{"id":{"type":"string"},"data":{"oneOf":[{"$ref":"#/components/schemas/A"}],"discriminator":{"propertyName":"type","mapping":{"A":"models/records.yml#/a"}}}}},
 "A":{"type":"object","properties":{"type":{"type":"string"}}}}}}`
	res, err := openapi.Import([]byte(spec), openapi.Options{Dialects: importers.All()})
	if err != nil {
		t.Fatalf("want the mapping into another file dropped and the import made, have %v", err)
	}
	if rs := res.Twin.Manifest.Resources; len(rs) != 1 || rs[0].Collection != "/api/2/records" || rs[0].Item != "/api/2/records/{id}" {
		t.Errorf("want the record resource under /api/2, have %+v", rs)
	}
	if rts := res.Twin.Manifest.Routes; len(rts) != 1 || rts[0].Path != "/health" {
		t.Errorf("want GET /health at its own server's path, have %+v", rts)
	}
	external := strings.Replace(spec, `"data":{"oneOf"`, `"other":{"$ref":"models/other.yml#/x"},"data":{"oneOf"`, 1)
	if _, err := openapi.Import([]byte(external), openapi.Options{Dialects: importers.All()}); err == nil || !strings.Contains(err.Error(), "external reference") {
		t.Errorf("an external $ref: want it refused, have %v", err)
	}
}
