package canon

import (
	"reflect"
	"testing"
)

// TestRepeated: a plain name sent more than once is its values in order;
// a name sent once, or with brackets, is Params' alone; the body's names,
// in any form and in JSON, replace the query's, as in Params.
func TestRepeated(t *testing.T) {
	const form, json = "application/x-www-form-urlencoded", "application/json"
	for _, tc := range []struct {
		name, ctype, body, query string
		want                     map[string][]any
	}{
		{"form", form, "Permission=sendMessage&FriendlyName=r&Permission=leave+it%21", "", map[string][]any{"Permission": {"sendMessage", "leave it!"}}},
		{"once", form, "Permission=sendMessage", "", nil},
		{"query", "", "", "Status=a&Status=b&PageSize=2", map[string][]any{"Status": {"a", "b"}}},
		{"the body's plain name replaces the query's", form, "Status=c", "Status=a&Status=b", nil},
		{"the body's bracketed name replaces the query's", form, "tag[0]=x", "tag=a&tag=b", nil},
		{"the body's object replaces the query's", form, "meta[k]=v", "meta=a&meta=b", nil},
		{"a JSON body's name replaces the query's", json, `{"Status":"c"}`, "Status=a&Status=b", nil},
		{"a JSON body without it leaves the query's", json, `{"x":1}`, "Status=a&Status=b", map[string][]any{"Status": {"a", "b"}}},
		{"bracketed lists are Params'", form, "tags[]=a&tags[]=b", "", nil},
		{"both repeat", form, "a=1&a=2", "b=3&b=4", map[string][]any{"a": {"1", "2"}, "b": {"3", "4"}}},
		{"a bad escape reads as nothing", form, "a=1&a=%zz", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if have := Repeated(tc.ctype, []byte(tc.body), tc.query); !reflect.DeepEqual(have, tc.want) {
				t.Errorf("want %v, have %v", tc.want, have)
			}
		})
	}
}
