package openapi_test

import (
	"testing"

	"github.com/wraithdev/wraith/twin/dialect/importers"
	"github.com/wraithdev/wraith/twin/openapi"
)

// firewallsSpec is written the way DigitalOcean writes its firewall
// writes: the create an allOf of the firewall, a part that only
// requires "name" and an anyOf of parts that only require one list of
// rules or the other; the update the firewall with its own required.
const firewallsSpec = `{"openapi":"3.0.0","info":{"title":"Firewalls","version":"1"},
"paths":{
 "/firewalls":{
  "post":{"requestBody":{"content":{"application/json":{"schema":{"allOf":[{"$ref":"#/components/schemas/Firewall"},{"required":["name"]},{"anyOf":[{"required":["inbound_rules"]},{"required":["outbound_rules"]}]}]}}}},
   "responses":{"202":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Firewall"}}}}}}},
 "/firewalls/{id}":{
  "parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],
  "get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Firewall"}}}}}},
  "put":{"requestBody":{"content":{"application/json":{"schema":{"allOf":[{"$ref":"#/components/schemas/Firewall"}],"required":["name","tags"]}}}},
   "responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Firewall"}}}}}}}
},
"components":{"schemas":{
 "Firewall":{"type":"object","properties":{"id":{"type":"string","readOnly":true},"name":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}},
  "inbound_rules":{"type":"array","items":{"type":"object"}},"outbound_rules":{"type":"array","items":{"type":"object"}}}}}}}`

// TestRequiredOnlyParts: names an allOf part or an anyOf alternative
// only requires are required, beside the properties the other parts
// describe, which are still checked.
func TestRequiredOnlyParts(t *testing.T) {
	res, err := openapi.Import([]byte(firewallsSpec), openapi.Options{Dialects: importers.All()})
	if err != nil {
		t.Fatal(err)
	}
	e := servedEngine(t, res.Twin)
	for _, tc := range []struct {
		body string
		want int
	}{
		{`{"inbound_rules":[{}]}`, 400},              // no name
		{`{"name":"fw"}`, 400},                       // neither list of rules
		{`{"name":"fw","inbound_rules":"all"}`, 400}, // a rule list's type, from the firewall part
		{`{"name":"fw","inbound_rules":[{}]}`, 202},  // one list
		{`{"name":"fw","outbound_rules":[{}]}`, 202}, // the other
	} {
		if status, answer := sendJSON(t, e, "POST", "/firewalls", tc.body); status != tc.want {
			t.Errorf("POST /firewalls %s: want %d, have %d %v", tc.body, tc.want, status, answer)
		}
	}
	_, created := sendJSON(t, e, "POST", "/firewalls", `{"name":"fw","inbound_rules":[{}]}`)
	id, _ := created["id"].(string)
	if status, answer := sendJSON(t, e, "PUT", "/firewalls/"+id, `{"name":"fw2"}`); status != 400 {
		t.Errorf("PUT without the tags its schema requires beside its allOf: want 400, have %d %v", status, answer)
	}
	if status, answer := sendJSON(t, e, "PUT", "/firewalls/"+id, `{"name":"fw2","tags":["a"]}`); status != 200 || answer["name"] != "fw2" {
		t.Errorf("PUT with what its schema requires: want 200 and the firewall renamed, have %d %v", status, answer)
	}
}

// composedSpec is a description of one create, POST /things, whose JSON
// request schema is body and whose form one, beside it on POST /forms,
// is form; components hold Closed, an object that refuses other names.
func composedSpec(body, form string) string {
	return `{"openapi":"3.0.0","info":{"title":"Composed","version":"1"},
"paths":{
 "/things":{"post":{"requestBody":{"content":{"application/json":{"schema":` + body + `}}},
   "responses":{"201":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Thing"}}}}}}},
 "/forms":{"post":{"requestBody":{"content":{"application/x-www-form-urlencoded":{"schema":` + form + `}}},
   "responses":{"201":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Thing"}}}}}}}
},
"components":{"schemas":{
 "Thing":{"type":"object","properties":{"id":{"type":"string"},"name":{"type":"string"}}},
 "Closed":{"type":"object","additionalProperties":false,"properties":{"name":{"type":"string"},"a":{"type":"string"},"b":{"type":"string"}}}}}}`
}

// TestComposedRequestSchemas: the checker reads composed request schemas
// as the description means them, each case once accepted and once
// refused.
func TestComposedRequestSchemas(t *testing.T) {
	for _, tc := range []struct {
		name, body, form     string
		path, ctype, ok, bad string
	}{
		{
			name: "required beside an allOf of a closed object stays closed",
			body: `{"allOf":[{"$ref":"#/components/schemas/Closed"}],"required":["name"]}`,
			path: "/things", ok: `{"name":"x"}`, bad: `{"name":"x","bogus":1}`,
		},
		{
			name: "an alternative that refuses other names still does",
			body: `{"type":"object","properties":{"kind":{"type":"string"}},"oneOf":[{"type":"object","additionalProperties":false,"properties":{"kind":{"type":"string"},"a":{"type":"string"}}},{"type":"object","additionalProperties":false,"properties":{"kind":{"type":"string"},"b":{"type":"string"}}}]}`,
			path: "/things", ok: `{"kind":"x","a":"1"}`, bad: `{"kind":"x","a":"1","zzz":"1"}`,
		},
		{
			name: "an alternative's own alternatives keep the object's required names",
			body: `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"anyOf":[{"type":"object","anyOf":[{"required":["a"]},{"required":["b"]}]}]}`,
			path: "/things", ok: `{"name":"x","a":"1"}`, bad: `{"a":"1"}`,
		},
		{
			name: "a form's names are read in alternatives as at the top",
			form: `{"type":"object","properties":{"FriendlyName":{"type":"string"},"Url":{"type":"string"},"Sid":{"type":"string"}},"required":["FriendlyName"],"anyOf":[{"required":["Url"]},{"required":["Sid"]}]}`,
			path: "/forms", ctype: "application/x-www-form-urlencoded", ok: "FriendlyName=x&Url=u", bad: "FriendlyName=x",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, form := tc.body, tc.form
			if body == "" {
				body = `{"type":"object"}`
			}
			if form == "" {
				form = `{"type":"object"}`
			}
			res, err := openapi.Import([]byte(composedSpec(body, form)), openapi.Options{Dialects: importers.All()})
			if err != nil {
				t.Fatal(err)
			}
			e := servedEngine(t, res.Twin)
			post := func(b string) int {
				if tc.ctype == "" {
					status, _ := sendJSON(t, e, "POST", tc.path, b)
					return status
				}
				status, _, _ := send(t, e, "POST", tc.path, b)
				return status
			}
			// The twin has no resource here: a request the checker lets
			// through is a 501 unmodelled write.
			if status := post(tc.ok); status == 400 {
				t.Errorf("%s: want it past the checker, have %d", tc.ok, status)
			}
			if status := post(tc.bad); status != 400 {
				t.Errorf("%s: want 400, have %d", tc.bad, status)
			}
		})
	}
}
