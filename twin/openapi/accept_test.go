package openapi_test

import (
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/openapi"
	"github.com/wraithdev/wraith/twin/reqschema"
)

// TestOverlayAccept: the overlay's accepted parameters are added to the
// operation's request schema, at their place in it; one that names no
// operation is reported, not added.
func TestOverlayAccept(t *testing.T) {
	const spec = `{"openapi":"3.0.0","info":{"title":"Subs","version":"1"},"paths":{
	  "/v1/subs":{"post":{"requestBody":{"content":{"application/json":{"schema":{"type":"object","additionalProperties":false,
	    "properties":{"items":{"type":"array","items":{"type":"object","additionalProperties":false,"properties":{"price":{"type":"string"}}}}}}}}},
	    "responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","properties":{"id":{"type":"string"}}}}}}}}}}}`
	const overlay = `
[[accept]]
op = "POST /v1/subs"
param = "items[].plan"
type = "string"
why = "the provider's SDKs send it"

[[accept]]
op = "POST /v1/nowhere"
param = "x"
type = "string"
why = "a mistake"
`
	res, err := openapi.Import([]byte(spec), openapi.Options{Overlay: []byte(overlay)})
	if err != nil {
		t.Fatal(err)
	}
	f, err := reqschema.Parse(res.Files[format.RequestsFile])
	if err != nil {
		t.Fatal(err)
	}
	idx, err := reqschema.NewIndex(f)
	if err != nil {
		t.Fatal(err)
	}
	op := idx.Lookup("POST", "/v1/subs")
	if op == nil {
		t.Fatal("no schema for POST /v1/subs")
	}
	params := map[string]any{"items": []any{map[string]any{"plan": "gold"}}}
	if prob := reqschema.Validate(op.Params, params, false, nil); prob != nil {
		t.Errorf("items[0][plan]: want accepted, have %+v", prob)
	}
	params = map[string]any{"items": []any{map[string]any{"other": "x"}}}
	if prob := reqschema.Validate(op.Params, params, false, nil); prob == nil {
		t.Error("items[0][other]: want refused (only plan is added)")
	}
	if report := string(res.Files["import-report.json"]); !strings.Contains(report, "overlay accept x") {
		t.Errorf("the accept naming no operation: want it reported, have %s", report)
	}
}
