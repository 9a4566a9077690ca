package openapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wraithdev/wraith/twin/dialect/importers"
	"github.com/wraithdev/wraith/twin/openapi"
)

// projectsSpec's create sends what its answer holds otherwise: an owner
// as its id where the answer has the user, followers as a string of ids
// where the answer has a list of users, members as a list of ids where
// the answer has a list of users, a scope of an enum the answer's
// enum does not share, and its answer's hour, a string, has an integer
// example.
const projectsSpec = `{"openapi":"3.0.0","info":{"title":"Projects","version":"1"},
"paths":{
 "/projects":{
  "get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"array","items":{"$ref":"#/components/schemas/Project"}}}}}}},
  "post":{"requestBody":{"content":{"application/json":{"schema":{"type":"object","required":["name"],"properties":{
    "name":{"type":"string"},"owner":{"type":"string"},"followers":{"type":"string","example":"1,2"},
    "scope":{"type":"string","enum":["global","enterprise"]},"hour":{"type":"string"},
    "members":{"type":"array","items":{"type":"string"}}}}}}},
   "responses":{"201":{"description":"created","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Project"}}}}}}},
 "/projects/{id}":{
  "parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],
  "get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Project"}}}},"404":{"description":"no such project"}}}}
},
"components":{"schemas":{
 "User":{"type":"object","required":["id","type"],"properties":{"id":{"type":"string"},"type":{"type":"string","enum":["user"]},"name":{"type":"string"}}},
 "Project":{"type":"object","required":["id","name","owner","followers","scope","hour"],"properties":{
   "id":{"type":"string"},"name":{"type":"string"},
   "owner":{"$ref":"#/components/schemas/User"},
   "followers":{"type":"array","items":{"$ref":"#/components/schemas/User"}},
   "members":{"type":"array","items":{"$ref":"#/components/schemas/User"}},
   "scope":{"type":"string","enum":["global","enterprise_*"]},
   "hour":{"type":"string","example":840}}}}}}`

// TestRestAnswerTypes: what a create sends is stored as the answer's
// schema types it: the owner's id is the owner object with that id, each
// member's id a user with that id, the
// followers string (a list the answer holds as users) and the scope
// the answer's enum refuses keep a value of the answer's schema, and
// the hour whose example is no string is answered as one. Every answer
// validates against the description (openapi3filter.ValidateResponse),
// and the import reports each conversion for the resource.
func TestRestAnswerTypes(t *testing.T) {
	res, err := openapi.Import([]byte(projectsSpec), openapi.Options{Dialects: importers.All()})
	if err != nil {
		t.Fatal(err)
	}
	facts := map[string]string{}
	for _, inf := range res.Report.Resources {
		if inf.Fact == "reference" || inf.Fact == "unanswered" || inf.Fact == "reference_list" {
			facts[inf.Value] = inf.Fact
		}
	}
	for field, want := range map[string]string{"owner": "reference", "followers": "unanswered", "scope": "unanswered", "members": "reference_list"} {
		if facts[field] != want {
			t.Errorf("import-report: want %s %s, have %q (all: %v)", field, want, facts[field], facts)
		}
	}
	tw := res.Twin
	e := servedEngine(t, tw)
	srv := httptest.NewServer(e)
	defer srv.Close()
	doc, err := openapi3.NewLoader().LoadFromData([]byte(projectsSpec))
	if err != nil {
		t.Fatal(err)
	}
	send := func(method, path, specPath, body string) map[string]any {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode/100 != 2 {
			t.Fatalf("%s %s: want 2xx, have %d %s", method, path, resp.StatusCode, b)
		}
		if err := validate(doc, method, specPath, req, resp, b); err != nil {
			t.Errorf("%s %s: the answer fails the description: %v\n%s", method, path, err, b)
		}
		var m map[string]any
		json.NewDecoder(bytes.NewReader(b)).Decode(&m)
		return m
	}
	p := send("POST", "/projects", "/projects", `{"name":"apollo","owner":"u_7","followers":"1,2","scope":"enterprise","hour":"14","members":["u_1","u_2"]}`)
	owner, _ := p["owner"].(map[string]any)
	if owner["id"] != "u_7" || owner["type"] != "user" {
		t.Errorf("owner: want the user u_7 ({id: u_7, type: user}), have %v", p["owner"])
	}
	members, _ := p["members"].([]any)
	if len(members) != 2 {
		t.Errorf("members: want two users, have %v", p["members"])
	}
	for i, m := range members {
		u, _ := m.(map[string]any)
		if want := fmt.Sprintf("u_%d", i+1); u["id"] != want || u["type"] != "user" {
			t.Errorf("members[%d]: want the user %s ({id: %s, type: user}), have %v", i, want, want, m)
		}
	}
	if _, isList := p["followers"].([]any); !isList {
		t.Errorf("followers: want a list (the answer's), have %v", p["followers"])
	}
	if p["name"] != "apollo" || p["hour"] != "14" {
		t.Errorf("name and hour: want apollo and 14 as sent, have %v and %v", p["name"], p["hour"])
	}
	id, _ := p["id"].(string)
	send("GET", "/projects/"+id, "/projects/{id}", "")
	send("GET", "/projects", "/projects", "")
	// A project created without an hour answers the schema's string, not
	// the description's integer example.
	if q := send("POST", "/projects", "/projects", `{"name":"gemini"}`); q["hour"] == json.Number("840") || q["hour"] == float64(840) {
		t.Errorf("hour: want a string, have %v", q["hour"])
	}
}
