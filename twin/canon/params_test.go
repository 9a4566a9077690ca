package canon_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/canon"
)

const (
	formType = "application/x-www-form-urlencoded"
	jsonType = "application/json"
)

type obj = map[string]any
type list = []any

func TestParams(t *testing.T) {
	tests := []struct {
		name, contentType, body, query string
		want                           obj
		wantErr                        string
	}{
		{name: "nothing", want: obj{}},
		{name: "flat", query: "limit=3&email=a%40b.c", want: obj{"limit": "3", "email": "a@b.c"}},
		{name: "nested objects", query: "a[b][c]=v", want: obj{"a": obj{"b": obj{"c": "v"}}}},
		{name: "escaped brackets", query: "a%5Bb%5D=v", want: obj{"a": obj{"b": "v"}}},
		{name: "indexed list", query: "a[0]=x&a[1]=y", want: obj{"a": list{"x", "y"}}},
		{name: "indexed list out of order", query: "a[1]=y&a[0]=x", want: obj{"a": list{"x", "y"}}},
		{name: "canonical order of a long list", query: "a[0]=0&a[1]=1&a[10]=10&a[2]=2&a[3]=3&a[4]=4&a[5]=5&a[6]=6&a[7]=7&a[8]=8&a[9]=9",
			want: obj{"a": list{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}}},
		{name: "appended list", query: "a[]=x&a[]=y", want: obj{"a": list{"x", "y"}}},
		{name: "list of objects", query: "a[0][price]=p&a[0][quantity]=2&a[1][price]=q",
			want: obj{"a": list{obj{"price": "p", "quantity": "2"}, obj{"price": "q"}}}},
		{name: "nested appended list", query: "a[b][]=x", want: obj{"a": obj{"b": list{"x"}}}},
		{name: "sparse numbers stay keys", query: "metadata[7]=x&metadata[9]=y", want: obj{"metadata": obj{"7": "x", "9": "y"}}},
		{name: "leading zero stays a key", query: "a[00]=x", want: obj{"a": obj{"00": "x"}}},
		{name: "huge index stays a key", query: "a[999999999999]=x", want: obj{"a": obj{"999999999999": "x"}}},
		{name: "mixed keys stay keys", query: "a[0]=x&a[b]=y", want: obj{"a": obj{"0": "x", "b": "y"}}},
		{name: "top level numbers stay keys", query: "0=x", want: obj{"0": "x"}},
		{name: "repeated key keeps the last", query: "a=1&a=2", want: obj{"a": "2"}},
		{name: "empty value", query: "a&b=", want: obj{"a": "", "b": ""}},
		{name: "plus is space", query: "a=x+y", want: obj{"a": "x y"}},
		{name: "empty segment key", query: "a[b][]=1&a[b][]=2&a[c]=3", want: obj{"a": obj{"b": list{"1", "2"}, "c": "3"}}},
		{name: "form body", contentType: formType, body: "amount=2000&currency=usd&metadata[order]=6735",
			want: obj{"amount": "2000", "currency": "usd", "metadata": obj{"order": "6735"}}},
		{name: "body wins over query", contentType: formType, body: "a[x]=body", query: "a=query&b=query",
			want: obj{"a": obj{"x": "body"}, "b": "query"}},
		{name: "json body", contentType: jsonType, body: `{"amount":2000,"ok":true,"no":false,"n":null,"items":[{"price":"p"}],"s":"\u00e9"}`,
			want: obj{"amount": json.Number("2000"), "ok": true, "no": false, "n": nil, "items": list{obj{"price": "p"}}, "s": "é"}},
		{name: "json body wins over query", contentType: jsonType + "; charset=utf-8", body: `{"a":1}`, query: "a=2&b=3",
			want: obj{"a": json.Number("1"), "b": "3"}},
		{name: "empty json body", contentType: jsonType, body: " ", query: "a=1", want: obj{"a": "1"}},
		{name: "other body ignored", contentType: "text/plain", body: "a=1", want: obj{}},
		{name: "depth limit", query: "a" + strings.Repeat("[x]", 32) + "=v", want: obj{"a": nest(32, "v")}},
		{name: "json depth limit", contentType: jsonType, body: strings.Repeat(`{"x":`, 33) + `"v"` + strings.Repeat("}", 33),
			want: nest(33, "v").(obj)},

		{name: "conflict value then object", query: "a=1&a[b]=2", wantErr: `query key "a[b]" conflicts with an earlier key: "a" is already a value`},
		{name: "value replaces an object", query: "a[b]=2&a=1", want: map[string]any{"a": "1"}},
		{name: "conflict list then index", query: "a[]=1&a[0]=2", wantErr: `query key "a[0]" conflicts with an earlier key: "a" is already a list`},
		{name: "conflict deep", contentType: formType, body: "a[b][c]=1&a[b][c][d]=2", wantErr: `form key "a[b][c][d]" conflicts with an earlier key: "a[b][c]" is already a value`},
		{name: "conflict object then append", query: "a[b]=1&a[]=2", wantErr: `query key "a[]" conflicts with an earlier key: "a" is already an object`},
		{name: "unclosed bracket", contentType: formType, body: "a[b=1", wantErr: `form key "a[b" has an unclosed bracket`},
		{name: "unmatched bracket", query: "a]=1", wantErr: `query key "a]" has an unmatched "]"`},
		{name: "text after bracket", query: "a[b]c=1", wantErr: `query key "a[b]c" has text after a closing bracket`},
		{name: "bracket in bracket", query: "a[b[c]]=1", wantErr: `query key "a[b[c]]" has a "[" inside brackets`},
		{name: "empty name", query: "[a]=1", wantErr: `query key "[a]" has an empty name`},
		{name: "empty key", query: "=1", wantErr: `query key "" has an empty name`},
		{name: "append before bracket", query: "a[][b]=1", wantErr: `query key "a[][b]" has "[]" before another bracket: use an index, as in a[0][b]`},
		{name: "too deep", query: "a" + strings.Repeat("[x]", 33) + "=v", wantErr: `query key "a` + strings.Repeat("[x]", 33) + `" nests deeper than 32 levels`},
		{name: "bad escape in key", query: "a%zz=1", wantErr: `query key "a%zz" has an invalid escape "%zz"` + badEscape},
		{name: "bad escape in value", query: "a=%", wantErr: `query value of key "a" has an invalid escape "%"` + badEscape},
		{name: "bad json", contentType: jsonType, body: `{"a":`, wantErr: `json body: invalid JSON at offset 5: want a value, have end of input`},
		{name: "json list", contentType: jsonType, body: `[1]`, wantErr: `json body is a list: want an object`},
		{name: "json string", contentType: jsonType, body: `"a"`, wantErr: `json body is a string: want an object`},
		{name: "json too deep", contentType: jsonType, body: strings.Repeat(`{"x":`, 34) + `1` + strings.Repeat("}", 34), wantErr: `json body nests deeper than 32 levels`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			have, err := canon.Params(tt.contentType, []byte(tt.body), tt.query)
			checkErr(t, err, tt.wantErr)
			if tt.wantErr != "" {
				return
			}
			if !reflect.DeepEqual(have, tt.want) {
				t.Errorf("want %#v, have %#v", tt.want, have)
			}
		})
	}
}

// nest returns v under n levels of {"x": ...}.
func nest(n int, v any) any {
	for range n {
		v = obj{"x": v}
	}
	return v
}

func BenchmarkParams(b *testing.B) {
	benchmarks := []struct{ name, contentType, body, query string }{
		{"form", formType, customerCreate, ""},
		{"form list of objects", formType, "customer=cus_123&items[0][price]=price_1&items[0][quantity]=2&items[1][price]=price_2", "expand[]=latest_invoice"},
		{"json", jsonType, `{"amount":2000,"currency":"usd","metadata":{"order_id":"6735"},"automatic_payment_methods":{"enabled":true}}`, ""},
	}
	for _, bm := range benchmarks {
		body := []byte(bm.body)
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := canon.Params(bm.contentType, body, bm.query); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
