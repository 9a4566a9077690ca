package openapi_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/dialect/importers"
	"github.com/wraithdev/wraith/twin/engine"
	"github.com/wraithdev/wraith/twin/format"
	"github.com/wraithdev/wraith/twin/openapi"
	"github.com/wraithdev/wraith/twin/scrub"
)

// rolesSpec is written the way Twilio writes its roles: a form body
// whose Permission is a list sent as the name repeated (a form field's
// default style), beside a list the description sends as deepObject
// (Labels[]=…), and a list read whose Status filter is a query list.
const rolesSpec = `{"openapi":"3.0.1","info":{"title":"Roles","version":"1"},
"paths":{
 "/v1/Roles":{
  "get":{"parameters":[{"name":"Status","in":"query","schema":{"type":"array","items":{"type":"string"}}}],
   "responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","properties":{"roles":{"type":"array","items":{"$ref":"#/components/schemas/Role"}}}}}}}}},
  "post":{"requestBody":{"content":{"application/x-www-form-urlencoded":{
     "schema":{"type":"object","required":["FriendlyName","Permission"],"properties":{
      "FriendlyName":{"type":"string"},
      "Status":{"type":"string"},
      "Permission":{"type":"array","items":{"type":"string"}},
      "Labels":{"type":"array","items":{"type":"string"}}}},
     "encoding":{"Labels":{"style":"deepObject","explode":true}}}}},
   "responses":{"201":{"description":"created","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Role"}}}}}}},
 "/v1/Roles/{Sid}":{
  "parameters":[{"name":"Sid","in":"path","required":true,"schema":{"type":"string"}}],
  "get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Role"}}}}}}}
},
"components":{"schemas":{
 "Role":{"type":"object","properties":{"sid":{"type":"string","example":"RL123"},"friendly_name":{"type":"string"},"status":{"type":"string"},"permission":{"type":"array","items":{"type":"string"}},"labels":{"type":"array","items":{"type":"string"}}}}}}}`

// TestRestRepeatedNames: a form field or query list in OpenAPI's form
// style, exploded, is imported as Repeated, and served so: the name sent
// once is a list of one, sent twice a list of both; a deepObject list
// is not Repeated.
func TestRestRepeatedNames(t *testing.T) {
	res, err := openapi.Import([]byte(rolesSpec), openapi.Options{Dialects: importers.All(), Name: "roles"})
	if err != nil {
		t.Fatal(err)
	}
	tw, err := format.Load(res.FS(), "roles")
	if err != nil {
		t.Fatal(err)
	}
	var create, list bool
	for _, op := range tw.Requests.Operations {
		switch {
		case op.Method == "POST" && op.Path == "/v1/Roles":
			create = true
			if s := op.Params.At("permission"); s == nil || !s.Repeated {
				t.Errorf("Permission: want a Repeated array, have %+v", s)
			}
			if s := op.Params.At("labels"); s == nil || s.Repeated {
				t.Errorf("Labels, deepObject: want an array not Repeated, have %+v", s)
			}
		case op.Method == "GET" && op.Path == "/v1/Roles":
			list = true
			if s := op.Params.At("status"); s == nil || !s.Repeated {
				t.Errorf("Status, a query list: want a Repeated array, have %+v", s)
			}
		}
	}
	if !create || !list {
		t.Fatalf("want the create's and the list's request schemas, have %+v", tw.Requests.Operations)
	}
	e := servedEngine(t, tw)
	for _, tc := range []struct {
		form string
		want []any
	}{
		{"FriendlyName=one&Permission=sendMessage", []any{"sendMessage"}},
		{"FriendlyName=two&Permission=sendMessage&Permission=leaveConversation", []any{"sendMessage", "leaveConversation"}},
	} {
		status, _, body := send(t, e, "POST", "/v1/Roles", tc.form)
		if status != 201 || !reflect.DeepEqual(body["permission"], tc.want) {
			t.Errorf("%s: want 201 and permission %v, have %d %v", tc.form, tc.want, status, body)
			continue
		}
		sid, _ := body["sid"].(string)
		if _, _, read := send(t, e, "GET", "/v1/Roles/"+sid, ""); !reflect.DeepEqual(read["permission"], tc.want) {
			t.Errorf("%s: read back: want permission %v, have %v", tc.form, tc.want, read)
		}
	}
	// A scalar sent twice is its last value, as before: only a list's
	// name repeated is its values.
	if status, _, body := send(t, e, "POST", "/v1/Roles", "FriendlyName=a&FriendlyName=b&Permission=x"); status != 201 || body["friendly_name"] != "b" {
		t.Errorf("FriendlyName sent twice: want 201 and its last value, have %d %v", status, body)
	}
	if status, _, body := send(t, e, "POST", "/v1/Roles", "FriendlyName=three"); status != 400 {
		t.Errorf("Permission missing: want 400, have %d %v", status, body)
	}
	// Both spellings: the snake_case one is the name's, as the tree's
	// rule says, whether or not it repeats; the query's list gives way to
	// the body's name.
	for _, tc := range []struct {
		path, form string
		want       []any
	}{
		{"/v1/Roles", "FriendlyName=x&Permission=a&Permission=b&permission=c", []any{"c"}},
		{"/v1/Roles", "FriendlyName=x&Permission=a&Permission=b&permission=c&permission=d", []any{"c", "d"}},
		{"/v1/Roles?Permission=a&Permission=b", "FriendlyName=x&permission=c", []any{"c"}},
	} {
		if status, _, body := send(t, e, "POST", tc.path, tc.form); status != 201 || !reflect.DeepEqual(body["permission"], tc.want) {
			t.Errorf("%s %s: want 201 and permission %v, have %d %v", tc.path, tc.form, tc.want, status, body)
		}
	}
	// With validation off, a list sent once is still stored as a list.
	off, err := engine.New(tw, engine.Options{Scrubber: scrub.New(scrub.DeriveKey([]byte(tw.Digest)), scrub.Policy{Fields: tw.Manifest.PII.Fields, Verbatim: tw.Manifest.PII.Verbatim}), UnknownEntity: engine.NotFound, Validate: engine.Off})
	if err != nil {
		t.Fatal(err)
	}
	if status, _, body := send(t, off, "POST", "/v1/Roles", "FriendlyName=x&Permission=p"); status != 201 || !reflect.DeepEqual(body["permission"], []any{"p"}) {
		t.Errorf("--validate off: want permission [p], have %d %v", status, body)
	}
	// A list filter matches any of its values, sent once or repeated.
	l := servedEngine(t, tw)
	for _, st := range []string{"a", "b", "c"} {
		if status, _, body := send(t, l, "POST", "/v1/Roles", "FriendlyName=f&Permission=p&Status="+st); status != 201 {
			t.Fatalf("create with status %s: %d %v", st, status, body)
		}
	}
	for q, want := range map[string]int{"Status=a": 1, "Status=a&Status=b": 2, "Status=c&Status=zz": 1} {
		_, _, page := send(t, l, "GET", "/v1/Roles?"+q, "")
		if roles, _ := page["roles"].([]any); len(roles) != want {
			t.Errorf("list ?%s: want %d roles, have %v", q, want, page)
		}
	}
	// A role keyed by its sid, not found, is named by the sid its path
	// gave, not by the twin's address of it.
	status, _, body := send(t, e, "GET", "/v1/Roles/RL0123", "")
	if detail, _ := body["detail"].(string); status != 404 || !strings.Contains(detail, "'RL0123'") || strings.Contains(detail, ":RL0123") {
		t.Errorf("a role not found: want 404 naming 'RL0123', have %d %v", status, body)
	}
}
