package openapi_test

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/dialect/importers"
	"github.com/wraithdev/wraith/twin/engine"
	"github.com/wraithdev/wraith/twin/openapi"
	"github.com/wraithdev/wraith/twin/scrub"
)

// searchSpec is written the way Box writes its search: a oneOf of two
// pages that differ only in what their entries are, so that a page with
// no entries is both and validates against neither branch alone.
const searchSpec = `{"openapi":"3.0.0","info":{"title":"Search","version":"1"},
"paths":{
 "/search":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"oneOf":[
  {"$ref":"#/components/schemas/Results"},{"$ref":"#/components/schemas/ResultsWithLinks"}]}}}}}}}
},
"components":{"schemas":{
 "Results":{"type":"object","properties":{"total_count":{"type":"integer"},"entries":{"type":"array","items":{"$ref":"#/components/schemas/File"}}}},
 "ResultsWithLinks":{"type":"object","properties":{"total_count":{"type":"integer"},"entries":{"type":"array","items":{"$ref":"#/components/schemas/Hit"}}}},
 "File":{"type":"object","required":["id","type"],"properties":{"id":{"type":"string","example":"12345"},"type":{"type":"string","enum":["file"]}}},
 "Hit":{"type":"object","properties":{"type":{"type":"string","example":"search_result"},"link":{"type":"string","example":"https://example.com/s/1"}}}}}}`

// TestRestOneOfSample: the answer of a oneOf whose plain sample matches
// several branches is a sample of one branch that matches that branch
// alone, as the twin serves it.
func TestRestOneOfSample(t *testing.T) {
	res, err := openapi.Import([]byte(searchSpec), openapi.Options{Dialects: importers.All()})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData([]byte(searchSpec))
	if err != nil {
		t.Fatal(err)
	}
	schema := doc.Paths.Value("/search").Get.Responses.Value("200").Value.Content.Get("application/json").Schema.Value
	tw := res.Twin
	e, err := engine.New(tw, engine.Options{Scrubber: scrub.New(scrub.DeriveKey([]byte(tw.Digest)), scrub.Policy{Fields: tw.Manifest.PII.Fields, Verbatim: tw.Manifest.PII.Verbatim})})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e)
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL + "/search")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var page any
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		t.Fatal(err)
	}
	if err := schema.VisitJSON(page); resp.StatusCode != 200 || err != nil {
		t.Fatalf("GET /search: want 200 and a page of one branch, have %d %v: %v", resp.StatusCode, page, err)
	}
	want := `{"entries":[{"link":"https://example.com/s/1","type":"search_result"}]}`
	if have, _ := json.Marshal(page); string(have) != want {
		t.Errorf("GET /search: want %s (the first branch's entries are files, which a hit's schema takes too), have %s", want, have)
	}
}
