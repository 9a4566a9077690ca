package route_test

import (
	"testing"

	"github.com/wraithdev/wraith/twin/route"
)

// TestSuffixParameter: a parameter followed by static text in its segment
// ({Sid}.json, as Twilio writes paths) matches a segment ending in that
// text and answers the value without it; a static segment wins over it,
// it wins over a plain parameter, and the longer suffix wins over the
// shorter.
func TestSuffixParameter(t *testing.T) {
	r := addRoutes(t,
		[2]string{"GET", "/Accounts.json"},
		[2]string{"GET", "/Accounts/{Sid}.json"},
		[2]string{"POST", "/Accounts/{Sid}.json"},
		[2]string{"GET", "/Accounts/{AccountSid}/Calls.json"},
		[2]string{"GET", "/Accounts/{AccountSid}/Calls/{Sid}.json"},
		[2]string{"GET", "/Accounts/{AccountSid}"},
		[2]string{"GET", "/Accounts/Usage.json"},
		[2]string{"GET", "/files/{name}.gz"},
		[2]string{"GET", "/files/{name}.json.gz"},
	)
	checkMatches(t, r, []matchCase{
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
	})
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
