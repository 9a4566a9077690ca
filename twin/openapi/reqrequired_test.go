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
