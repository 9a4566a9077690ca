package format

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestNestedValidates(t *testing.T) {
	for _, tc := range []struct{ name, more, want string }{
		{"good", "[resources.nested_defaults]\n\"items.data[]\" = '{\"id\":\"$id:si_\",\"at\":\"$now\"}'\nrecurring = '{}'\n[[resources.expand]]\nfield = \"items.data[].widget\"\nresource = \"widget\"\n", ""},
		{"bad path", "[resources.nested_defaults]\n\"a..b\" = '{}'\n", `nested_defaults."a..b": want a dotted field path`},
		{"not an object", "[resources.nested_defaults]\nrecurring = '[1]'\n", `nested_defaults."recurring": want a JSON object`},
		{"bad expression", "[resources.nested_defaults]\nrecurring = '{\"x\":\"$later\"}'\n", `nested_defaults."recurring".x: "$later"`},
		{"expand into an array", "[[resources.expand]]\nfield = \"items[]\"\nresource = \"widget\"\n", `expand[0]: field "items[]": want a dotted path to a string field`},
		{"expand of an unknown resource", "[[resources.expand]]\nfield = \"price\"\nresource = \"price\"\n", `expand[0]: resource "price" is not declared`},
		{"$id in a rule", "[[resources.create]]\nset = { x = \"$id:w_\" }\n", `$id:PREFIX makes the id of a nested object and belongs in nested_defaults`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(fstest.MapFS{"twin.toml": {Data: []byte(goodManifest + tc.more)}}, "demo")
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("want no error, have %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("want an error with %q, have %v", tc.want, err)
			}
		})
	}
}
