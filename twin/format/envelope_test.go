package format

import (
	"strings"
	"testing"
	"testing/fstest"
)

// restTwin is a rest-dialect twin with a {id}.json item and an envelope
// list.
const restTwin = `format = 1
name = "calls"
dialect = "rest"
[[resources]]
name = "account"
collection = "/Accounts.json"
item = "/Accounts/{id}.json"
id_prefix = "AC"
list = "envelope"
list_key = "accounts"
list_body = '{"accounts":[],"page":0}'
skeleton = '{"id":""}'
`

// TestRestKeys: a {id}.json item beside a .json collection and an
// envelope list load; an envelope whose key is no array member, an
// envelope key on another list, and an item that is no collection's
// are refused, each saying what to write.
func TestRestKeys(t *testing.T) {
	tw, err := Load(fstest.MapFS{"twin.toml": {Data: []byte(restTwin)}}, "calls")
	if err != nil {
		t.Fatal(err)
	}
	r := &tw.Manifest.Resources[0]
	if r.KeyParam() != "id" || strings.Join(PathParams(r.Item), ",") != "id" {
		t.Errorf("want the item's parameter id, have %q %v", r.KeyParam(), PathParams(r.Item))
	}
	for _, tc := range []struct{ name, old, new, want string }{
		{"key not an array", `list_key = "accounts"`, `list_key = "page"`, `list_key "page" must name an array member of list_body`},
		{"body not an object", `list_body = '{"accounts":[],"page":0}'`, `list_body = '[]'`, `list = "envelope" needs list_body, a JSON object`},
		{"envelope keys on an array list", `list = "envelope"`, `list = "array"`, `list_key and list_body are for list = "envelope"`},
		{"item of no collection", `item = "/Accounts/{id}.json"`, `item = "/Users/{id}.json"`, `must be the collection path followed by /{id} (or, for a collection ending in a format`},
		{"another format", `item = "/Accounts/{id}.json"`, `item = "/Accounts/{id}.xml"`, `must be the collection path followed by /{id}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := strings.Replace(restTwin, tc.old, tc.new, 1)
			_, err := Load(fstest.MapFS{"twin.toml": {Data: []byte(m)}}, "calls")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("want an error containing %q, have %v", tc.want, err)
			}
		})
	}
}
