package openapi

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// skeletonDoc has the shapes a skeleton meets: nullable and required
// members, an enum with and without a default, a list envelope whose url
// is fixed by a pattern, an expandable field (anyOf id or object), a
// write-only property, and an example that must not be read.
const skeletonDoc = `{"openapi":"3.0.0","info":{"title":"t","version":"1"},"paths":{},
"components":{"schemas":{
 "thing":{"type":"object","required":["id","object"],"example":{"id":"thing_123","name":"leaked"},"properties":{
  "id":{"type":"string"},
  "object":{"type":"string","enum":["thing"]},
  "name":{"type":"string","nullable":true,"example":"leaked"},
  "count":{"type":"integer","example":7},
  "ratio":{"type":"number"},
  "active":{"type":"boolean"},
  "kind":{"type":"string","enum":["good","service"],"default":"service"},
  "mode":{"type":"string","enum":["a","b"]},
  "tags":{"type":"array","items":{"type":"string"}},
  "metadata":{"type":"object","additionalProperties":{"type":"string"}},
  "owner":{"anyOf":[{"type":"string"},{"$ref":"#/components/schemas/owner"}]},
  "amount_decimal":{"type":"string","format":"decimal"},
  "parent":{"anyOf":[{"type":"string"},{"$ref":"#/components/schemas/owner"}],"nullable":true},
  "settings":{"type":"object","required":["footer","limit"],"properties":{
   "footer":{"type":"string","nullable":true},
   "limit":{"type":"integer"},
   "optional":{"type":"string"}}},
  "accounts":{"type":"object","required":["object","data","has_more","url"],"properties":{
   "object":{"type":"string","enum":["list"]},
   "data":{"type":"array","items":{"$ref":"#/components/schemas/owner"}},
   "has_more":{"type":"boolean"},
   "url":{"type":"string","pattern":"^/v1/accounts"}}},
  "secret":{"type":"string","writeOnly":true}}},
 "owner":{"type":"object","required":["id","login"],"example":{"id":"own_1","login":"octocat"},"properties":{
  "id":{"type":"string"},"login":{"type":"string"}}}}}}`

func TestSkeletonFromSchema(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData([]byte(skeletonDoc))
	if err != nil {
		t.Fatal(err)
	}
	im := newImporter(newSampler(context.Background()), doc, &Overlay{}, Options{})
	have := Compact(im.Skeleton(doc.Components.Schemas["thing"]))
	want := `{"accounts":{"data":[],"has_more":false,"object":"list","url":"/v1/accounts"},"active":false,"amount_decimal":"0","count":0,"id":"","kind":"service","metadata":{},"mode":"a","name":null,"object":"thing","owner":"","parent":null,"ratio":0,"settings":{"footer":null,"limit":0},"tags":[]}`
	if have != want {
		t.Errorf("skeleton:\nwant %s\nhave %s", want, have)
	}
	// Every value it holds validates against its schema: it is what a new
	// entity answers before the request sets anything.
	var v any
	if err := json.Unmarshal([]byte(have), &v); err != nil {
		t.Fatal(err)
	}
	if err := doc.Components.Schemas["thing"].Value.VisitJSON(v); err != nil {
		t.Errorf("the skeleton does not validate against its schema: %v", err)
	}
}

func TestEmpty(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData([]byte(skeletonDoc))
	if err != nil {
		t.Fatal(err)
	}
	im := newImporter(newSampler(context.Background()), doc, &Overlay{}, Options{})
	props := doc.Components.Schemas["thing"].Value.Properties
	tests := []struct {
		prop, want string
	}{
		{"name", `null`},
		{"kind", `"service"`},
		{"mode", `"a"`},
		{"count", `0`},
		{"active", `false`},
		{"tags", `[]`},
		{"settings", `{"footer":null,"limit":0}`},
		{"owner", `""`},
		{"amount_decimal", `"0"`},
	}
	for _, tt := range tests {
		if have := Compact(im.Empty(props[tt.prop])); have != tt.want {
			t.Errorf("%s: want %s, have %s", tt.prop, tt.want, have)
		}
	}
}

// TestExamplesLeaveOutReferences: an example value holding a "$ref" (as
// GitHub's description writes references to components/examples inside
// values) is not an example to serve or build on.
func TestExamplesLeaveOutReferences(t *testing.T) {
	mt := &openapi3.MediaType{Examples: openapi3.Examples{
		"default": {Value: &openapi3.Example{Value: map[string]any{"$ref": "#/components/examples/issue"}}},
		"nested":  {Value: &openapi3.Example{Value: map[string]any{"configuration": map[string]any{"$ref": "#/components/examples/c"}}}},
		"list":    {Value: &openapi3.Example{Value: []any{map[string]any{"repository": map[string]any{"$ref": "#/x"}}}}},
		"plain":   {Value: &openapi3.Example{Value: map[string]any{"id": 1.0, "ref": "main"}}},
	}}
	have := Examples(mt)
	if want := `[{"id":1,"ref":"main"}]`; Compact(have) != want {
		t.Errorf("want %s, have %s", want, Compact(have))
	}
}

func TestWithCreateDefaults(t *testing.T) {
	const doc = `{"openapi":"3.0.0","info":{"title":"t","version":"1"},"paths":{"/repos":{"post":{
 "requestBody":{"content":{"application/json":{"schema":{"type":"object","properties":{
  "has_issues":{"type":"boolean","default":true},
  "visibility":{"type":"string","default":"secret"},
  "name":{"type":"string"},
  "auto_init":{"type":"boolean","default":true}}}}}},
 "responses":{"201":{"description":"ok"}}}}},
"components":{"schemas":{"repo":{"type":"object","properties":{
 "has_issues":{"type":"boolean"},
 "visibility":{"type":"string","enum":["public","private"]},
 "name":{"type":"string"}}}}}}`
	d, err := openapi3.NewLoader().LoadFromData([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	im := newImporter(newSampler(context.Background()), d, &Overlay{}, Options{})
	ref := d.Components.Schemas["repo"]
	skel := im.Skeleton(ref)
	im.WithCreateDefaults(skel, ref, d.Paths.Value("/repos").Post)
	// has_issues takes its default; visibility's default is no value the
	// answer allows, and auto_init is no field of the answer: both stay out.
	if have, want := Compact(skel), `{"has_issues":true,"name":"","visibility":"public"}`; have != want {
		t.Errorf("want %s, have %s", want, have)
	}
}
