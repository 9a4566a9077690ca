package openapi_test

import (
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/dialect/importers"
	"github.com/wraithdev/wraith/twin/openapi"
)

// filtersSpec is written the way Jira writes its filters: the read
// declares no 404 but says its 400 is the answer for a filter not found,
// with no body of its own; the API's errors are an ErrorCollection.
const filtersSpec = `{"openapi":"3.0.1","info":{"title":"Filters","version":"1"},
"paths":{
 "/filters":{
  "post":{"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Filter"}}}},
   "responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Filter"}}}},
    "400":{"description":"Returned if the request is invalid.","content":{"application/json":{"schema":{"$ref":"#/components/schemas/ErrorCollection"}}}}}}},
 "/filters/{id}":{
  "parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],
  "get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Filter"}}}},
   "400":{"description":"Returned if the filter is not found or the user does not have permission to view it."},
   "401":{"description":"Returned if the authentication credentials are incorrect or missing."}}}}
},
"components":{"schemas":{
 "Filter":{"type":"object","properties":{"id":{"type":"string","readOnly":true},"name":{"type":"string"}}},
 "ErrorCollection":{"type":"object","properties":{"errorMessages":{"type":"array","items":{"type":"string"}},"status":{"type":"integer"}}}}}}`

// TestRestNotFoundStatus: a read that declares no 404 and says another
// 4xx answers an entity not found is inferred with that not-found
// answer, in the API's error schema, and served so.
func TestRestNotFoundStatus(t *testing.T) {
	res, err := openapi.Import([]byte(filtersSpec), openapi.Options{Dialects: importers.All()})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Twin.Manifest
	if len(m.Resources) != 1 {
		t.Fatalf("resources: want filter, have %+v (report %+v)", m.Resources, res.Report.Unresolved)
	}
	nf := m.Resources[0].NotFound
	if want := `{"errorMessages":["No such {object}: '{id}'"],"status":400}`; nf == nil || nf.Status != 400 || nf.Body != want {
		t.Fatalf("filter not_found: want 400 %s, have %+v", want, nf)
	}
	tw := res.Twin
	e := servedEngine(t, tw)
	status, created := sendJSON(t, e, "POST", "/filters", `{"name":"mine"}`)
	id, _ := created["id"].(string)
	if status != 200 || id == "" {
		t.Fatalf("create: want 200 with an id, have %d %v", status, created)
	}
	if status, read := sendJSON(t, e, "GET", "/filters/"+id, ""); status != 200 || read["name"] != "mine" {
		t.Errorf("read: want 200 and the filter, have %d %v", status, read)
	}
	status, missing := sendJSON(t, e, "GET", "/filters/filter_0", "")
	if msgs, _ := missing["errorMessages"].([]any); status != 400 || len(msgs) != 1 || missing["status"] != float64(400) {
		t.Errorf("read of a filter the session lacks: want 400 {errorMessages: [one], status: 400}, have %d %v", status, missing)
	}
}

// commentsSpec is written the way Directus writes its errors: an array
// of error objects, each with its message and an extensions object.
const commentsSpec = `{"openapi":"3.0.1","info":{"title":"Comments","version":"1"},
"paths":{
 "/comments":{
  "post":{"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Comment"}}}},
   "responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Comment"}}}},
    "401":{"$ref":"#/components/responses/UnauthorizedError"}}}},
 "/comments/{id}":{
  "parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],
  "get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Comment"}}}},
   "401":{"$ref":"#/components/responses/UnauthorizedError"}}}}
},
"components":{
 "responses":{"UnauthorizedError":{"description":"Error: Unauthorized request.","content":{"application/json":{"schema":{"type":"object","properties":{"errors":{"type":"array","items":{"$ref":"#/components/schemas/Error"}}}}}}}},
 "schemas":{
 "Comment":{"type":"object","properties":{"id":{"type":"string","readOnly":true},"comment":{"type":"string"}}},
 "Error":{"type":"object","required":["message","extensions"],"properties":{"message":{"type":"string"},"extensions":{"type":"object","required":["code"],"properties":{"code":{"type":"string"}}}}}}}}`

// TestRestErrorsArray: an error schema that says its sentence in an
// array of error objects answers one such object with the sentence,
// not problem details the API never gives.
func TestRestErrorsArray(t *testing.T) {
	res, err := openapi.Import([]byte(commentsSpec), openapi.Options{Dialects: importers.All()})
	if err != nil {
		t.Fatal(err)
	}
	e := servedEngine(t, res.Twin)
	status, missing := sendJSON(t, e, "GET", "/comments/comments_0", "")
	errs, _ := missing["errors"].([]any)
	if status != 404 || len(errs) != 1 || len(missing) != 1 {
		t.Fatalf("read of a comment the session lacks: want 404 {errors: [one]}, have %d %v", status, missing)
	}
	first, _ := errs[0].(map[string]any)
	ext, _ := first["extensions"].(map[string]any)
	if msg, _ := first["message"].(string); !strings.Contains(msg, "comments_0") || ext == nil {
		t.Errorf("the error: want its message naming comments_0 beside extensions, have %v", first)
	}
}
