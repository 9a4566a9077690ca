package route_test

import (
	"strings"
	"testing"

	"github.com/wraithdev/wraith/twin/route"
)

// TestSuffixParameter: a parameter followed by static text in its segment
// ({Sid}.json, as Twilio writes paths) matches a segment ending in that
// text and answers the value without it; a static segment wins over it,
// it wins over a plain parameter, and the longer suffix wins over the
// shorter.
func TestSuffixParameter(t *testing.T) {
	r := route.New[string]()
	for _, rt := range []struct{ method, tmpl string }{
		{"GET", "/Accounts.json"},
		{"GET", "/Accounts/{Sid}.json"},
		{"POST", "/Accounts/{Sid}.json"},
		{"GET", "/Accounts/{AccountSid}/Calls.json"},
		{"GET", "/Accounts/{AccountSid}/Calls/{Sid}.json"},
		{"GET", "/Accounts/{AccountSid}"},
		{"GET", "/Accounts/Usage.json"},
		{"GET", "/files/{name}.gz"},
		{"GET", "/files/{name}.json.gz"},
	} {
		if err := r.Add(rt.method, rt.tmpl, rt.tmpl); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, method, path, want, params string
	}{
		{"item", "GET", "/Accounts/AC123.json", "/Accounts/{Sid}.json", "Sid=AC123;"},
		{"method", "POST", "/Accounts/AC123.json", "/Accounts/{Sid}.json", "Sid=AC123;"},
		{"nested", "GET", "/Accounts/AC1/Calls/CA2.json", "/Accounts/{AccountSid}/Calls/{Sid}.json", "AccountSid=AC1;Sid=CA2;"},
		{"nested collection", "GET", "/Accounts/AC1/Calls.json", "/Accounts/{AccountSid}/Calls.json", "AccountSid=AC1;"},
		{"static wins", "GET", "/Accounts/Usage.json", "/Accounts/Usage.json", ""},
		{"plain parameter without the suffix", "GET", "/Accounts/AC1", "/Accounts/{AccountSid}", "AccountSid=AC1;"},
		{"longer suffix first", "GET", "/files/a.json.gz", "/files/{name}.json.gz", "name=a;"},
		{"shorter suffix", "GET", "/files/a.tar.gz", "/files/{name}.gz", "name=a.tar;"},
		{"suffix alone is no value", "GET", "/files/.gz", "", ""},
		{"wrong method", "DELETE", "/Accounts/AC1.json", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, ok := r.Match(tc.method, tc.path)
			if tc.want == "" {
				if ok {
					t.Errorf("want no match, have %s", m.Template)
				}
				return
			}
			if !ok || m.Template != tc.want {
				t.Fatalf("want %s, have %q (matched %v)", tc.want, m.Template, ok)
			}
			var b strings.Builder
			for k, v := range m.Params() {
				b.WriteString(k + "=" + v + ";")
			}
			if have := b.String(); have != tc.params {
				t.Errorf("params: want %s, have %s", tc.params, have)
			}
		})
	}
	if !r.PathKnown("/Accounts/AC1.json") {
		t.Error("PathKnown: want /Accounts/AC1.json known")
	}
}

// TestSuffixDuplicate: a suffixed route is one route per method, however
// its parameter is named.
func TestSuffixDuplicate(t *testing.T) {
	r := route.New[int]()
	if err := r.Add("GET", "/a/{x}.json", 0); err != nil {
		t.Fatal(err)
	}
	if err := r.Add("GET", "/a/{y}.json", 0); err == nil {
		t.Error("want GET /a/{y}.json refused beside GET /a/{x}.json")
	}
}
