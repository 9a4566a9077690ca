package openapi_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/dialect/importers"
	"github.com/wraithdev/wraith/twin/openapi"
)

// petsSpec is a description of no provider a dialect knows: pets listed
// as a bare array, created with 201, read, patched and deleted with 204;
// stores with string ids, read-only; owners without an id; a status
// route.
const petsSpec = `{"openapi":"3.0.3","info":{"title":"Pet Store","version":"1"},
"paths":{
 "/pets":{
  "get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"array","items":{"$ref":"#/components/schemas/Pet"}}}}}}},
  "post":{"responses":{"201":{"description":"created","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Pet"}}}}}}},
 "/pets/{petId}":{
  "parameters":[{"name":"petId","in":"path","required":true,"schema":{"type":"integer"}}],
  "get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Pet"}}}}}},
  "patch":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Pet"}}}}}},
  "delete":{"responses":{"204":{"description":"gone"}}}},
 "/pets/{petId}/photos":{
  "parameters":[{"name":"petId","in":"path","required":true,"schema":{"type":"integer"}}],
  "get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"array","items":{"type":"string"}}}}}}}},
 "/owners":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"array","items":{"$ref":"#/components/schemas/Owner"}}}}}}}},
 "/owners/{name}":{
  "parameters":[{"name":"name","in":"path","required":true,"schema":{"type":"string"}}],
  "get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Owner"}}}}}}},
 "/stores":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"array","items":{"$ref":"#/components/schemas/Store"}}}}}}}},
 "/stores/{storeId}":{
  "parameters":[{"name":"storeId","in":"path","required":true,"schema":{"type":"string"}}],
  "get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Store"}}}}}}},
 "/status":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","required":["up"],"properties":{"up":{"type":"boolean"}}},"example":{"up":true}}}}}}}
},
"components":{"schemas":{
 "Pet":{"type":"object","required":["id","name"],"properties":{"id":{"type":"integer"},"name":{"type":"string"},"tag":{"type":"string"}}},
 "Store":{"type":"object","required":["id"],"properties":{"id":{"type":"string"}}},
 "Owner":{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}
}}}`

// TestRestImport: a description no dialect detects is imported in the
// rest dialect: a resource for the pair whose item has an id (a bare
// array list, a 201 create, PATCH updates, a 204 delete, integer ids),
// template routes (the example before a sample) named so that they agree
// with the resource's {id}, and problem+json error shapes.
func TestRestImport(t *testing.T) {
	res, err := openapi.Import([]byte(petsSpec), openapi.Options{Dialects: importers.All()})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Twin.Manifest
	if m.Dialect != "rest" || m.Provider != "pet-store" {
		t.Errorf("want dialect rest and provider pet-store, have %q %q", m.Dialect, m.Provider)
	}
	if len(m.Resources) != 2 {
		t.Fatalf("resources: want pet and store (owners have no id), have %+v", m.Resources)
	}
	if st := m.Resources[1]; st.Name != "store" || st.IDPrefix != "store_" || st.IDKind != "" || strings.Join(st.Omit, ",") != "create,update" {
		t.Errorf("store: want string ids minted with the name's prefix store_, no create or update; have %+v", st)
	}
	r := m.Resources[0]
	for _, c := range []struct {
		field      string
		want, have any
	}{
		{"name", "pet", r.Name},
		{"item", "/pets/{id}", r.Item},
		{"list", "array", r.List},
		{"create_status", 201, r.CreateStatus},
		{"delete_status", 204, r.DeleteStatus},
		{"update", "PATCH", strings.Join(r.Update, ",")},
		{"id_kind", "integer", r.IDKind},
	} {
		if c.want != c.have {
			t.Errorf("pet %s: want %v, have %v", c.field, c.want, c.have)
		}
	}
	routes := map[string]string{}
	for _, rt := range m.Routes {
		routes[rt.Method+" "+rt.Path] = rt.Body
	}
	for route, body := range map[string]string{
		"GET /pets/{id}/photos": "[]",
		"GET /status":           `{"up":true}`,
		"GET /owners":           "[]",
	} {
		if have, ok := routes[route]; !ok || have != body {
			t.Errorf("route %s: want body %s, have %q (declared: %v)", route, body, have, ok)
		}
	}
	nf := m.Errors.NotFound
	if nf == nil || nf.Status != 404 || !strings.Contains(nf.Body, `"title":"Not Found"`) || !strings.Contains(nf.Body, `"status":404`) {
		t.Errorf("not_found: want a problem+json 404, have %+v", nf)
	}
	if c := res.Report.Counts; c.Operations != 11 || c.Stateful != 7 || c.Template != 4 {
		t.Errorf("counts: want 11 operations, 7 stateful, 4 template; have %+v", c)
	}
}

// TestRestRefusesAnchors: the rest and stripe dialects infer resources
// from paths, so an overlay anchoring one on operationIds is refused, not
// ignored.
func TestRestRefusesAnchors(t *testing.T) {
	for _, dialect := range []string{"rest", "stripe"} {
		ov := "dialect = \"" + dialect + "\"\n[[resources]]\nname = \"pet\"\nget_op = \"getPet\"\n"
		_, err := openapi.Import([]byte(petsSpec), openapi.Options{Overlay: []byte(ov), Dialects: importers.All()})
		if err == nil || !strings.Contains(err.Error(), "the "+dialect+" dialect infers") {
			t.Errorf("%s: want the anchor refused, have %v", dialect, err)
		}
	}
}

// TestRestServed serves the rest import: a JSON create answers 201 with
// the entity and an integer id, which a read then finds.
func TestRestServed(t *testing.T) {
	res, err := openapi.Import([]byte(petsSpec), openapi.Options{Dialects: importers.All()})
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(t, res.Twin)
	r := httptest.NewRequest("POST", "/pets", strings.NewReader(`{"name":"Rex","tag":"dog"}`))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	e.ServeHTTP(w, r)
	var pet map[string]any
	json.Unmarshal(w.Body.Bytes(), &pet)
	if w.Code != 201 || pet["tag"] != "dog" {
		t.Fatalf("POST /pets: want 201 and the pet, have %d %s", w.Code, w.Body)
	}
	id, _ := pet["id"].(float64)
	status, _, read := send(t, e, "GET", fmt.Sprintf("/pets/%d", int64(id)), "")
	if status != 200 || read["tag"] != "dog" || id == 0 {
		t.Errorf("GET the pet: want 200, the dog, with an integer id, have %d %v (id %v)", status, read, pet["id"])
	}
}
