package openapi_test

import (
	"strconv"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/dialect/importers"
	"github.com/wraithdev/wraith/twin/openapi"
)

// schemesSpec is written the way Jira writes its security schemes: the
// entity keyed by an integer id, whose create answers a stub that names
// the new scheme's id as a string.
const schemesSpec = `{"openapi":"3.0.1","info":{"title":"Schemes","version":"1"},
"paths":{
 "/schemes":{
  "get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","properties":{"values":{"type":"array","items":{"$ref":"#/components/schemas/Scheme"}}}}}}}}},
  "post":{"requestBody":{"content":{"application/json":{"schema":{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}}}},
   "responses":{"201":{"description":"created","content":{"application/json":{"schema":{"$ref":"#/components/schemas/SchemeId"}}}}}}},
 "/schemes/{id}":{
  "parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer"}}],
  "get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Scheme"}}}}}}}
},
"components":{"schemas":{
 "Scheme":{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"},"self":{"type":"string"}}},
 "SchemeId":{"type":"object","additionalProperties":false,"required":["id"],"properties":{"id":{"type":"string"},"self":{"type":"string"}}}}}}`

// TestRestCreateStub: a create that answers a stub of the entity is
// inferred with a create_body that answers the stub's fields from the
// new entity, the integer id as the string the stub says; the entity
// itself is whole on its read.
func TestRestCreateStub(t *testing.T) {
	res, err := openapi.Import([]byte(schemesSpec), openapi.Options{Dialects: importers.All()})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Twin.Manifest
	if len(m.Resources) != 1 {
		t.Fatalf("resources: want scheme, have %+v", m.Resources)
	}
	if want, have := `{"id":"{id}","self":"$.self"}`, m.Resources[0].CreateBody; want != have {
		t.Errorf("create_body: want %s, have %s", want, have)
	}
	tw := res.Twin
	e := servedEngine(t, tw)
	status, created := sendJSON(t, e, "POST", "/schemes", `{"name":"strict"}`)
	id, isText := created["id"].(string)
	if status != 201 || !isText || id == "" || len(created) != 2 || created["name"] != nil {
		t.Fatalf("create: want 201 {id: the new id as text, self}, have %d %v", status, created)
	}
	status, read := sendJSON(t, e, "GET", "/schemes/"+id, "")
	if n, _ := read["id"].(float64); status != 200 || read["name"] != "strict" || n == 0 {
		t.Errorf("read: want 200 and the whole scheme, its id a number, have %d %v", status, read)
	}
}

// filesSpec is written the way OpenAI writes its files: a delete that
// answers {id, object, deleted} rather than the file.
const filesSpec = `{"openapi":"3.0.0","info":{"title":"Files","version":"1"},
"paths":{
 "/files":{
  "get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","properties":{"data":{"type":"array","items":{"$ref":"#/components/schemas/File"}},"object":{"type":"string"}}}}}}}},
  "post":{"requestBody":{"content":{"application/json":{"schema":{"type":"object","required":["purpose"],"properties":{"purpose":{"type":"string"}}}}}},
   "responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/File"}}}}}}},
 "/files/{file_id}":{
  "parameters":[{"name":"file_id","in":"path","required":true,"schema":{"type":"string"}}],
  "get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/File"}}}}}},
  "delete":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/DeleteFileResponse"}}}}}}}
},
"components":{"schemas":{
 "File":{"type":"object","required":["id","purpose"],"properties":{"id":{"type":"string"},"purpose":{"type":"string"},"bytes":{"type":"integer"}}},
 "DeleteFileResponse":{"type":"object","required":["id","object","deleted"],"properties":{"id":{"type":"string"},"object":{"type":"string"},"deleted":{"type":"boolean"}}}}}}`

// TestRestDeletedBody: a delete that answers another schema than the
// entity is inferred with a deleted_body naming the deleted entity and
// answered so; the read after it is still a 404.
func TestRestDeletedBody(t *testing.T) {
	res, err := openapi.Import([]byte(filesSpec), openapi.Options{Dialects: importers.All()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Twin.Manifest.Resources) != 1 {
		t.Fatalf("resources: want file, have %+v", res.Twin.Manifest.Resources)
	}
	if want, have := `{"deleted":true,"id":"{id}","object":""}`, res.Twin.Manifest.Resources[0].DeletedBody; want != have {
		t.Errorf("deleted_body: want %s, have %s", want, have)
	}
	tw := res.Twin
	e := servedEngine(t, tw)
	_, file := sendJSON(t, e, "POST", "/files", `{"purpose":"fine-tune"}`)
	id, _ := file["id"].(string)
	status, del := sendJSON(t, e, "DELETE", "/files/"+id, "")
	if status != 200 || del["id"] != id || del["deleted"] != true || del["purpose"] != nil {
		t.Errorf("delete: want 200 {id, object, deleted: true}, have %d %v", status, del)
	}
	if status, _ := sendJSON(t, e, "GET", "/files/"+id, ""); status != 404 {
		t.Errorf("read after delete: want 404, have %d", status)
	}
}

// termsSpec is written the way Box writes its terms of service: the
// create declares another schema (a Task) than the entity its read
// answers, whose type is an enum of its own.
const termsSpec = `{"openapi":"3.0.0","info":{"title":"Terms","version":"1"},
"paths":{
 "/terms":{
  "get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","properties":{"entries":{"type":"array","items":{"$ref":"#/components/schemas/Terms"}}}}}}}}},
  "post":{"requestBody":{"content":{"application/json":{"schema":{"type":"object","required":["text"],"properties":{"text":{"type":"string"}}}}}},
   "responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Task"}}}}}}},
 "/terms/{id}":{
  "parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],
  "get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Terms"}}}}}}}
},
"components":{"schemas":{
 "Terms":{"type":"object","required":["id","type"],"properties":{"id":{"type":"string"},"type":{"type":"string","enum":["terms"]},"text":{"type":"string"}}},
 "Task":{"type":"object","required":["id","type"],"properties":{"id":{"type":"string"},"type":{"type":"string","enum":["task"]},"action":{"type":"string","enum":["review"]}}}}}}`

// TestRestCreateStubEnum: a create stub takes the entity's field only
// where the stub's enum lists what the entity holds; the type the stub
// names by an enum of its own is its sample, so the create's answer is
// the schema the create declares, keyed by the new entity's id.
func TestRestCreateStubEnum(t *testing.T) {
	res, err := openapi.Import([]byte(termsSpec), openapi.Options{Dialects: importers.All()})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Twin.Manifest
	if len(m.Resources) != 1 {
		t.Fatalf("resources: want terms, have %+v", m.Resources)
	}
	if want, have := `{"action":"review","id":"$.id","type":"task"}`, m.Resources[0].CreateBody; want != have {
		t.Errorf("create_body: want %s, have %s", want, have)
	}
	tw := res.Twin
	e := servedEngine(t, tw)
	doc, err := openapi3.NewLoader().LoadFromData([]byte(termsSpec))
	if err != nil {
		t.Fatal(err)
	}
	status, created := sendJSON(t, e, "POST", "/terms", `{"text":"be kind"}`)
	if err := doc.Components.Schemas["Task"].Value.VisitJSON(created); status != 200 || err != nil {
		t.Fatalf("create: want 200 and a Task, have %d %v (%v)", status, created, err)
	}
	id, _ := created["id"].(string)
	status, read := sendJSON(t, e, "GET", "/terms/"+id, "")
	if err := doc.Components.Schemas["Terms"].Value.VisitJSON(read); status != 200 || read["text"] != "be kind" || err != nil {
		t.Errorf("read of the created id: want 200 and the terms sent, have %d %v (%v)", status, read, err)
	}
}

// jiraProjectsSpec is written the way Jira writes its projects: the entity
// keyed by a string id ("10000"), whose create answers a stub that
// numbers it.
const jiraProjectsSpec = `{"openapi":"3.0.1","info":{"title":"Projects","version":"1"},
"paths":{
 "/project":{
  "post":{"requestBody":{"content":{"application/json":{"schema":{"type":"object","required":["key","name"],"properties":{"key":{"type":"string"},"name":{"type":"string"}}}}}},
   "responses":{"201":{"description":"created","content":{"application/json":{"schema":{"$ref":"#/components/schemas/ProjectIdentifiers"}}}}}}},
 "/project/{projectIdOrKey}":{
  "parameters":[{"name":"projectIdOrKey","in":"path","required":true,"schema":{"type":"string"}}],
  "get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Project"}}}}}}}
},
"components":{"schemas":{
 "Project":{"type":"object","properties":{"id":{"type":"string"},"key":{"type":"string"},"name":{"type":"string"},"self":{"type":"string"}}},
 "ProjectIdentifiers":{"type":"object","additionalProperties":false,"required":["id","key","self"],"properties":{"id":{"type":"integer","format":"int64"},"key":{"type":"string"},"self":{"type":"string"}}}}}}`

// TestRestCreateStubNumbersKey: a stub that numbers the key the entity
// holds as a string makes the resource's ids digits, answered by the
// stub as the number they are; the read of that number's text is the
// entity, its id the string.
func TestRestCreateStubNumbersKey(t *testing.T) {
	res, err := openapi.Import([]byte(jiraProjectsSpec), openapi.Options{Dialects: importers.All()})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Twin.Manifest
	if len(m.Resources) != 1 {
		t.Fatalf("resources: want project, have %+v", m.Resources)
	}
	r := m.Resources[0]
	if want, have := `{"id":"$.id as number","key":"$.key","self":"$.self"}`, r.CreateBody; want != have || r.IDKind != "digits" || r.IDPrefix != "" {
		t.Errorf("create_body and ids: want %s with id_kind digits and no prefix, have %s, %q, %q", want, have, r.IDKind, r.IDPrefix)
	}
	facts := map[string]string{}
	for _, in := range res.Report.Resources {
		if in.Resource == r.Name {
			facts[in.Fact] = in.Value
		}
	}
	if _, prefixed := facts["id_prefix"]; prefixed || facts["id_kind"] != "digits" {
		t.Errorf("import report: want id_kind digits and no id_prefix for %s, have %v", r.Name, facts)
	}
	doc, err := openapi3.NewLoader().LoadFromData([]byte(jiraProjectsSpec))
	if err != nil {
		t.Fatal(err)
	}
	e := servedEngine(t, res.Twin)
	status, created := sendJSON(t, e, "POST", "/project", `{"key":"EX","name":"Example"}`)
	if err := doc.Components.Schemas["ProjectIdentifiers"].Value.VisitJSON(created); status != 201 || err != nil || created["key"] != "EX" {
		t.Fatalf("create: want 201 and ProjectIdentifiers for EX, have %d %v (%v)", status, created, err)
	}
	n, _ := created["id"].(float64)
	id := strconv.FormatFloat(n, 'f', -1, 64)
	status, read := sendJSON(t, e, "GET", "/project/"+id, "")
	if err := doc.Components.Schemas["Project"].Value.VisitJSON(read); status != 200 || err != nil || read["id"] != id || read["name"] != "Example" {
		t.Errorf("read of the created id: want 200 and the project, its id %q, have %d %v (%v)", id, status, read, err)
	}
}
