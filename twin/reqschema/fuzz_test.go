package reqschema

import (
	"reflect"
	"testing"

	"github.com/wraithdev/wraith/twin/canon"
)

// FuzzCheck: no request panics the checker, Check leaves its params as
// they were, and CheckFlat finds what Check finds wherever canon reads
// the body flat. The seeds run in every go test.
func FuzzCheck(f *testing.F) {
	for _, tc := range formCases {
		f.Add(tc.body, true)
	}
	for _, seed := range []string{
		`{"amount":1,"currency":"usd","items":[{"price":"price_1"},{"price":null}]}`,
		`{"amount":1e999}`, `{"source":[1,{"a":[]}],"shipping":{"name":7}}`, `[]`, `{"metadata":{"0":"a"}}`,
	} {
		f.Add(seed, false)
	}
	s := testSchema(f)
	f.Fuzz(func(t *testing.T, body string, form bool) {
		media := "application/json"
		if form {
			media = "application/x-www-form-urlencoded"
		}
		params, err := canon.Params(media, []byte(body), "")
		if err != nil {
			return
		}
		before := deepCopy(params)
		_, prob := Check(s, params, form, testRefs())
		if !reflect.DeepEqual(before, any(params)) {
			t.Fatalf("Check changed its params: want %v, have %v", before, params)
		}
		if !form {
			return
		}
		flat, ok := canon.FlatParams(nil, media, []byte(body), "")
		if !ok {
			return
		}
		if have := CheckFlat(s, flat, testRefs()); !reflect.DeepEqual(have, prob) {
			t.Fatalf("CheckFlat and Check disagree on %q: Check %+v, CheckFlat %+v", body, prob, have)
		}
	})
}
