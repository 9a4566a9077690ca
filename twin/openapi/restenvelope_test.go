package openapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/dialect/importers"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/openapi"
)

// tasksSpec is written the way Asana writes its description: every
// entity answered inside "data", write bodies sent inside it too, keys
// named gid, and references to other objects sent as their gid and
// answered as the object.
const tasksSpec = `{"openapi":"3.0.0","info":{"title":"Tasks","version":"1"},
"servers":[{"url":"https://app.example.com/api/1.0"}],
"paths":{
 "/tasks":{
  "get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","properties":{"data":{"type":"array","items":{"$ref":"#/components/schemas/Task"}},"next_page":{"type":"object","nullable":true}}}}}}}},
  "post":{"requestBody":{"content":{"application/json":{"schema":{"type":"object","properties":{"data":{"$ref":"#/components/schemas/TaskRequest"}}}}}},
   "responses":{"201":{"description":"created","content":{"application/json":{"schema":{"type":"object","properties":{"data":{"$ref":"#/components/schemas/Task"}}}}}}}}},
 "/tasks/{task_gid}":{
  "parameters":[{"name":"task_gid","in":"path","required":true,"schema":{"type":"string"}}],
  "get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","properties":{"data":{"$ref":"#/components/schemas/Task"}}}}}}}},
  "put":{"requestBody":{"content":{"application/json":{"schema":{"type":"object","properties":{"data":{"$ref":"#/components/schemas/TaskRequest"}}}}}},
   "responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","properties":{"data":{"$ref":"#/components/schemas/Task"}}}}}}}},
  "delete":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","properties":{"data":{"type":"object"}}}}}}}}}
},
"components":{"schemas":{
 "TaskRequest":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"workspace":{"type":"string","description":"the workspace's gid"}}},
 "Workspace":{"type":"object","properties":{"gid":{"type":"string","example":"12345"},"resource_type":{"type":"string","example":"workspace"},"name":{"type":"string"}}},
 "Task":{"type":"object","properties":{"gid":{"type":"string"},"resource_type":{"type":"string","example":"task"},"name":{"type":"string"},"workspace":{"allOf":[{"$ref":"#/components/schemas/Workspace"}],"nullable":true}}}}}}`

// TestRestItemEnvelope: an entity answered inside "data" is inferred as
// a resource whose item envelope is data; served, its create, read,
// update and delete answer inside it and take their bodies out of it,
// the list's page is the data member, a workspace sent as its gid is
// answered as the workspace, and a read after the delete is a bare 404.
func TestRestItemEnvelope(t *testing.T) {
	res, err := openapi.Import([]byte(tasksSpec), openapi.Options{Dialects: importers.All()})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Twin.Manifest
	if len(m.Resources) != 1 {
		t.Fatalf("resources: want task, have %+v (report %+v)", m.Resources, res.Report.Unresolved)
	}
	r := m.Resources[0]
	for _, c := range []struct {
		field      string
		want, have any
	}{
		{"name", "task", r.Name},
		{"item_envelope", "data", r.ItemEnvelope},
		{"key", "gid", r.Key},
		{"list_key", "data", r.ListKey},
		{"required", "name", strings.Join(r.Required, ",")},
	} {
		if c.want != c.have {
			t.Errorf("task %s: want %v, have %v", c.field, c.want, c.have)
		}
	}
	tw := res.Twin
	e := servedEngine(t, tw)
	const coll = "/api/1.0/tasks"
	status, created := sendJSON(t, e, "POST", coll, `{"data":{"name":"write","workspace":"777"}}`)
	task := inside(created)
	gid, _ := task["gid"].(string)
	ws, _ := task["workspace"].(map[string]any)
	if status != 201 || gid == "" || task["name"] != "write" || ws["gid"] != "777" || ws["resource_type"] != "workspace" {
		t.Fatalf("create: want 201 {data: the task, its workspace {gid: 777, resource_type: workspace}}, have %d %v", status, created)
	}
	if status, bad := sendJSON(t, e, "POST", coll, `{"data":{"workspace":"777"}}`); status != 400 {
		t.Errorf("create without the name its envelope requires: want 400, have %d %v", status, bad)
	}
	item := coll + "/" + gid
	if status, read := sendJSON(t, e, "GET", item, ""); status != 200 || inside(read)["name"] != "write" {
		t.Errorf("read: want 200 {data: the task}, have %d %v", status, read)
	}
	if status, up := sendJSON(t, e, "PUT", item, `{"data":{"name":"ship"}}`); status != 200 || inside(up)["name"] != "ship" || inside(up)["gid"] != gid {
		t.Errorf("update: want 200 {data: the task renamed}, have %d %v", status, up)
	}
	status, list := sendJSON(t, e, "GET", coll, "")
	if page, _ := list["data"].([]any); status != 200 || len(page) != 1 {
		t.Errorf("list: want 200 with the task in data, have %d %v", status, list)
	} else if entry, _ := page[0].(map[string]any); entry["gid"] != gid {
		t.Errorf("list: want the bare task as data's entry, have %v", page[0])
	}
	if status, del := sendJSON(t, e, "DELETE", item, ""); status != 200 || del["data"] == nil {
		t.Errorf("delete: want 200 {data: ...}, have %d %v", status, del)
	}
	if status, nf := sendJSON(t, e, "GET", item, ""); status != 404 || nf["data"] != nil {
		t.Errorf("read after delete: want a 404 outside the envelope, have %d %v", status, nf)
	}
}

// inside is an answer's data member.
func inside(m map[string]any) map[string]any {
	d, _ := m["data"].(map[string]any)
	return d
}

func sendJSON(tb testing.TB, h http.Handler, method, path, body string) (int, map[string]any) {
	tb.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var m map[string]any
	json.Unmarshal(w.Body.Bytes(), &m)
	return w.Code, m
}

// endpointsSpec is written the way DigitalOcean writes its CDN
// endpoints: the entity answered inside "endpoint", which is also the
// name of one of its fields, a host name sent in the bare create body.
const endpointsSpec = `{"openapi":"3.0.0","info":{"title":"CDN","version":"1"},
"paths":{
 "/endpoints":{
  "get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","properties":{"endpoints":{"type":"array","items":{"$ref":"#/components/schemas/Endpoint"}}}}}}}}},
  "post":{"requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Endpoint"}}}},
   "responses":{"201":{"description":"created","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Wrapped"}}}}}}},
 "/endpoints/{id}":{
  "parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],
  "get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Wrapped"}}}}}}}
},
"components":{"schemas":{
 "Wrapped":{"type":"object","properties":{"endpoint":{"$ref":"#/components/schemas/Endpoint"}}},
 "Endpoint":{"type":"object","required":["origin"],"properties":{"id":{"type":"string","readOnly":true},"origin":{"type":"string","format":"hostname"},"endpoint":{"type":"string","format":"hostname","readOnly":true}}}}}}`

// TestRestEnvelopeNamesAField: a create body whose member of the
// envelope's name is a string is a bare body, not an envelope: the
// create requires what that body requires and takes its fields.
func TestRestEnvelopeNamesAField(t *testing.T) {
	res, err := openapi.Import([]byte(endpointsSpec), openapi.Options{Dialects: importers.All()})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Twin.Manifest
	if len(m.Resources) != 1 {
		t.Fatalf("resources: want endpoint, have %+v (report %+v)", m.Resources, res.Report.Unresolved)
	}
	if r := m.Resources[0]; r.ItemEnvelope != "endpoint" || strings.Join(r.Required, ",") != "origin" {
		t.Fatalf("endpoint: want item_envelope endpoint, required origin, have %q, %q", r.ItemEnvelope, r.Required)
	}
	tw := res.Twin
	e := servedEngine(t, tw)
	status, created := sendJSON(t, e, "POST", "/endpoints", `{"origin":"static.example.com"}`)
	got, _ := created["endpoint"].(map[string]any)
	if id, _ := got["id"].(string); status != 201 || id == "" || got["origin"] != "static.example.com" {
		t.Fatalf("create: want 201 {endpoint: the endpoint of that origin}, have %d %v", status, created)
	}
	if status, bad := sendJSON(t, e, "POST", "/endpoints", `{}`); status/100 != 4 {
		t.Errorf("create without the origin its body requires: want a 4xx, have %d %v", status, bad)
	}
}

// TestRestReferenceAllOfString: a reference the create sends as an allOf
// of a string and its description (Asana's status update parent) is
// read as the string it is: the referenced object's gid, answered as
// the object.
func TestRestReferenceAllOfString(t *testing.T) {
	spec := strings.Replace(tasksSpec, `"workspace":{"type":"string","description":"the workspace's gid"}`, `"workspace":{"allOf":[{"type":"string","description":"the workspace's gid"}]}`, 1)
	if spec == tasksSpec {
		t.Fatal("the spec has no workspace reference to write as an allOf")
	}
	res, err := openapi.Import([]byte(spec), openapi.Options{Dialects: importers.All()})
	if err != nil {
		t.Fatal(err)
	}
	tw := res.Twin
	e := servedEngine(t, tw)
	status, created := sendJSON(t, e, "POST", "/api/1.0/tasks", `{"data":{"name":"write","workspace":"777"}}`)
	ws, _ := inside(created)["workspace"].(map[string]any)
	if status != 201 || ws["gid"] != "777" || ws["resource_type"] != "workspace" {
		t.Errorf("create: want 201 {data: the task, its workspace {gid: 777, resource_type: workspace}}, have %d %v", status, created)
	}
}

// dropletsSpec is written the way DigitalOcean writes its droplets: the
// read answers {droplet}, the create {droplet, links}, as a oneOf of a
// single and a multiple create whose every branch requires links.
const dropletsSpec = `{"openapi":"3.0.0","info":{"title":"Droplets","version":"1"},
"paths":{
 "/v2/droplets":{
  "post":{"requestBody":{"content":{"application/json":{"schema":{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}}}},
   "responses":{"202":{"description":"accepted","content":{"application/json":{"schema":{"oneOf":[
     {"type":"object","required":["droplet","links"],"properties":{"droplet":{"$ref":"#/components/schemas/Droplet"},"links":{"$ref":"#/components/schemas/Links"}}},
     {"type":"object","required":["droplets","links"],"properties":{"droplets":{"type":"array","items":{"$ref":"#/components/schemas/Droplet"}},"links":{"$ref":"#/components/schemas/Links"}}}]}}}}}}},
 "/v2/droplets/{id}":{
  "parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"integer"}}],
  "get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","properties":{"droplet":{"$ref":"#/components/schemas/Droplet"}}}}}}}}}
},
"components":{"schemas":{
 "Droplet":{"type":"object","required":["id","name"],"properties":{"id":{"type":"integer","example":3164444},"name":{"type":"string","example":"example.com"}}},
 "Links":{"type":"object","properties":{"actions":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer","example":7515},"rel":{"type":"string","example":"create"}}}}}}}}}`

// TestRestCreateBesideEnvelope: a create that answers the entity in its
// item envelope beside members the read does not have gets a create_body
// naming the envelope: the droplet answered whole inside it, links
// beside it, and not wrapped again; the read answers the envelope alone.
func TestRestCreateBesideEnvelope(t *testing.T) {
	res, err := openapi.Import([]byte(dropletsSpec), openapi.Options{Dialects: importers.All(), Name: "droplets"})
	if err != nil {
		t.Fatal(err)
	}
	tw, err := format.Load(res.FS(), "droplets")
	if err != nil {
		t.Fatal(err)
	}
	if len(tw.Manifest.Resources) != 1 {
		t.Fatalf("resources: want droplet, have %+v", tw.Manifest.Resources)
	}
	r := tw.Manifest.Resources[0]
	if r.ItemEnvelope != "droplet" || !strings.Contains(r.CreateBody, `"droplet":"$"`) || !strings.Contains(r.CreateBody, `"links"`) {
		t.Fatalf("droplet: want item_envelope droplet and a create_body of the droplet beside links, have %q %q", r.ItemEnvelope, r.CreateBody)
	}
	e := servedEngine(t, tw)
	status, created := sendJSON(t, e, "POST", "/v2/droplets", `{"name":"web-1"}`)
	d, _ := created["droplet"].(map[string]any)
	links, _ := created["links"].(map[string]any)
	if status != 202 || d == nil || d["name"] != "web-1" || links == nil || len(created) != 2 {
		t.Fatalf("create: want 202 {droplet: {name: web-1 ...}, links: {...}}, have %d %v", status, created)
	}
	idf, _ := d["id"].(float64)
	id := fmt.Sprint(int64(idf))
	if actions, _ := links["actions"].([]any); len(actions) != 1 {
		t.Errorf("create: want links.actions of one action, as the provider answers the create's, have %v", links)
	}
	status, read := sendJSON(t, e, "GET", "/v2/droplets/"+id, "")
	if rd, _ := read["droplet"].(map[string]any); status != 200 || rd == nil || rd["name"] != "web-1" || len(read) != 1 {
		t.Errorf("read: want 200 {droplet: {name: web-1}}, have %d %v", status, read)
	}
}
