package openapi_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/dialect/importers"
	"github.com/wraithdev/wraith/twin/openapi"
)

// callsSpec is written the way Twilio writes its description: a base
// path in servers, items at {Sid}.json under a parent account, keys
// named sid with a pattern, schemas through allOf, form bodies with
// PascalCase names, a list inside an envelope, its own error schema, and
// a Box-style #fragment path key.
const callsSpec = `{"openapi":"3.0.1","info":{"title":"Calls","version":"1"},
"servers":[{"url":"https://api.example.com/2010-04-01"}],
"paths":{
 "/Accounts/{AccountSid}/Calls.json":{
  "parameters":[{"name":"AccountSid","in":"path","required":true,"schema":{"type":"string"}}],
  "get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","properties":{"calls":{"type":"array","items":{"$ref":"#/components/schemas/Call"}},"page":{"type":"integer"}}}}}}}},
  "post":{"requestBody":{"content":{"application/x-www-form-urlencoded":{"schema":{"type":"object","required":["To"],"properties":{"To":{"type":"string"},"FriendlyName":{"type":"string"}}}}}},
   "responses":{"201":{"description":"created","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Call"}}}},"404":{"$ref":"#/components/responses/NotFound"}}}},
 "/Accounts/{AccountSid}/Calls/{Sid}.json":{
  "parameters":[{"name":"AccountSid","in":"path","required":true,"schema":{"type":"string"}},{"name":"Sid","in":"path","required":true,"schema":{"type":"string"}}],
  "get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Call"}}}},"404":{"$ref":"#/components/responses/NotFound"}}},
  "post":{"requestBody":{"content":{"application/x-www-form-urlencoded":{"schema":{"type":"object","properties":{"FriendlyName":{"type":"string"}}}}}},
   "responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Call"}}}}}},
  "delete":{"responses":{"204":{"description":"gone"},"404":{"$ref":"#/components/responses/NotFound"}}}},
 "/files/{file_id}":{"parameters":[{"name":"file_id","in":"path","required":true,"schema":{"type":"string"}}],
  "get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","properties":{"name":{"type":"string"}}}}}}}}},
 "/files/{file_id}#share":{"parameters":[{"name":"file_id","in":"path","required":true,"schema":{"type":"string"}}],
  "get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","properties":{"shared":{"type":"boolean"}}}}}}}},
  "put":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"type":"object","required":["shared"],"properties":{"shared":{"type":"boolean"}}}}}}}}}
},
"components":{
 "responses":{"NotFound":{"description":"not found","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Error"}}}}},
 "schemas":{
  "Base":{"type":"object","properties":{"sid":{"type":"string","pattern":"^CA[0-9a-fA-F]{32}$"},"account_sid":{"type":"string","nullable":true}}},
  "Call":{"allOf":[{"$ref":"#/components/schemas/Base"},{"type":"object","properties":{"to":{"type":"string"},"friendly_name":{"type":"string","nullable":true},"status":{"type":"string","enum":["queued","ringing"]},"password":{"type":"string","writeOnly":true},"created":{"type":"string","format":"date-time"}}}]},
  "Error":{"type":"object","required":["code","message"],"properties":{"code":{"type":"integer"},"message":{"type":"string"},"more_info":{"type":"string","format":"uri"}}}}}}`

// TestRestImportTwilioShaped: the import infers the call resource from
// the .json pair under its parent, keyed by sid with the pattern's
// prefix, its list envelope and the description's error schema; the
// #fragment variant of a path is reported and served by the plain one.
func TestRestImportTwilioShaped(t *testing.T) {
	res, err := openapi.Import([]byte(callsSpec), openapi.Options{Dialects: importers.All()})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Twin.Manifest
	if len(m.Resources) != 1 {
		t.Fatalf("resources: want call, have %+v", m.Resources)
	}
	r := m.Resources[0]
	for _, c := range []struct {
		field      string
		want, have any
	}{
		{"name", "call", r.Name},
		{"collection", "/2010-04-01/Accounts/{AccountSid}/Calls.json", r.Collection},
		{"item", "/2010-04-01/Accounts/{AccountSid}/Calls/{id}.json", r.Item},
		{"key", "sid", r.Key},
		{"parents", "AccountSid", strings.Join(r.Parents, ",")},
		{"id_prefix", "CA", r.IDPrefix},
		{"list", "envelope", r.List},
		{"list_key", "calls", r.ListKey},
		{"update", "POST", strings.Join(r.Update, ",")},
		{"create_status", 201, r.CreateStatus},
		{"delete_status", 204, r.DeleteStatus},
		{"required", "to", strings.Join(r.Required, ",")},
	} {
		if c.want != c.have {
			t.Errorf("call %s: want %v, have %v", c.field, c.want, c.have)
		}
	}
	if strings.Contains(r.Skeleton, "password") {
		t.Errorf("skeleton: want the write-only password left out, have %s", r.Skeleton)
	}
	if nf := m.Errors.NotFound; nf == nil || nf.Status != 404 || !strings.Contains(nf.Body, `"message":"No such {object}: '{id}'"`) || !strings.Contains(nf.Body, `"code":404`) {
		t.Errorf("not_found: want the description's Error schema with the sentence and status, have %+v", nf)
	}
	routes := map[string]bool{}
	for _, rt := range m.Routes {
		routes[rt.Method+" "+rt.Path] = true
	}
	if !routes["GET /2010-04-01/files/{file_id}"] || !routes["PUT /2010-04-01/files/{file_id}"] {
		t.Errorf("routes: want GET and PUT /2010-04-01/files/{file_id} (the PUT from the #share key), have %v", routes)
	}
	found := false
	for _, u := range res.Report.Unresolved {
		found = found || (u.Subject == "GET /files/{file_id}#share" && strings.Contains(u.Reason, "#fragment variant of GET /files/{file_id}"))
	}
	if !found {
		t.Errorf("report: want GET /files/{file_id}#share reported as a variant, have %+v", res.Report.Unresolved)
	}
}

// TestRestServedTwilioShaped serves that import: a form create with
// PascalCase names answers the snake_case fields and a sid the pattern
// takes; a read under another parent is the description's 404; an
// update merges; a delete answers 204 and the read after it 404.
func TestRestServedTwilioShaped(t *testing.T) {
	res, err := openapi.Import([]byte(callsSpec), openapi.Options{Dialects: importers.All()})
	if err != nil {
		t.Fatal(err)
	}
	tw := res.Twin
	// As serve does: the twin's [pii] verbatim names are not tokenized.
	e := servedEngine(t, tw)
	const coll = "/2010-04-01/Accounts/AC1/Calls.json"
	if status, _, bad := send(t, e, "POST", coll, "FriendlyName=Ada"); status != 400 || bad["message"] != "to: missing_field" {
		t.Errorf("create without To: want 400 in the Error schema naming to, have %d %v", status, bad)
	}
	status, _, call := send(t, e, "POST", coll, "To=%2B15550100&FriendlyName=Ada")
	sid, _ := call["sid"].(string)
	if status != 201 || call["to"] != "+15550100" || call["friendly_name"] != "Ada" || !regexp.MustCompile(`^CA[0-9a-fA-F]{32}$`).MatchString(sid) {
		t.Fatalf("create: want 201 with to, friendly_name and a sid of the pattern, have %d %v", status, call)
	}
	item := "/2010-04-01/Accounts/AC1/Calls/" + sid + ".json"
	if status, _, read := send(t, e, "GET", item, ""); status != 200 || read["sid"] != sid {
		t.Errorf("read: want 200 and the call, have %d %v", status, read)
	}
	if status, _, nf := send(t, e, "GET", "/2010-04-01/Accounts/AC2/Calls/"+sid+".json", ""); status != 404 || nf["code"] != float64(404) || !strings.Contains(nf["message"].(string), "No such call") {
		t.Errorf("read under another account: want the Error schema's 404, have %d %v", status, nf)
	}
	if status, _, list := send(t, e, "GET", coll, ""); status != 200 || len(asList(list["calls"])) != 1 {
		t.Errorf("list: want 200 with the call in the calls member, have %d %v", status, list)
	}
	if status, _, up := send(t, e, "POST", item, "FriendlyName=Bo"); status != 200 || up["friendly_name"] != "Bo" || up["to"] != "+15550100" {
		t.Errorf("update: want friendly_name changed and to kept, have %d %v", status, up)
	}
	if status, _, _ := send(t, e, "DELETE", item, ""); status != 204 {
		t.Errorf("delete: want 204, have %d", status)
	}
	if status, _, _ := send(t, e, "GET", item, ""); status != 404 {
		t.Errorf("read after delete: want 404, have %d", status)
	}
}

// TestRestIDPrefixFromPattern: a key pattern of prefixes and 32
// hexadecimal digits gives its first prefix; another gives the name's.
func TestRestIDPrefixFromPattern(t *testing.T) {
	for _, c := range []struct{ pattern, want string }{
		{`^CA[0-9a-fA-F]{32}$`, "CA"},
		{`^(SM|MM)[0-9a-fA-F]{32}$`, "SM"},
		{`^CA[0-9]{32}$`, "call_"},
		{`^[0-9a-fA-F]{32}$`, "call_"},
	} {
		spec := strings.Replace(callsSpec, `^CA[0-9a-fA-F]{32}$`, c.pattern, 1)
		res, err := openapi.Import([]byte(spec), openapi.Options{Dialects: importers.All()})
		if err != nil {
			t.Fatal(err)
		}
		if have := res.Twin.Manifest.Resources[0].IDPrefix; have != c.want {
			t.Errorf("pattern %s: want id_prefix %q, have %q", c.pattern, c.want, have)
		}
	}
}

func asList(v any) []any { l, _ := v.([]any); return l }
