package reqschema

import (
	"bytes"
	"strings"
	"testing"
)

// TestFileRoundTrip: Marshal writes operations sorted, one to a line,
// and Parse reads back what Marshal wrote; the same File writes the
// same bytes.
func TestFileRoundTrip(t *testing.T) {
	f := &File{Format: Format, Source: "Stripe API <test>", Operations: []Operation{
		{Method: "POST", Path: "/v1/customers", Params: &Schema{Type: "object", Properties: map[string]*Schema{"name": {Type: "string", MaxLength: 256}, "email": {Type: "string"}}}},
		{Method: "GET", Path: "/v1/customers", Params: &Schema{Type: "object", Properties: map[string]*Schema{"limit": {Type: "integer"}}}},
		{Method: "DELETE", Path: "/v1/charges/{charge}", Params: &Schema{Type: "object"}},
	}}
	data, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"format":1,"source":"Stripe API <test>","operations":[
{"method":"DELETE","path":"/v1/charges/{charge}","params":{"type":"object"}},
{"method":"GET","path":"/v1/customers","params":{"type":"object","properties":{"limit":{"type":"integer"}}}},
{"method":"POST","path":"/v1/customers","params":{"type":"object","properties":{"email":{"type":"string"},"name":{"type":"string","max_length":256}}}}
]}
`
	if string(data) != want {
		t.Errorf("Marshal:\nwant %s\nhave %s", want, data)
	}
	if f.Operations[0].Method != "POST" {
		t.Error("Marshal sorted the File's own operations: want them left as they were")
	}
	back, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	again, err := back.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, data) {
		t.Errorf("Parse then Marshal:\nwant %s\nhave %s", data, again)
	}
}

// TestParseRefuses: another format, a type no rule reads, an operation
// without a path; each error says what is wrong.
func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"format", `{"format":2,"operations":[]}`, "format 2"},
		{"not JSON", `{"format":`, "requests.json"},
		{"type", `{"format":1,"operations":[{"method":"POST","path":"/x","params":{"type":"object","properties":{"a":{"type":"int"}}}}]}`, `POST /x: a: schema type "int"`},
		{"type in anyOf", `{"format":1,"operations":[{"method":"POST","path":"/x","params":{"any_of":[{"type":"float"}]}}]}`, `"float"`},
		{"no path", `{"format":1,"operations":[{"method":"POST"}]}`, "operation 0 has no method or no path"},
	} {
		if _, err := Parse([]byte(tc.doc)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: want an error naming %q, have %v", tc.name, tc.want, err)
		}
	}
	f, err := Parse([]byte(`{"format":1,"operations":[{"method":"POST","path":"/x","params":{"type":"object","properties":{"a":null}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, prob := Check(f.Operations[0].Params, map[string]any{"a": map[string]any{"b": "c"}}, true, nil); prob != nil {
		t.Errorf("a property of null schema: want it to take anything, have %+v", *prob)
	}
}
