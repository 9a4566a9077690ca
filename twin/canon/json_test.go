package canon_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/canon"
)

func TestJSON(t *testing.T) {
	tests := []struct {
		name, in, want, wantErr string
	}{
		{name: "empty", in: "", want: ""},
		{name: "whitespace", in: " \n\t\r", want: ""},
		{name: "keys sorted", in: `{"b":1,"a":2}`, want: `{"a":2,"b":1}`},
		{name: "keys sorted recursively",
			in:   `{"z":{"y":1,"x":[{"d":1,"c":2}]},"a":null}`,
			want: `{"a":null,"z":{"x":[{"c":2,"d":1}],"y":1}}`},
		{name: "compact", in: " { \"a\" : [ 1 , true , false ] , \"b\" : { } }\n", want: `{"a":[1,true,false],"b":{}}`},
		{name: "numbers kept as written", in: `[1.0,1e5,1E+5,-0,0.50,12345678901234567890]`, want: `[1.0,1e5,1E+5,-0,0.50,12345678901234567890]`},
		{name: "scalar document", in: ` "x" `, want: `"x"`},
		{name: "empty containers", in: `[{},[],{"a":[]}]`, want: `[{},[],{"a":[]}]`},
		{name: "escapes decoded", in: `"\u0041\/\u00e9"`, want: `"A/é"`},
		{name: "html left alone", in: `"<&>"`, want: `"<&>"`},
		{name: "short escapes", in: `"\b\f\n\r\t\"\\"`, want: `"\b\f\n\r\t\"\\"`},
		{name: "control escaped", in: `"\u0001\u001F"`, want: `"\u0001\u001f"`},
		{name: "line separators escaped", in: "\"\u2028\\u2029\"", want: `"\u2028\u2029"`},
		{name: "surrogate pair", in: `"\ud83d\ude00"`, want: `"😀"`},
		{name: "lone surrogate", in: `"\ud800x"`, want: "\"\uFFFDx\""},
		{name: "invalid utf-8", in: "\"a\xffb\"", want: "\"a\uFFFDb\""},
		{name: "repeated key keeps the last", in: `{"a":1,"b":0,"a":2}`, want: `{"a":2,"b":0}`},
		{name: "keys sort decoded", in: `{"\u0062":1,"a":2,"\"":3}`, want: `{"\"":3,"a":2,"b":1}`},
		{name: "unterminated object", in: `{"a":1`, wantErr: `invalid JSON at offset 6: want ',' or '}', have end of input`},
		{name: "missing colon", in: `{"a" 1}`, wantErr: `invalid JSON at offset 5: want ':' after an object key, have '1'`},
		{name: "key not a string", in: `{a:1}`, wantErr: `invalid JSON at offset 1: want an object key, have 'a'`},
		{name: "trailing comma", in: `[1,]`, wantErr: `invalid JSON at offset 3: want a value, have ']'`},
		{name: "leading zero", in: `[01]`, wantErr: `invalid JSON at offset 2: want ',' or ']', have '1'`},
		{name: "bare minus", in: `-`, wantErr: `invalid JSON at offset 1: want a digit in number, have end of input`},
		{name: "no fraction digits", in: `1.`, wantErr: `invalid JSON at offset 2: want a digit after '.', have end of input`},
		{name: "no exponent digits", in: `1e+`, wantErr: `invalid JSON at offset 3: want a digit in exponent, have end of input`},
		{name: "data after value", in: `{} {}`, wantErr: `invalid JSON at offset 3: unexpected data after the top-level value`},
		{name: "bad literal", in: `nul`, wantErr: `invalid JSON at offset 0: want null`},
		{name: "bad escape", in: `"\x"`, wantErr: `invalid JSON at offset 2: invalid escape 'x' in string`},
		{name: "short unicode escape", in: `"\u12"`, wantErr: `invalid JSON at offset 1: want \u and four hex digits`},
		{name: "unterminated string", in: `"abc`, wantErr: `invalid JSON at offset 4: unterminated string`},
		{name: "control in string", in: "\"a\nb\"", wantErr: `invalid JSON at offset 2: control character '\n' in string`},
		{name: "too deep", in: strings.Repeat("[", 513) + strings.Repeat("]", 513), wantErr: `invalid JSON at offset 512: nesting deeper than 512 levels`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			have, err := canon.JSON([]byte(tt.in))
			checkErr(t, err, tt.wantErr)
			if string(have) != tt.want {
				t.Errorf("JSON(%q): want %s, have %s", tt.in, tt.want, have)
			}
			if tt.want == "" && have != nil {
				t.Errorf("JSON(%q): want nil, have %q", tt.in, have)
			}
		})
	}
}

// TestJSONMatchesEncodingJSON checks JSON against decoding with
// encoding/json and encoding again, which is what canonical means here.
func TestJSONMatchesEncodingJSON(t *testing.T) {
	inputs := []string{
		`{"amount":2000,"currency":"usd","metadata":{"order_id":"6735","b":"x"},"payment_method_types":["card"]}`,
		`{"nested":{"z":[1,2,{"y":null,"x":"\u00e9\u2029\t"}],"a":-1.5e-7}}`,
		"{\"k\\u0000\":\"\x7f\\u007f\",\"k\":\"\xc0\xaf\"}",
	}
	for _, in := range inputs {
		t.Run(in, func(t *testing.T) {
			want := stdCanonical(t, []byte(in))
			have, err := canon.JSON([]byte(in))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(have, want) {
				t.Errorf("want %s, have %s", want, have)
			}
		})
	}
}

// stdCanonical decodes in with encoding/json, keeping numbers as written,
// and encodes it again without HTML escaping.
func stdCanonical(tb testing.TB, in []byte) []byte {
	tb.Helper()
	dec := json.NewDecoder(bytes.NewReader(in))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		tb.Fatalf("encoding/json: %v", err)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		tb.Fatalf("encoding/json: %v", err)
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n"))
}

func TestBody(t *testing.T) {
	tests := []struct {
		name, contentType, body, want, wantErr string
	}{
		{name: "empty", contentType: "application/json", body: "", want: ""},
		{name: "json", contentType: "application/json", body: `{"b":1, "a":2}`, want: `{"a":2,"b":1}`},
		{name: "json with charset", contentType: "Application/JSON; charset=utf-8", body: `{"b":1,"a":2}`, want: `{"a":2,"b":1}`},
		{name: "plus json", contentType: "application/merge-patch+json", body: `{"b":1,"a":2}`, want: `{"a":2,"b":1}`},
		{name: "json whitespace", contentType: "application/json", body: "  ", want: ""},
		{name: "form", contentType: "application/x-www-form-urlencoded", body: "b=1&a=2", want: "a=2&b=1"},
		{name: "form with charset", contentType: " application/x-www-form-urlencoded ; charset=utf-8", body: "b=1&a=2", want: "a=2&b=1"},
		{name: "other type", contentType: "text/plain", body: "b=1&a=2", want: "b=1&a=2"},
		{name: "no type", contentType: "", body: `{"b":1}`, want: `{"b":1}`},
		{name: "bare +json is not a type", contentType: "+json", body: `{"b":1, "a":2}`, want: `{"b":1, "a":2}`},
		{name: "bad json", contentType: "application/json", body: `{`, wantErr: `invalid JSON at offset 1: want an object key, have end of input`},
		{name: "bad form", contentType: "application/x-www-form-urlencoded", body: `a=%`, wantErr: `form value of key "a" has an invalid escape "%"` + badEscape},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			have, err := canon.Body(tt.contentType, []byte(tt.body))
			checkErr(t, err, tt.wantErr)
			if have != tt.want {
				t.Errorf("Body(%q, %q): want %q, have %q", tt.contentType, tt.body, tt.want, have)
			}
		})
	}
}

func BenchmarkJSON(b *testing.B) {
	body := []byte(`{"amount":2000,"currency":"usd","metadata":{"order_id":"6735"},"automatic_payment_methods":{"enabled":true},"customer":"cus_123"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := canon.JSON(body); err != nil {
			b.Fatal(err)
		}
	}
}
